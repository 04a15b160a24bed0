//! What every fuzz target shares: write the fuzz bytes where an agent keeps its sessions inside a
//! throwaway home, then drive the public API over it the way the binding does. Any panic is a
//! finding (the core must never panic on bad input); errors are fine.
use std::path::{Path, PathBuf};

use agent_mux_sessions::agents;
use agent_mux_sessions::options::{ExportFormat, ListOptions, SearchQuery};
use agent_mux_sessions::{Client, ClientOptions, Context, Env};

/// Splits one fuzz input into several files (a store that needs more than one document).
pub const PART_SEPARATOR: &[u8] = b"\n%%%%\n";

/// A temp home; under /dev/shm when it exists so the file churn stays in memory.
pub fn temp_home() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::tempdir_in(shm) {
            return d;
        }
    }
    tempfile::tempdir().expect("temp dir")
}

pub fn write(home: &Path, rel: &str, bytes: &[u8]) -> PathBuf {
    let p = home.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, bytes).unwrap();
    p
}

/// `data` split on `PART_SEPARATOR` into exactly `n` parts (missing ones empty, extra ones joined
/// into the last).
pub fn parts(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    let mut rest = data;
    while out.len() + 1 < n {
        match find(rest, PART_SEPARATOR) {
            Some(at) => {
                out.push(&rest[..at]);
                rest = &rest[at + PART_SEPARATOR.len()..];
            }
            None => break,
        }
    }
    out.push(rest);
    while out.len() < n {
        out.push(&[]);
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Every read path of `agent` over `home`: sources → summaries/load_source, list, get + export of
/// every listed session, a search, totalCost. Returns how many sessions `list` found.
pub fn exercise(home: &Path, agent_name: &str) -> usize {
    let client = Client::new(ClientOptions::default());
    let env = Env::with_home(home);
    let agent = agents::find(agent_name).expect("built-in agent");
    let ctx = Context::with_env(env.clone());
    for source in agent.sources(&ctx) {
        let _ = agent.summaries(&ctx, &source);
        if let Ok(sessions) = agent.load_source(&ctx, &source) {
            for s in &sessions {
                let _ = agent_mux_sessions::export::export(s, ExportFormat::Markdown);
            }
        }
    }
    let listed = match client.list(env.clone(), agent_name, &ListOptions::default()) {
        Ok(v) => v,
        Err(_) => return 0,
    };
    for s in &listed {
        if let Ok(session) = client.get(env.clone(), agent_name, &s.session_id) {
            let _ = agent_mux_sessions::export::export(&session, ExportFormat::Json);
            let _ = agent_mux_sessions::export::export(&session, ExportFormat::Markdown);
            let _ = agent_mux_sessions::diff::diff(&session, &session);
        }
    }
    let mut q = SearchQuery::new("the OR error");
    q.agent = Some(agent_name.to_string());
    let _ = client.search(env.clone(), &q);
    let _ = client.total_cost(env, &Default::default());
    listed.len()
}

/// Write `data` at `rel` in a fresh home (plus fixed side files) and exercise `agent`.
pub fn one_file(agent: &str, rel: &str, side: &[(&str, &[u8])], data: &[u8]) {
    let home = temp_home();
    for (p, b) in side {
        write(home.path(), p, b);
    }
    write(home.path(), rel, data);
    exercise(home.path(), agent);
}
