//! A long-lived client that learns what changed from the OS's file events (`watch: true`)
//! answers every call exactly as a client that stats every source does, through each fault the
//! watcher can meet: its limit of directories reached, a directory replaced, the store moved, a
//! file rewritten in place, the kernel's queue of events overflowing. Each case compares the
//! watching client's next call with a fresh client's (a new cache: every source read), and
//! checks what `index status` says of the store.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};

use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::options::ListOptions;
use agent_mux_sessions::storage::WatchStatus;
use agent_mux_sessions::{Client, ClientOptions, Env, SessionSummary};
use agent_mux_wire::search_query;
use serde_json::json;

use crate::common;
use common::claude_session as session;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A home with a Claude store of `projects` projects of three sessions each.
fn home(projects: usize) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    for p in 0..projects {
        for s in 0..3 {
            let id = format!("0000000{p}-0000-4000-8000-00000000000{s}");
            let path = project(&home, p).join(format!("{id}.jsonl"));
            write(&path, &session(&id, "kubernetes", 2 + s));
        }
    }
    (tmp, home)
}

fn project(home: &Path, p: usize) -> PathBuf {
    home.join(format!(".claude/projects/-src-p{p}"))
}

/// Session `id` of project `p` grown by one exchange holding the word "helmchart"; its path.
fn grow(home: &Path, p: usize, id: &str) -> PathBuf {
    let path = project(home, p).join(format!("{id}.jsonl"));
    let mut grown = std::fs::read_to_string(&path).unwrap();
    grown.push_str(&session(id, "helmchart", 1));
    std::fs::write(&path, &grown).unwrap();
    path
}

/// The environment of the calls: the home, and the watcher's knobs (every store watched, however
/// few its sources; a generous wait for the events on a loaded machine).
fn env(home: &Path, knobs: &[(&str, &str)]) -> Env {
    let mut env = Env::with_home(home);
    env.set("AGENT_MUX_WATCH_MIN_SOURCES", "1");
    env.set("AGENT_MUX_WATCH_WAIT_MS", "10000");
    for (k, v) in knobs {
        env.set(k, v);
    }
    env
}

fn client(cache: &Path, watch: bool) -> Client {
    Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.to_path_buf()),
        watch,
        ..Default::default()
    })
}

/// What a call answers: every Claude session listed, and the hits of two searches.
fn answers(
    c: &Client,
    env: &Env,
) -> (
    Vec<SessionSummary>,
    Vec<SessionSummary>,
    Vec<SessionSummary>,
) {
    let opts = ListOptions {
        limit: 1000,
        ..Default::default()
    };
    let list = c.list(env.clone(), "claude", &opts).unwrap();
    let search = |text: &str| {
        let q = search_query(&json!({"text": text, "agent": "claude", "limit": 1000})).unwrap();
        c.search(env.clone(), &q).unwrap()
    };
    (list, search("kubernetes"), search("helmchart"))
}

/// The watching client answers as a fresh client (a new cache: every source read) does.
fn same_as_fresh(watching: &Client, env: &Env) {
    let fresh = tempfile::tempdir().unwrap();
    let want = answers(&client(fresh.path(), false), env);
    let got = answers(watching, env);
    assert_eq!(got.0, want.0, "list differs from a fresh client's");
    assert_eq!(
        got.1, want.1,
        "search 'kubernetes' differs from a fresh client's"
    );
    assert_eq!(
        got.2, want.2,
        "search 'helmchart' differs from a fresh client's"
    );
}

fn status(c: &Client, env: &Env) -> WatchStatus {
    c.index_status(env.clone()).watch
}

fn claude_watched(c: &Client, env: &Env) -> (bool, Option<String>) {
    let st = status(c, env);
    let s = st
        .stores
        .iter()
        .find(|s| s.agent == "claude")
        .expect("claude listed");
    (s.watched, s.reason.clone())
}

