//! Warm calls of one long-lived client (`watch: true`), each shape repeated, with the cache dir
//! given (an index built once serves many runs): where a warm call's time goes, under `perf`.
//!   warm_calls <home> <cache> <runs> <call>...
//! A call is `list:<agent>` or the text of a search (limit `LIMIT`, default 50). Prints each
//! call's median and best in ms.
use std::path::PathBuf;
use std::time::Instant;

use agent_mux_sessions::context::{CacheSetting, IndexUpdates};
use agent_mux_sessions::options::ListOptions;
use agent_mux_sessions::{Client, ClientOptions, Env};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: warm_calls <home> <cache> <runs> <call>...";
    let home = PathBuf::from(args.get(1).expect(usage));
    let cache = PathBuf::from(args.get(2).expect(usage));
    let runs: usize = args.get(3).expect(usage).parse().expect("runs");
    let limit: usize = std::env::var("LIMIT").map_or(50, |v| v.parse().expect("LIMIT"));
    let env = Env::with_home(&home);
    let client = Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache),
        index_updates: IndexUpdates::Wait,
        watch: std::env::var("WATCH").map_or(true, |v| v != "0"),
        ..Default::default()
    });
    let t = Instant::now();
    client.index_update(env.clone(), false).unwrap();
    eprintln!("index up to date in {:.1} s", t.elapsed().as_secs_f64());
    for call in &args[4..] {
        // Each call at its own time, as a process's calls are (`Env::from_process`): a search
        // that knows its time cuts its results by score before making summaries.
        let env = || env.clone().at(chrono::Utc::now());
        let run = || match call.strip_prefix("list:") {
            Some(agent) => {
                let opts = ListOptions {
                    limit: 1_000_000,
                    ..Default::default()
                };
                client.list(env(), agent, &opts).unwrap().len()
            }
            None => {
                let q = serde_json::json!({ "text": call, "limit": limit });
                let q = agent_mux_wire::search_query(&q).unwrap();
                client.search(env(), &q).unwrap().len()
            }
        };
        let n = run();
        let mut times: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                run();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "{call:40} {n:6} results  median {:8.2} ms  best {:8.2} ms",
            times[times.len() / 2],
            times[0]
        );
    }
}
