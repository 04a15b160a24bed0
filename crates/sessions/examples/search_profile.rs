//! Where a search spends its time, agent by agent: `search_profile <home> <query> [runs]`.
//! Each agent is searched alone in a fresh client (cold summary cache), then all together, then
//! the six file-based agents at once as bench/measure.mjs `search-files` does (one call per
//! agent, concurrently), with the process's CPU time.
use agent_mux_sessions::options::SearchQuery;
use agent_mux_sessions::{agents, Client, Env};
use std::path::Path;
use std::time::Instant;

const FILE_AGENTS: [&str; 6] = ["claude", "codex", "gemini", "copilot", "pi", "omp"];

fn query(text: &str, agent: Option<&str>) -> SearchQuery {
    let mut q = SearchQuery::new(text);
    q.agent = agent.map(str::to_string);
    q.limit = 1_000_000;
    q
}

/// (user, system) CPU milliseconds of this process so far (Linux; zeros elsewhere).
fn cpu_ms() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    // utime and stime, in clock ticks (100 per second on Linux).
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) * 10.0, ticks(12) * 10.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let home = Path::new(
        args.get(1)
            .expect("usage: search_profile <home> <query> [runs]"),
    );
    let text = args.get(2).map(String::as_str).unwrap_or("kubernetes");
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(1);
    let env = Env::with_home(home);
    for a in agents::all() {
        let q = query(text, Some(a.name()));
        let client = Client::default();
        let t = Instant::now();
        let n = client.search(env.clone(), &q).expect("search").len();
        let cold = t.elapsed();
        let t = Instant::now();
        for _ in 0..runs.saturating_sub(1) {
            client.search(env.clone(), &q).expect("search");
        }
        let warm = t.elapsed() / runs.saturating_sub(1).max(1) as u32;
        eprintln!(
            "{:9} {:5} hits  cold {:>10.1?}  warm {:>10.1?}",
            a.name(),
            n,
            cold,
            warm
        );
    }
    let client = Client::default();
    let t = Instant::now();
    let n = client
        .search(env.clone(), &query(text, None))
        .expect("search")
        .len();
    eprintln!("all       {:5} hits  cold {:>10.1?}", n, t.elapsed());
    for _ in 0..runs {
        let client = Client::default();
        let (user, sys) = cpu_ms();
        let t = Instant::now();
        let n: usize = std::thread::scope(|s| {
            let calls: Vec<_> = FILE_AGENTS
                .iter()
                .map(|a| {
                    let (client, env, q) = (&client, env.clone(), query(text, Some(a)));
                    s.spawn(move || client.search(env, &q).expect("search").len())
                })
                .collect();
            calls.into_iter().map(|c| c.join().expect("search")).sum()
        });
        let wall = t.elapsed();
        let (user2, sys2) = cpu_ms();
        eprintln!(
            "six file agents at once {n} hits  wall {wall:>7.1?}  user {:.0} ms  sys {:.0} ms",
            user2 - user,
            sys2 - sys
        );
    }
}
