//! Where a search spends its time, agent by agent: `search_profile <home> <query> [runs]`.
//! Each agent is searched alone in a fresh client (cold summary cache), then all together.
use agent_mux_sessions::options::SearchQuery;
use agent_mux_sessions::{agents, Client, Env};
use std::path::Path;
use std::time::Instant;

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
        let mut q = SearchQuery::new(text);
        q.agent = Some(a.name().to_string());
        q.limit = 1_000_000;
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
    let mut q = SearchQuery::new(text);
    q.limit = 1_000_000;
    let client = Client::default();
    let t = Instant::now();
    let n = client.search(env, &q).expect("search").len();
    eprintln!("all       {:5} hits  cold {:>10.1?}", n, t.elapsed());
}