/// A session that appears, grows, is rewritten in place (same size, new words) and goes, each
/// seen by the next call, from the events alone while the store stays watched.
#[test]
fn a_watched_store_answers_as_a_fresh_client_after_each_change() {
    let (tmp, home) = home(3);
    let env = env(&home, &[]);
    let cache = tmp.path().join("cache");
    let c = client(&cache, true);
    same_as_fresh(&c, &env);
    assert_eq!(claude_watched(&c, &env), (true, None));
    assert!(status(&c, &env).directories >= 4, "{:?}", status(&c, &env));

    // Appended to.
    let id = "00000000-0000-4000-8000-000000000001";
    let path = grow(&home, 0, id);
    same_as_fresh(&c, &env);

    // Rewritten in place: the same size, other words, one write into the same file (inode).
    let grown = std::fs::read_to_string(&path).unwrap();
    let same_size = grown.replace("helmchart", "kubeadmin");
    assert_eq!(same_size.len(), grown.len());
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::io::Write::write_all(&mut f, same_size.as_bytes()).unwrap();
    drop(f);
    same_as_fresh(&c, &env);
    assert!(
        answers(&c, &env).2.is_empty(),
        "the word rewritten away is still found"
    );

    // A new session, and one removed.
    let new = "00000009-0000-4000-8000-000000000009";
    write(
        &project(&home, 1).join(format!("{new}.jsonl")),
        &session(new, "helmchart", 3),
    );
    std::fs::remove_file(project(&home, 2).join("00000002-0000-4000-8000-000000000000.jsonl"))
        .unwrap();
    same_as_fresh(&c, &env);
    assert_eq!(answers(&c, &env).2.len(), 1);
    assert_eq!(claude_watched(&c, &env), (true, None));
}

fn claude_listings(c: &Client, env: &Env) -> u64 {
    let st = status(c, env);
    (st.stores.iter())
        .find(|s| s.agent == "claude")
        .expect("claude listed")
        .listings
}

/// Claude Code writes its to-do lists and snapshots beside its projects as it works: only
/// `projects/` is watched, so they neither make the store be listed again nor cost a watch,
/// while a session appended to is re-stamped alone and found.
#[test]
fn claude_files_beside_the_projects_list_nothing_again() {
    let (tmp, home) = home(2);
    let todos = home.join(".claude/todos");
    write(&todos.join("a.json"), "[]");
    let env = env(&home, &[]);
    let c = client(&tmp.path().join("cache"), true);
    same_as_fresh(&c, &env);
    // The projects' directory and one per project.
    assert_eq!(status(&c, &env).directories, 3, "{:?}", status(&c, &env));
    let listed = claude_listings(&c, &env);
    for i in 0..5 {
        write(&todos.join(format!("t{i}.json")), "[]");
        std::fs::remove_file(todos.join("a.json")).ok();
        write(&home.join(".claude/shell-snapshots/s.sh"), &format!("{i}"));
        answers(&c, &env);
    }
    assert_eq!(
        claude_listings(&c, &env),
        listed,
        "listed again for files beside the projects"
    );

    let id = "00000001-0000-4000-8000-000000000002";
    grow(&home, 1, id);
    same_as_fresh(&c, &env);
    assert_eq!(answers(&c, &env).2.len(), 1);
    assert_eq!(
        claude_listings(&c, &env),
        listed,
        "listed again for a write"
    );
}

/// A watching client searches again what its last search made of the index while nothing
/// changed; another client that rebuilds, clears or writes the index in between is seen (the
/// file's commits and inode), and every answer stays a fresh client's.
#[test]
fn another_client_rewriting_the_index_is_seen() {
    let (tmp, home) = home(3);
    let env = env(&home, &[]);
    let cache = tmp.path().join("cache");
    let c = client(&cache, true);
    same_as_fresh(&c, &env);
    same_as_fresh(&c, &env);
    let other = client(&cache, false);
    other.index_rebuild(env.clone()).unwrap();
    same_as_fresh(&c, &env);
    assert!(other.index_clear(env.clone()).unwrap());
    same_as_fresh(&c, &env);
    same_as_fresh(&c, &env);

    // A session grown and indexed by the other client before this one searches.
    let id = "00000002-0000-4000-8000-000000000001";
    grow(&home, 2, id);
    other.index_update(env.clone(), false).unwrap();
    same_as_fresh(&c, &env);
    assert_eq!(answers(&c, &env).2.len(), 1);
}

/// The search after one appended message writes it into the index and is kept for the next:
/// that one searches again what it made (counted by `reused`), and finds the message.
#[test]
fn the_search_after_an_append_is_kept_for_the_next() {
    let (tmp, home) = home(2);
    let env = env(&home, &[]);
    let c = client(&tmp.path().join("cache"), true);
    same_as_fresh(&c, &env);
    let search = |text: &str| {
        let q = search_query(&json!({"text": text, "agent": "claude", "limit": 1000})).unwrap();
        c.search(env.clone(), &q).unwrap().len()
    };
    search("kubernetes");
    let reused = status(&c, &env).reused;
    assert_eq!(search("kubernetes"), 6);
    assert_eq!(status(&c, &env).reused, reused + 1, "nothing changed");

    let id = "00000001-0000-4000-8000-000000000002";
    grow(&home, 1, id);
    assert_eq!(search("helmchart"), 1, "the appended message");
    assert_eq!(status(&c, &env).reused, reused + 1, "a store changed");
    assert_eq!(search("helmchart"), 1);
    assert_eq!(
        status(&c, &env).reused,
        reused + 2,
        "the call after the append was not kept for the next"
    );
    same_as_fresh(&c, &env);
}

