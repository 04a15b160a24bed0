//! Keep lists no store of its own: a call with keeping on lists each store once, as the same call
//! with keeping off does (a new process: one stat pass, shared by the index and the kept store),
//! and a watching client keeps an appended session from the file events alone (after its
//! answer), with no listing of the store, and archives a deleted one with no listing but the watcher's own. Counted by `agents::adapter::listed_files`, the
//! files stat'ed by listings of whole stores in this process (one test in this binary, so no
//! other test's listings are counted).
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};

use agent_mux_sessions::agents::adapter::listed_files;
use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::keep::Kept;
use agent_mux_sessions::options::ListOptions;
use agent_mux_sessions::{Client, ClientOptions, Env, SessionSummary};
use agent_mux_wire::search_query;
use serde_json::json;

mod common;
use common::{claude_exchange as exchange, claude_session as session};

fn id_of(p: usize, s: usize) -> String {
    format!("0000000{p}-0000-4000-8000-00000000000{s}")
}

/// A Claude store of `projects` projects of three sessions each; their files.
fn home(root: &Path, projects: usize) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for p in 0..projects {
        for s in 0..3 {
            let id = id_of(p, s);
            let dir = root.join(format!("home/.claude/projects/-src-p{p}"));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(format!("{id}.jsonl"));
            std::fs::write(&path, session(&id, "kubernetes", 2 + s)).unwrap();
            files.push(path);
        }
    }
    files
}

fn env(root: &Path) -> Env {
    let mut env = Env::with_home(&root.join("home"));
    env.set("AGENT_MUX_DATA_DIR", root.join("data").to_str().unwrap());
    env.set(
        "AGENT_MUX_CONFIG_DIR",
        root.join("config").to_str().unwrap(),
    );
    env.set("AGENT_MUX_WATCH_MIN_SOURCES", "1");
    env.set("AGENT_MUX_WATCH_WAIT_MS", "10000");
    env
}

fn client(cache: &Path, keep: bool, watch: bool) -> Client {
    Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.to_path_buf()),
        keep: Some(keep),
        watch,
        ..Default::default()
    })
}

fn list(c: &Client, env: &Env) -> Vec<SessionSummary> {
    let opts = ListOptions {
        limit: 1000,
        ..Default::default()
    };
    c.list(env.clone(), "claude", &opts).unwrap()
}

fn search(c: &Client, env: &Env) -> Vec<SessionSummary> {
    let q = search_query(&json!({"text": "kubernetes", "agent": "claude", "limit": 1000}));
    c.search(env.clone(), &q.unwrap()).unwrap()
}

/// Files stat'ed by listings of whole stores while `f` runs, and what it returned.
fn listed_by<T>(f: impl FnOnce() -> T) -> (u64, T) {
    let before = listed_files();
    let out = f();
    (listed_files() - before, out)
}

/// The size the kept store last kept `path` at, from its catalog.
fn kept_size(data: &Path, path: &Path) -> Option<u64> {
    let kept = Kept {
        dir: data.join("kept"),
    };
    let (cat, faults) = kept.catalog();
    assert!(faults.is_empty(), "{faults:?}");
    let e = cat.sources.values().find(|e| e.path == path)?;
    e.stamps.first().map(|s| s.0)
}

#[test]
fn keep_adds_no_listing_to_a_call_and_a_watching_client_keeps_from_the_events() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let files = home(root, 8);
    let env = env(root);

    // A new process (no watcher), keeping off then on: each call lists the store once.
    let off_cache = root.join("cache-off");
    let (one_pass, off) = listed_by(|| list(&client(&off_cache, false, false), &env));
    assert_eq!(
        one_pass,
        files.len() as u64,
        "a listing stats each file once"
    );
    assert_eq!(off.len(), files.len());
    let cache = root.join("cache");
    let (n, on) = listed_by(|| list(&client(&cache, true, false), &env));
    assert_eq!(n, one_pass, "list with keeping on lists the store once");
    assert_eq!(on.len(), files.len());
    for f in &files {
        let size = std::fs::metadata(f).unwrap().len();
        assert_eq!(kept_size(root.join("data").as_path(), f), Some(size));
    }
    let (n, hits) = listed_by(|| search(&client(&cache, true, false), &env));
    assert_eq!(n, one_pass, "search with keeping on lists the store once");
    assert_eq!(hits.len(), files.len());
    // The update lists every store, then its status counts what is stale (a listing of its own,
    // keeping or not): keeping adds none.
    let (update_off, _) =
        listed_by(|| client(&off_cache, false, false).index_update(env.clone(), false));
    let (n, _) = listed_by(|| client(&cache, true, false).index_update(env.clone(), false));
    assert_eq!(
        n, update_off,
        "index update with keeping on lists the store once more"
    );

    // A client that lives and watches: after its first call, none lists the store.
    let watching = client(&cache, true, true);
    let (n, first) = listed_by(|| list(&watching, &env));
    assert_eq!(n, one_pass, "the watcher's first call lists the store");
    assert_eq!(first.len(), files.len());

    // An appended exchange: kept at its new size, from the events alone.
    let grown = &files[4];
    let mut text = std::fs::read_to_string(grown).unwrap();
    text.push_str(&exchange(&id_of(1, 1), "helmchart", 9));
    std::fs::write(grown, text).unwrap();
    let size = std::fs::metadata(grown).unwrap().len();
    assert_ne!(kept_size(&root.join("data"), grown), Some(size));
    let (n, after) = listed_by(|| list(&watching, &env));
    assert_eq!(n, 0, "the call after an append listed the store");
    assert_eq!(after.len(), files.len());
    // Kept after the answer, by a thread of the client (waited for here).
    watching.index_idle(env.clone(), false);
    assert_eq!(kept_size(&root.join("data"), grown), Some(size));

    // A deleted session: archived, still listed and found.
    let deleted = &files[6];
    std::fs::remove_file(deleted).unwrap();
    let gone_id = id_of(2, 0);
    let (n, after) = listed_by(|| list(&watching, &env));
    // The watcher lists a store again when one of its files is gone; keeping adds no listing.
    assert!(
        n <= one_pass,
        "the call after a delete listed the store {n} files"
    );
    assert_eq!(after.len(), files.len());
    let archived: Vec<&str> = (after.iter())
        .filter(|s| s.archived)
        .map(|s| s.session_id.as_str())
        .collect();
    assert_eq!(archived, [gone_id.as_str()]);
    let (n, hits) = listed_by(|| search(&watching, &env));
    assert_eq!(n, 0, "the search after a delete listed the store");
    assert_eq!(hits.len(), files.len());
    assert!(hits.iter().any(|s| s.session_id == gone_id && s.archived));

    // And a new process agrees.
    let fresh = list(&client(&root.join("cache-fresh"), true, false), &env);
    assert_eq!(
        (fresh.iter())
            .filter(|s| s.archived)
            .map(|s| s.session_id.as_str())
            .collect::<Vec<_>>(),
        [gone_id.as_str()]
    );
}
