//! A first build of the index of a home, timed, with its size and the process's peak memory:
//! the writer's threads, memory and a final merge compared.
//!   cargo run --release --example index_build -- <home> [threads] [memory MB] [nomerge]
//! The index goes to a fresh temporary directory; the home is only read.
use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::index::postings::{set_build_budget, Budget};
use agent_mux_sessions::{Client, ClientOptions, Env};
use agent_mux_wire::search_query;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let home = std::path::PathBuf::from(&args[0]);
    if let Some(threads) = args.get(1).and_then(|t| t.parse().ok()) {
        let memory: usize = args.get(2).and_then(|m| m.parse().ok()).unwrap_or(96);
        let merge = args.get(3).is_none_or(|m| m != "nomerge");
        set_build_budget(Budget {
            threads,
            memory: memory << 20,
            merge,
        });
    }
    let cache = tempfile::tempdir().unwrap();
    let client = Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.path().to_path_buf()),
        ..Default::default()
    });
    let q = search_query(&serde_json::json!({"text": "kubernetes"})).unwrap();
    let started = std::time::Instant::now();
    let hits = client.search(Env::with_home(&home), &q).unwrap().len();
    let took = started.elapsed();
    let bytes = client.index_status(Env::with_home(&home)).bytes;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status
        .lines()
        .find(|l| l.starts_with("VmHWM"))
        .unwrap_or("VmHWM: ?")
        .to_string();
    let segments = std::fs::read_dir(cache.path().join(format!(
        "index-v{}.postings",
        agent_mux_sessions::index::store::FORMAT
    )))
    .unwrap()
    .flatten()
    .filter(|e| e.path().extension().is_some_and(|x| x == "idx"))
    .count();
    println!(
        "args {:?}: build + search {:.1} s, {hits} hits, index {} MB, {segments} segments, peak {}",
        &args[1..],
        took.as_secs_f64(),
        bytes / 1_000_000,
        peak.split_whitespace()
            .nth(1)
            .unwrap_or("?")
            .parse::<u64>()
            .unwrap_or(0)
            / 1024
    );
}
