//! The Rust half of bench/team-driver.mjs: the COPY text in AGENT_MUX_COPY_ROWS written with
//! `copy_in` into an unindexed table of the server AGENT_MUX_TEST_PG names. Run by the bench only.
use std::io::Write;
use std::time::Instant;

use agent_mux_sessions::team::conn::Target;
use agent_mux_sessions::Env;

#[test]
#[ignore = "a measurement: bench/team-driver.mjs runs it"]
fn copy_in_throughput() {
    let url = std::env::var("AGENT_MUX_TEST_PG").expect("AGENT_MUX_TEST_PG");
    let file = std::env::var("AGENT_MUX_COPY_ROWS").expect("AGENT_MUX_COPY_ROWS");
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut db = Target::parse(&url, &Env::default())
        .unwrap()
        .connect()
        .unwrap();
    db.batch_execute(
        "DROP TABLE IF EXISTS copy_rust; CREATE TABLE copy_rust (machine text, unified_id text, \
         idx integer, role text, at timestamptz, model text, text text, message json)",
    )
    .unwrap();
    let (t, cpu) = (Instant::now(), cpu_ms());
    let mut w = db.copy_in("COPY copy_rust FROM STDIN").unwrap();
    for l in &lines {
        w.write_all(l.as_bytes()).unwrap();
    }
    let n = w.finish().unwrap();
    assert_eq!(n as usize, lines.len());
    println!(
        "copy_in: {:.1} ms, client CPU {} ms",
        t.elapsed().as_secs_f64() * 1000.0,
        cpu_ms() - cpu
    );
}

/// This process's user and system CPU time (Linux: /proc/self/stat, in clock ticks of 10 ms).
fn cpu_ms() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    (f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)) * 10
}
