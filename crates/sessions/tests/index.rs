//! The persistent index (issue #16) answers exactly as reading the stores does: every query
//! form, filter and sort, on homes of every agent, through a client with an index and one
//! without; and it stays exact while sources appear, grow, change and vanish between calls.
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::options::{cost_options, list_options, search_query};
use agent_mux_sessions::{Client, ClientOptions, Env};
use serde_json::{json, Value};

use common::{copy_dir, snapshot};

fn demo_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo-home")
}

/// A generated home of every agent (scripts/gen_home.py), or `None` where Python or the agents'
/// schemas are missing.
fn generated_home(out: &Path, sessions: u32, seed: u32) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let ok = Command::new("python3")
        .arg(root.join("scripts/gen_home.py"))
        .args(["--out", out.to_str()?, "--sessions", &sessions.to_string()])
        .args(["--seed", &seed.to_string(), "--scale", "1"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("skipping the generated home: scripts/gen_home.py did not run");
        assert!(
            std::env::var_os("AGENT_MUX_REQUIRE_FIXTURES").is_none(),
            "gen_home.py must run when fixtures are required"
        );
    }
    ok.then(|| out.to_path_buf())
}

fn indexed(cache: &Path) -> Client {
    Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.to_path_buf()),
        ..Default::default()
    })
}

fn scanning() -> Client {
    Client::new(ClientOptions::default())
}

const AGENTS: [&str; 10] = [
    "claude", "codex", "gemini", "copilot", "cursor", "opencode", "pi", "omp", "openclaw", "hermes",
];

/// Every query form: words, implicit AND, phrases, OR, NOT, prefixes, CJK, short needles that
/// trigrams cannot look up, accents, nothing found.
const QUERIES: &[&str] = &[
    "test",
    "kubernetes",
    "borrow",
    "docker compose",
    "\"docker compose\"",
    "kube*",
    "bor*",
    "kubernetes OR borrow",
    "test NOT kubernetes",
    "borrow NOT checker",
    "大别山",
    "大别",
    "go",
    "a",
    "the error",
    "\"the error\"",
    "docker OR 大别山",
    "Café",
    "fix",
    "zzzqqq-not-there",
];

fn search(c: &Client, env: &Env, q: Value) -> Vec<agent_mux_sessions::SessionSummary> {
    c.search(env.clone(), &search_query(&q).unwrap()).unwrap()
}

/// Queries, filters and sorts over all agents and each agent alone; returns how many results
/// were compared (so a test can tell it compared something).
fn assert_same_search(home: &Path, with: &Client, without: &Client) -> usize {
    let env = Env::with_home(home);
    let mut compared = 0;
    let mut shapes: Vec<Value> = Vec::new();
    for q in QUERIES {
        for sort in ["relevance", "date", "cost"] {
            shapes.push(json!({"text": q, "sort": sort, "limit": 1000}));
        }
        shapes.push(json!({"text": q, "limit": 3}));
        shapes.push(json!({"text": q, "since": 1767225600000u64, "limit": 1000}));
        shapes.push(json!({"text": q, "until": 1748736000000u64}));
        for a in AGENTS {
            shapes.push(json!({"text": q, "agent": a, "limit": 1000}));
        }
    }
    // Filters that take values from the home itself.
    let all = search(without, &env, json!({"text": "test", "limit": 1000}));
    for s in all.iter().take(4) {
        if let Some(m) = &s.model {
            shapes.push(json!({"text": "test", "model": m, "limit": 1000}));
        }
        if let Some(cwd) = &s.cwd {
            shapes.push(json!({"text": "test OR the", "cwd": cwd, "limit": 1000}));
        }
    }
    shapes.push(json!({"text": "test", "tags": ["nightly"], "limit": 1000}));
    for q in shapes {
        let want = search(without, &env, q.clone());
        let got = search(with, &env, q.clone());
        assert_eq!(got, want, "{q}");
        compared += want.len();
    }
    compared
}

fn assert_same_lists(home: &Path, with: &Client, without: &Client) {
    let env = Env::with_home(home);
    for a in AGENTS {
        for o in [
            json!({"limit": 1000}),
            json!({"sort": "cost", "limit": 5}),
            json!({"sort": "turns", "sortDirection": "asc"}),
        ] {
            let o = list_options(&o).unwrap();
            let want = without.list(env.clone(), a, &o).unwrap();
            assert_eq!(with.list(env.clone(), a, &o).unwrap(), want, "{a}");
        }
    }
    for o in [json!({"groupBy": "day"}), json!({"groupBy": "model"})] {
        let o = cost_options(&o).unwrap();
        let want = without.total_cost(env.clone(), &o).unwrap();
        assert_eq!(with.total_cost(env.clone(), &o).unwrap(), want);
    }
}

#[test]
fn the_index_answers_as_the_stores_do_on_the_demo_home() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_dir(&demo_home(), &home);
    let cache = tmp.path().join("cache");
    let before = snapshot(&home);
    let (with, without) = (indexed(&cache), scanning());
    // Twice: the first call builds the index, the second reads it.
    for _ in 0..2 {
        assert!(assert_same_search(&home, &with, &without) > 100);
        assert_same_lists(&home, &with, &without);
    }
    // A new client (a new process) answers from the index as it stands.
    assert!(assert_same_search(&home, &indexed(&cache), &without) > 100);
    assert!(cache.join("index-v1.sqlite").is_file());
    // The agent stores are byte-identical, and nothing was added to them.
    assert_eq!(snapshot(&home), before);
}

#[test]
fn the_index_answers_as_the_stores_do_on_a_generated_home() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(home) = generated_home(&tmp.path().join("home"), 150, 11) else {
        return;
    };
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    for _ in 0..2 {
        assert!(assert_same_search(&home, &with, &without) > 100);
        assert_same_lists(&home, &with, &without);
    }
}
