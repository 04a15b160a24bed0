//! The full-text index (tantivy) against today's index (SQLite) and `rg -uuu -i -F -l`, side by
//! side in one process, on one home:
//!
//!   fulltext_bench build-tantivy <home> <dir> [threads] [merge: 1|0]   first build, wall and peak RSS
//!   fulltext_bench build-sqlite <home> <dir>          today's first call (builds its index)
//!   fulltext_bench pick <home> <tantivy dir>          words by the share of sessions holding them
//!   fulltext_bench queries <home> <tantivy dir> <sqlite dir> <query>...
//!
//! `queries` times each query (default cut of 50) in process: the first call on a freshly
//! opened index and a warm call (median of 5) for both indexes, `rg` over the agents'
//! directories (median of 3), and checks that the tantivy results equal today's index's and the
//! scan's (every hit, and the first 50), at a fixed time.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::fulltext::build::{build, Options};
use agent_mux_sessions::fulltext::{hits, FullText};
use agent_mux_sessions::list::SummaryCache;
use agent_mux_sessions::options::SearchQuery;
use agent_mux_sessions::{agents, Client, ClientOptions, Context, Env, SessionSummary};

fn env(home: &Path) -> Env {
    Env::with_home(home).at(chrono::DateTime::from_timestamp(1_795_000_000, 0).unwrap())
}

fn dirs(home: &Path) -> Vec<PathBuf> {
    [".claude", ".codex", ".gemini", ".copilot", ".pi", ".omp"]
        .iter()
        .map(|d| home.join(d))
        .filter(|p| p.is_dir())
        .collect()
}

fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<u64>().ok())
        .unwrap_or(0)
        / 1024
}

