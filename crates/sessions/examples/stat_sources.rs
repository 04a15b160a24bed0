//! What a new process pays to stay never stale: every agent's sources listed and stat'ed
//! (`Agent::sources`, the parallel stat), the stores' page cache warm, against `rg -uuu -i -F -l
//! <word>` over the same stores. Prints one line per run and the medians.
//!   cargo run --release -p agent-mux-sessions --example stat_sources -- <home> [word] [runs]
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use agent_mux_sessions::agents;
use agent_mux_sessions::context::Context;
use agent_mux_sessions::Env;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let home = Path::new(
        args.get(1)
            .expect("usage: stat_sources <home> [word] [runs]"),
    );
    let word = args.get(2).map_or("kubeadm", String::as_str);
    let runs: usize = args.get(3).map_or(7, |r| r.parse().expect("runs"));
    let ctx = Context::with_env(Env::with_home(home));
    let dirs: Vec<_> = [".claude", ".codex", ".gemini", ".copilot", ".pi", ".omp"]
        .iter()
        .map(|d| home.join(d))
        .filter(|d| d.is_dir())
        .collect();
    let (mut stat, mut rg) = (Vec::new(), Vec::new());
    for run in 0..=runs {
        let t = Instant::now();
        let sources: usize = agents::all().iter().map(|a| a.sources(&ctx).len()).sum();
        let s = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let ok = Command::new("rg")
            .args(["-uuu", "-i", "-F", "-l", word])
            .args(&dirs)
            .stdout(Stdio::null())
            .status()
            .expect("rg runs");
        assert!(ok.code().is_some_and(|c| c <= 1), "rg failed");
        let r = t.elapsed().as_secs_f64() * 1e3;
        // The first run warms the page cache and the dentries for both.
        if run > 0 {
            println!("{sources} sources: stat {s:.1} ms, rg {r:.1} ms");
            stat.push(s);
            rg.push(r);
        }
    }
    let (s, r) = (median(stat), median(rg));
    println!(
        "medians: stat {s:.1} ms, rg {r:.1} ms, stat / rg = {:.3}",
        s / r
    );
}