/// Searches one after another, each after a message appended to one session, take in that
/// session alone (`restamped`: no store listed, compared or searched anew) and answer as a fresh
/// client does: the grown session moves up the scan's order, a word in every session is ranked
/// from heads brought up to date, and a session appended to twice in a row is found by each
/// word. A session added in between sends the search back to listing the store.
#[test]
fn searches_after_appends_take_in_the_grown_sessions_alone() {
    let (tmp, home) = home(3);
    let env = env(&home, &[]);
    let c = client(&tmp.path().join("cache"), true);
    let searches = |c: &Client| {
        ["kubernetes", "helmchart", "kubeadmin", "question"].map(|text| {
            let q = search_query(&json!({"text": text, "agent": "claude", "limit": 1000})).unwrap();
            c.search(env.clone(), &q).unwrap()
        })
    };
    let fresh = || {
        let dir = tempfile::tempdir().unwrap();
        searches(&client(dir.path(), false))
    };
    searches(&c);
    let restamped = status(&c, &env).restamped;
    let listed = claude_listings(&c, &env);

    // The smallest session grown past every other, twice; then another and it in one go.
    let small = "00000002-0000-4000-8000-000000000000";
    for round in 0..3 {
        let path = grow(&home, 2, small);
        if round == 2 {
            grow(&home, 0, "00000000-0000-4000-8000-000000000001");
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, text + &session(small, "kubeadmin", 1)).unwrap();
        }
        let got = searches(&c);
        assert_eq!(got, fresh(), "round {round}: differs from a fresh client's");
        assert_eq!(
            status(&c, &env).restamped,
            restamped + round + 1,
            "round {round}: not taken in alone"
        );
    }
    let got = searches(&c);
    assert_eq!(got[1].len(), 2, "helmchart: both grown sessions");
    assert_eq!(got[2].len(), 1, "kubeadmin: the second append of one round");
    assert_eq!(got[0].len(), 9, "kubernetes: every session");
    assert_eq!(claude_listings(&c, &env), listed, "the store listed again");

    // A new session: the store is listed again, and nothing is made from the last scope.
    let new = "00000009-0000-4000-8000-000000000009";
    write(
        &project(&home, 1).join(format!("{new}.jsonl")),
        &session(new, "helmchart", 3),
    );
    let before = status(&c, &env).restamped;
    assert_eq!(searches(&c), fresh());
    assert_eq!(
        status(&c, &env).restamped,
        before,
        "a new session restamped"
    );
    assert_eq!(searches(&c)[1].len(), 3);
}

/// Calls in flight at once on one watching client each list a store that is stat'ed at every
/// call (too few sources to watch), in parallel, under that store's lock: none waits on another
/// for ever.
#[test]
fn calls_in_flight_at_once_listing_the_same_store_all_answer() {
    let (tmp, home) = home(9);
    let env = env(&home, &[("AGENT_MUX_WATCH_MIN_SOURCES", "1000")]);
    let c = std::sync::Arc::new(client(&tmp.path().join("cache"), true));
    let want = std::sync::Arc::new(answers(&c, &env));
    let (done, answered) = std::sync::mpsc::channel();
    // Threads of their own, not scoped: a call that never answers fails the test, not hangs it.
    for _ in 0..8 {
        let (c, env, want, done) = (c.clone(), env.clone(), want.clone(), done.clone());
        std::thread::spawn(move || {
            for _ in 0..40 {
                assert_eq!(answers(&c, &env), *want);
            }
            done.send(()).unwrap();
        });
    }
    for _ in 0..8 {
        answered
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("calls in flight at once never answered");
    }
}

/// The watcher's own limit of directories reached: the store is stat'ed at every call, and
/// says why.
#[test]
fn the_watch_limit_reached_falls_back_to_stat() {
    let (tmp, home) = home(4);
    let env = env(&home, &[("AGENT_MUX_WATCH_DIRS", "3")]);
    let c = client(&tmp.path().join("cache"), true);
    same_as_fresh(&c, &env);
    let (watched, reason) = claude_watched(&c, &env);
    assert!(!watched);
    assert!(reason.unwrap().contains("watch limit reached"));
    let id = "00000003-0000-4000-8000-000000000002";
    let path = project(&home, 3).join(format!("{id}.jsonl"));
    write(&path, &session(id, "helmchart", 5));
    same_as_fresh(&c, &env);
    assert_eq!(answers(&c, &env).2.len(), 1);
}