fn bytes_of(path: &Path) -> u64 {
    let out = Command::new("du")
        .arg("-sb")
        .arg(path)
        .output()
        .expect("du");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Milliseconds of `rg -uuu -i -F -l <word>` over the agents' directories, and files found.
fn rg(home: &Path, word: &str) -> (f64, usize) {
    let t = Instant::now();
    let out = Command::new("rg")
        .args(["-uuu", "-i", "-F", "-l", word])
        .args(dirs(home))
        .output()
        .expect("rg");
    let n = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    (t.elapsed().as_secs_f64() * 1e3, n)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The word rg is given for a query: its longest plain word (rg has no AND, OR, NOT).
fn rg_word(q: &str) -> String {
    q.split(|c: char| c.is_whitespace() || c == '"' || c == '*')
        .filter(|w| !w.is_empty() && !["AND", "OR", "NOT"].contains(w))
        .max_by_key(|w| w.len())
        .unwrap_or(q)
        .to_string()
}

fn query(text: &str, limit: usize) -> SearchQuery {
    let mut q = SearchQuery::new(text);
    q.limit = limit;
    q
}

fn sqlite_client(dir: &Path) -> Client {
    Client::new(ClientOptions {
        cache: CacheSetting::Dir(dir.to_path_buf()),
        ..Default::default()
    })
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let home = PathBuf::from(arg(2));
    let ctx = Context::new(env(&home), Arc::new(ClientOptions::default()));
    match arg(1) {
        "build-tantivy" => {
            let mut opts = Options::default();
            if let Ok(t) = arg(4).parse() {
                opts.threads = t;
            }
            opts.merge = arg(5) != "0";
            let t = Instant::now();
            let ft = build(&ctx, agents::all(), Path::new(arg(3)), opts).expect("build");
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let sessions: usize = ft.catalog.iter().map(|c| c.sessions).sum();
            println!(
                "tantivy: {} threads, reading and indexing {:.1} s, merging {:.1} s",
                opts.threads,
                ft.timings.0.as_secs_f64(),
                ft.timings.1.as_secs_f64()
            );
            report_build("tantivy", &home, Path::new(arg(3)), ms, sessions);
        }
        "build-sqlite" => {
            let dir = Path::new(arg(3));
            let _ = std::fs::remove_dir_all(dir);
            let c = sqlite_client(dir);
            let t = Instant::now();
            let n = c
                .search(env(&home), &query("kubernetes", 50))
                .unwrap()
                .len();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            report_build("sqlite", &home, dir, ms, n);
        }
        "pick" => pick(&home, Path::new(arg(3))),
        "read-only" => read_only(&ctx),
        "queries" => {
            let ft_dir = PathBuf::from(arg(3));
            let sq_dir = PathBuf::from(arg(4));
            for q in &args[5..] {
                one_query(&home, &ft_dir, &sq_dir, q);
            }
        }
        _ => eprintln!("usage: see the comment at the top of fulltext_bench.rs"),
    }
}

fn report_build(name: &str, home: &Path, dir: &Path, ms: f64, n: usize) {
    let (rg_ms, _) = rg(home, "kubernetes");
    let stores: u64 = dirs(home).iter().map(|d| bytes_of(d)).sum();
    let size = bytes_of(dir);
    println!(
        "{name} build: {ms:.0} ms = {:.1}x rg ({rg_ms:.0} ms); {n} sessions/hits; index {} MB = {:.3}x the stores ({} MB); peak RSS {} MB",
        ms / rg_ms,
        size / 1_000_000,
        size as f64 / stores as f64,
        stores / 1_000_000,
        peak_rss_mb()
    );
}

/// What a build spends before tantivy: reading every session, its texts, and folding them.
fn read_only(ctx: &Context) {
    use agent_mux_sessions::fulltext::document::Texts;
    use agent_mux_sessions::fulltext::tokens::{each_cjk, each_word};
    use rayon::prelude::*;
    let sources: Vec<_> = agents::all()
        .iter()
        .flat_map(|&a| a.sources(ctx).into_iter().map(move |s| (a, s)))
        .collect();
    let t = Instant::now();
    let sessions: Vec<_> = sources
        .par_iter()
        .flat_map_iter(|(a, s)| a.load_source(ctx, s).unwrap_or_default())
        .collect();
    let read = t.elapsed();
    let t = Instant::now();
    let texts: Vec<Texts> = sessions.par_iter().map(Texts::of).collect();
    let made = t.elapsed();
    let t = Instant::now();
    let tokens: usize = texts
        .par_iter()
        .map(|x| {
            let mut n = 0;
            for (_, v) in &x.values {
                each_word(v, &mut |_| n += 1);
                each_cjk(v, &mut |_| n += 1);
            }
            n
        })
        .sum();
    let bytes: usize = texts
        .iter()
        .flat_map(|x| x.values.iter().map(|v| v.1.len()))
        .sum();
    println!(
        "read {:.1} s, texts {:.1} s, folded {:.1} s: {} sessions, {} MB of text, {tokens} tokens",
        read.as_secs_f64(),
        made.as_secs_f64(),
        t.elapsed().as_secs_f64(),
        sessions.len(),
        bytes / 1_000_000
    );
}

/// Words of the tool outputs by the share of sessions that hold them (in any field).
fn pick(home: &Path, dir: &Path) {
    let ft = FullText::open(dir).expect("open");
    let reader = ft.index.reader().expect("reader");
    let searcher = reader.searcher();
    let docs = searcher.num_docs() as f64;
    let _ = home;
    let mut shown = [0usize; 5];
    let buckets = [
        0.009..0.011,
        0.3..0.35,
        0.48..0.52,
        0.97..1.01,
        0.0001..0.0003,
    ];
    for seg in searcher.segment_readers().iter().take(1) {
        let inv = seg.inverted_index(ft.fields.words[4]).unwrap();
        let mut stream = inv.terms().stream().unwrap();
        let seg_docs = seg.num_docs() as f64;
        while stream.advance() {
            let key = String::from_utf8_lossy(stream.key()).to_string();
            if key.len() < 4 || !key.chars().all(|c| c.is_ascii_lowercase()) {
                continue;
            }
            let share = stream.value().doc_freq as f64 / seg_docs;
            for (b, range) in buckets.iter().enumerate() {
                if range.contains(&share) && shown[b] < 6 {
                    shown[b] += 1;
                    println!("{:.4} {key}", share);
                }
            }
        }
    }
    println!("{docs} sessions");
}

fn one_query(home: &Path, ft_dir: &Path, sq_dir: &Path, text: &str) {
    let env = env(home);
    let ctx = Context::new(env.clone(), Arc::new(ClientOptions::default()));
    // The CLI's default cut; LIMIT=n for another.
    let limit = std::env::var("LIMIT")
        .ok()
        .and_then(|l| l.parse().ok())
        .unwrap_or(50);
    let q = query(text, limit);
    // rg, three runs.
    let word = rg_word(text);
    let rgs: Vec<(f64, usize)> = (0..3).map(|_| rg(home, &word)).collect();
    let rg_files = rgs[0].1;
    let rg_ms = median(rgs.iter().map(|r| r.0).collect());
    // First calls: a fresh open of each index (three, interleaved).
    let (mut ft_first, mut sq_first) = (Vec::new(), Vec::new());
    let mut first_result: Vec<SessionSummary> = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let ft = FullText::open(ft_dir).expect("open");
        first_result = hits::search(&ft, &SummaryCache::default(), &ctx, &q)
            .unwrap()
            .0;
        ft_first.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let c = sqlite_client(sq_dir);
        c.search(env.clone(), &q).unwrap();
        sq_first.push(t.elapsed().as_secs_f64() * 1e3);
    }
    // Warm calls: five each, interleaved, on an index opened once.
    let ft = FullText::open(ft_dir).expect("open");
    let cache = SummaryCache::default();
    let c = sqlite_client(sq_dir);
    c.search(env.clone(), &q).unwrap();
    let (mut ft_warm, mut sq_warm) = (Vec::new(), Vec::new());
    let (mut ft_res, mut sq_res) = (Vec::new(), Vec::new());
    let mut tally = hits::Tally::default();
    for _ in 0..5 {
        let t = Instant::now();
        (ft_res, tally) = hits::search(&ft, &cache, &ctx, &q).unwrap();
        ft_warm.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        sq_res = c.search(env.clone(), &q).unwrap();
        sq_warm.push(t.elapsed().as_secs_f64() * 1e3);
    }
    // Exactness: the first 50 and every hit, against today's index and the scan.
    let all = query(text, 1_000_000);
    let ft_all = hits::search(&ft, &cache, &ctx, &all).unwrap().0;
    let sq_all = c.search(env.clone(), &all).unwrap();
    let scan = Client::default();
    let t = Instant::now();
    let scan_all = scan.search(env.clone(), &all).unwrap();
    let scan_ms = t.elapsed().as_secs_f64() * 1e3;
    let scan_50 = scan.search(env.clone(), &q).unwrap();
    let same = ft_res == sq_res
        && ft_res == scan_50
        && first_result == ft_res
        && ft_all == sq_all
        && ft_all == scan_all;
    let (ftf, sqf, ftw, sqw) = (
        median(ft_first),
        median(sq_first),
        median(ft_warm),
        median(sq_warm),
    );
    println!(
        "{text:?}: {} hits (rg {rg_files} files) | first: tantivy {ftf:.1} ms {:.2}x rg, sqlite {sqf:.1} ms {:.2}x | warm: tantivy {ftw:.1} ms {:.2}x, sqlite {sqw:.1} ms {:.2}x | rg {rg_ms:.0} ms | scan (all hits) {scan_ms:.0} ms | identical: {same} | {tally:?}",
        ft_all.len(),
        ftf / rg_ms,
        sqf / rg_ms,
        ftw / rg_ms,
        sqw / rg_ms,
    );
    if !same {
        let diff = |a: &[SessionSummary], b: &[SessionSummary]| {
            a.iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .map(|i| format!("first difference at {i}: {:?} vs {:?}", a[i], b[i]))
                .unwrap_or_else(|| format!("lengths {} vs {}", a.len(), b.len()))
        };
        println!("  tantivy vs scan (all): {}", diff(&ft_all, &scan_all));
        println!("  sqlite vs scan (all): {}", diff(&sq_all, &scan_all));
        println!("  tantivy vs scan (50): {}", diff(&ft_res, &scan_50));
    }
}
