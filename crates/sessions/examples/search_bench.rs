//! Search benchmark stub: generate a home of Claude-like JSONL files (deterministic), then time the
//! engine's raw-byte candidate pass (all files in parallel) against `rg -i -F -l <word>` over the
//! same directory. Usage: `cargo run --release -p agent-mux-sessions --example search_bench --
//! <dir> [megabytes] [word]`. The full generator (all ten agents) is `scripts/gen_home.py`.
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use agent_mux_sessions::query::{prefilter::Prefilter, Query};
use agent_mux_sessions::read::fs::walk_files;

const WORDS: &[&str] = &[
    "the",
    "build",
    "fails",
    "because",
    "cargo",
    "test",
    "runtime",
    "async",
    "token",
    "error",
    "file",
    "path",
    "function",
    "returns",
    "value",
    "config",
    "deploy",
    "docker",
    "branch",
    "commit",
    "merge",
    "review",
    "schema",
    "query",
    "index",
    "cache",
    "memory",
    "thread",
    "café",
    "naïve",
    "进度",
    "项目",
    "→",
    "✓",
    "résumé",
    "\\n",
    "\\\"quoted\\\"",
];

fn generate(dir: &Path, megabytes: usize, rare: &str) {
    let files = megabytes * 2; // ~512 KB per file
    let mut seed: u64 = 42;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for f in 0..files {
        let p = dir.join(format!("projects/p{}/s{f:05}.jsonl", f % 20));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        let mut out = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        let mut written = 0;
        let mut line = 0;
        while written < 512 * 1024 {
            let mut text = String::new();
            for _ in 0..(20 + next() % 200) {
                text.push_str(WORDS[next() % WORDS.len()]);
                text.push(' ');
            }
            if f % 100 == 7 && line == 50 {
                text.push_str(rare);
            }
            let role = if line % 2 == 0 { "user" } else { "assistant" };
            let l = format!(
                "{{\"type\":\"{role}\",\"uuid\":\"u{f}-{line}\",\"timestamp\":\"2025-01-02T03:04:05.000Z\",\"message\":{{\"role\":\"{role}\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}}}}\n"
            );
            written += l.len();
            out.write_all(l.as_bytes()).unwrap();
            line += 1;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = PathBuf::from(args.get(1).expect("usage: search_bench <dir> [MB] [word]"));
    let mb: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(256);
    let word = args.get(3).cloned().unwrap_or_else(|| "zanzibar".into());
    if !dir.join("projects").is_dir() {
        let t = Instant::now();
        generate(&dir, mb, &word);
        eprintln!("generated {mb} MB in {:?}", t.elapsed());
    }
    let ctx = agent_mux_sessions::Context::with_env(agent_mux_sessions::Env::default());
    let files = walk_files(&ctx, &dir, 4, &|n: &str| n.ends_with(".jsonl"));
    let q = Query::parse(&word).unwrap();
    let pf = Prefilter::new(&q);
    let mut ours = Vec::new();
    let mut rg = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let hits = files
            .par_iter()
            .filter(|p| pf.could_match(&q, pf.scan_file(p).unwrap_or(pf.all())))
            .count();
        ours.push((t.elapsed().as_secs_f64(), hits));
        let t = Instant::now();
        let o = std::process::Command::new("rg")
            .args(["-i", "-F", "-l", &word])
            .arg(&dir)
            .output()
            .expect("rg");
        let n = o
            .stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        rg.push((t.elapsed().as_secs_f64(), n));
    }
    let med = |v: &mut Vec<(f64, usize)>| {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v[v.len() / 2]
    };
    let (o, oh) = med(&mut ours);
    let (r, rh) = med(&mut rg);
    println!(
        "files={} word={word} ours={:.1}ms ({oh} candidates) rg={:.1}ms ({rh} files) ratio={:.2}",
        files.len(),
        o * 1e3,
        r * 1e3,
        o / r
    );
}
