//! Peak memory of a cost report in the core: its sums (`cost_report_sums`), then its JSON as
//! `amux cost … --json` prints it, written from them (the system allocator here, not the
//! addon's mimalloc). `cargo run --release -p agent-mux-sessions --example cost_mem --
//! <daily|weekly|monthly|sessions> <agent>` with HOME and AGENT_MUX_CACHE_DIR set as for amux.
//! Prints the resident set (anonymous and file-backed) and its peak (VmHWM, /proc/self/status,
//! Linux) after each step, in MB.
use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::options::{Grouping, Period, ReportOptions};
use agent_mux_sessions::{Client, ClientOptions, Env};

fn status_mb(field: &str) -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

fn step(name: &str) {
    println!(
        "{name:<10} rss {:.1} MB (anonymous {:.1}, files {:.1}), peak {:.1} MB",
        status_mb("VmRSS"),
        status_mb("RssAnon"),
        status_mb("RssFile"),
        status_mb("VmHWM")
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let grouping = match args[0].as_str() {
        "daily" => Grouping::Period(Period::Day),
        "weekly" => Grouping::Period(Period::Week(chrono::Weekday::Sun)),
        "monthly" => Grouping::Period(Period::Month),
        "sessions" => Grouping::Session,
        other => panic!("a report is daily, weekly, monthly or sessions, not {other}"),
    };
    let mut opts = ReportOptions::new(grouping);
    opts.agent = Some(args[1].clone());
    step("start");
    let client = Client::new(ClientOptions {
        cache: CacheSetting::FromEnv,
        ..ClientOptions::default()
    });
    let report = client.cost_report_sums(Env::from_process(), &opts).unwrap();
    step("report");
    let mut out = Vec::new();
    agent_mux_sessions::export::json::write_pretty(&mut out, &report).unwrap();
    step("json");
    println!("json {:.1} MB", out.len() as f64 / 1048576.0);
}
