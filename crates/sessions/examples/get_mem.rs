//! Peak memory of `get` on a large session in the core: the load, then one JSON string (what the
//! binding sent before it built JS objects directly; the load is still its floor).
//! `cargo run --release -p agent-mux-sessions --example get_mem -- <home> <agent> <id>`
//! `GET_MEM_TO_STRING=1` serialises with `serde_json::to_string` instead, for comparison.
//! Prints the resident set after loading and the peak (VmHWM) after serialising, from
//! /proc/self/status (Linux). Figures in bench/RESULTS.md.
use agent_mux_sessions::{Client, ClientOptions, Env};

fn status_mb(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0)
        / 1024
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (home, agent, id) = (&args[0], &args[1], &args[2]);
    let client = Client::new(ClientOptions::default());
    let t = std::time::Instant::now();
    let session = client
        .get(Env::with_home(std::path::Path::new(home)), agent, id)
        .unwrap();
    let load_ms = t.elapsed().as_millis();
    let (rss_loaded, peak_loaded) = (status_mb("VmRSS"), status_mb("VmHWM"));
    let messages = session.messages.len();
    let text = if std::env::var_os("GET_MEM_TO_STRING").is_some() {
        serde_json::to_string(&session).unwrap() // the whole session beside its whole JSON
    } else {
        session.into_json().unwrap() // freed as written
    };
    println!(
        "messages={messages} load_ms={load_ms} rss_after_load_mb={rss_loaded} \
         peak_during_load_mb={peak_loaded} json_mb={} peak_after_json_mb={}",
        text.len() >> 20,
        status_mb("VmHWM"),
    );
}