/// A project's directory replaced by another (moved away, a new one made at its path): the new
/// directory is watched, and what is written in it later is seen.
#[test]
fn a_directory_replaced_is_watched_anew() {
    let (tmp, home) = home(2);
    let env = env(&home, &[]);
    let c = client(&tmp.path().join("cache"), true);
    same_as_fresh(&c, &env);
    let dir = project(&home, 1);
    std::fs::rename(&dir, tmp.path().join("away")).unwrap();
    let id = "00000001-0000-4000-8000-000000000007";
    write(
        &dir.join(format!("{id}.jsonl")),
        &session(id, "kubernetes", 1),
    );
    same_as_fresh(&c, &env);
    // Written after the call that found it: only the new directory's watch tells.
    write(
        &dir.join(format!("{id}.jsonl")),
        &session(id, "helmchart", 2),
    );
    same_as_fresh(&c, &env);
    assert_eq!(answers(&c, &env).2.len(), 1);
    // The old directory, elsewhere now, changes nothing here.
    write(
        &tmp.path().join("away/x.jsonl"),
        &session("x", "helmchart", 1),
    );
    same_as_fresh(&c, &env);
    assert_eq!(claude_watched(&c, &env), (true, None));
}

/// The store moved away (its parent renamed) and another put at its place: the place is
/// another directory, watched again; the first moved back later is seen too.
#[test]
fn a_store_moved_is_watched_again_at_its_place() {
    let (tmp, home) = home(2);
    let env = env(&home, &[]);
    let c = client(&tmp.path().join("cache"), true);
    same_as_fresh(&c, &env);
    let claude = home.join(".claude");
    std::fs::rename(&claude, tmp.path().join("claude-old")).unwrap();
    same_as_fresh(&c, &env);
    assert_eq!(answers(&c, &env).0.len(), 0);
    let (watched, reason) = claude_watched(&c, &env);
    assert!(!watched && reason.unwrap().contains("does not exist"));
    // Another store at the place.
    let id = "00000005-0000-4000-8000-000000000005";
    write(
        &project(&home, 5).join(format!("{id}.jsonl")),
        &session(id, "helmchart", 2),
    );
    same_as_fresh(&c, &env);
    assert_eq!(claude_watched(&c, &env), (true, None));
    // Written to after it was watched, then the first moved back over it.
    write(
        &project(&home, 5).join(format!("{id}.jsonl")),
        &session(id, "kubernetes", 3),
    );
    same_as_fresh(&c, &env);
    std::fs::rename(&claude, tmp.path().join("claude-new")).unwrap();
    std::fs::rename(tmp.path().join("claude-old"), &claude).unwrap();
    same_as_fresh(&c, &env);
    assert_eq!(answers(&c, &env).0.len(), 6);
}

/// The kernel's queue of events overflows (the handler stalled while thousands of changes are
/// made): the events lost, the store is listed again in full, and the overflow is reported.
#[test]
fn events_overflowing_list_the_store_again() {
    let (tmp, home) = home(2);
    let env = env(&home, &[]);
    let c = client(&tmp.path().join("cache"), true);
    same_as_fresh(&c, &env);
    let queued: usize = std::fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .map_or(16384, |v| v.trim().parse().unwrap());
    // One call asks the handler to stall after its marker; what follows is made while it
    // does: files that come and go (events unlike each other, which the kernel does not
    // merge), then the change that matters.
    let mut stalling = env.clone();
    stalling.set("AGENT_MUX_WATCH_STALL_MS", "4000");
    let listed = answers(&c, &env).0;
    let opts = ListOptions {
        limit: 1000,
        ..Default::default()
    };
    assert_eq!(c.list(stalling, "claude", &opts).unwrap(), listed);
    let scratch = project(&home, 0);
    for i in 0..queued / 2 + 100 {
        let p = scratch.join(format!("scratch-{i}.tmp"));
        std::fs::write(&p, b"").unwrap();
        std::fs::remove_file(&p).unwrap();
    }
    let id = "00000001-0000-4000-8000-000000000000";
    write(
        &project(&home, 1).join(format!("{id}.jsonl")),
        &session(id, "helmchart", 4),
    );
    same_as_fresh(&c, &env);
    assert_eq!(answers(&c, &env).2.len(), 1);
    assert!(status(&c, &env).overflows >= 1, "{:?}", status(&c, &env));
    assert_eq!(claude_watched(&c, &env), (true, None));
}

/// A client without `watch` watches nothing and says so.
#[test]
fn a_client_without_watch_watches_nothing() {
    let (tmp, home) = home(1);
    let env = env(&home, &[]);
    let c = client(&tmp.path().join("cache"), false);
    same_as_fresh(&c, &env);
    assert_eq!(status(&c, &env), WatchStatus::default());
}
