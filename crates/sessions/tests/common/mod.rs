//! Helpers shared by the integration tests: where the real captures are, building fixture homes,
//! and proving a directory was not changed.
#![allow(dead_code)]
use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use agent_mux_sessions::{Client, ClientOptions, Context, Env};

/// `../shared/<rel>` beside the checkout (the real captures, the agents' DDL, the spec). Tests
/// that call this carry `#[cfg_attr(no_shared, ignore = "needs ../shared/...")]`: crates/sessions/
/// build.rs sets `no_shared` where it is absent, so they never run (and pass) without it.
pub fn shared(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared")
        .join(rel);
    match p.canonicalize() {
        Ok(p) => p,
        Err(e) => panic!(
            "{}: {e} (tests that need ../shared are ignored without it unless \
             AGENT_MUX_REQUIRE_FIXTURES=1; after adding it, touch crates/sessions/build.rs)",
            p.display()
        ),
    }
}

/// The demo home bundled in the repo (`examples/demo-home`), generated in the agents' real
/// formats: there in every checkout, unlike `../shared`. Tests that change it work on a copy.
pub fn demo_home() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo-home")
}

/// The real captures, `../shared/fixtures/real`.
pub fn real_fixtures() -> PathBuf {
    shared("fixtures/real")
}

/// The top-level `.jsonl`/`.json` captures of one agent in `real_fixtures()`, sorted.
pub fn real_session_files(agent: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(real_fixtures().join(agent))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "jsonl" || e == "json"))
        .collect();
    files.sort();
    files
}

/// Write `content` at `root/rel`, creating directories.
pub fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    p
}

/// Copy a directory tree (a fixture home a test may change or evict from the page cache).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Copy a real capture into a fixture home at `rel` (tests read it in place where they can; this
/// is for layouts that need the file at a particular path).
pub fn place(root: &Path, rel: &str, from: &Path) -> PathBuf {
    write(root, rel, std::fs::read(from).unwrap())
}

/// A context whose HOME is `home`, with no overrides.
pub fn ctx(home: &Path) -> Context {
    Context::with_env(Env::with_home(home))
}

pub fn env(home: &Path) -> Env {
    Env::with_home(home)
}

pub fn client() -> Client {
    Client::new(ClientOptions::default())
}

/// Every file and directory under `root` with a hash of its bytes: compare before and after a
/// read to prove nothing was written, created or removed.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, u64> {
    let mut out = BTreeMap::new();
    fn walk(dir: &Path, out: &mut BTreeMap<PathBuf, u64>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                out.insert(p.clone(), 0);
                walk(&p, out);
            } else if ft.is_file() {
                let mut h = DefaultHasher::new();
                std::fs::read(&p).unwrap_or_default().hash(&mut h);
                out.insert(p, h.finish());
            } else {
                out.insert(p, 1);
            }
        }
    }
    walk(root, &mut out);
    out
}

/// A client reading `agent`'s sessions from `dir` only (`ClientOptions.sessionDirs`).
pub fn client_over(agent: &str, dir: &Path) -> Client {
    let mut dirs = std::collections::BTreeMap::new();
    dirs.insert(agent.to_string(), dir.to_path_buf());
    Client::new(ClientOptions {
        session_dirs: dirs,
        ..Default::default()
    })
}

/// Every session `agent` lists (up to 1,000).
pub fn list_all(client: &Client, agent: &str, env: Env) -> Vec<agent_mux_sessions::SessionSummary> {
    let opts = agent_mux_sessions::options::ListOptions {
        limit: 1000,
        ..Default::default()
    };
    client.list(env, agent, &opts).unwrap()
}

/// A session's tokens over all its models.
pub fn total_tokens(s: &agent_mux_sessions::SessionSummary) -> agent_mux_sessions::model::Tokens {
    let mut t = agent_mux_sessions::model::Tokens::default();
    for u in &s.usage {
        t.add(&u.tokens);
    }
    t
}

/// Roles as letters (U, A, S, T), for compact assertions on message order.
pub fn role_letters(s: &agent_mux_sessions::Session) -> String {
    use agent_mux_sessions::Role;
    s.messages
        .iter()
        .map(|m| match m.role {
            Role::User => 'U',
            Role::Assistant => 'A',
            Role::System => 'S',
            Role::Tool => 'T',
        })
        .collect()
}

/// For every source of `agent` that it reads session by session: the fingerprints name each
/// session once, in the order its summaries and full reads give them (these may leave out a
/// session that cannot be built, nothing else). Returns how many sessions were named.
pub fn assert_fingerprints_follow_reads(home: &Path, agent: &str) -> usize {
    let a = agent_mux_sessions::agents::find(agent).unwrap();
    let m = a.many_sessions().expect("reads session by session");
    let ctx = ctx(home);
    let mut named = 0;
    for src in a.sources(&ctx) {
        let Some(prints) = m.fingerprints(&ctx, &src) else {
            continue;
        };
        let ids: Vec<String> = prints.unwrap().into_iter().map(|(id, _)| id).collect();
        let mut unique = ids.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "{}", src.path.display());
        let in_order = |read: Vec<String>| {
            let mut rest = ids.iter();
            for id in &read {
                assert!(
                    rest.any(|i| i == id),
                    "{id} out of order in {read:?} ({ids:?})"
                );
            }
        };
        let summaries = a.summaries(&ctx, &src).unwrap();
        in_order(summaries.into_iter().map(|s| s.session_id).collect());
        let sessions = a.load_source(&ctx, &src).unwrap();
        in_order(sessions.into_iter().map(|s| s.summary.session_id).collect());
        named += ids.len();
    }
    named
}

/// A Claude session of `turns` exchanges holding `word`, as JSONL.
pub fn claude_session(id: &str, word: &str, turns: usize) -> String {
    (0..turns).map(|t| claude_exchange(id, word, t)).collect()
}

/// Exchange `t` of `claude_session`: a question and its answer, both holding `word`.
pub fn claude_exchange(id: &str, word: &str, t: usize) -> String {
    let ts = format!("2026-10-07T10:{:02}:{:02}.000Z", t / 60, t % 60);
    let user = serde_json::json!({"type": "user", "sessionId": id, "uuid": format!("{id}-u{t}"),
        "timestamp": ts, "cwd": "/src/p",
        "message": {"role": "user", "content": format!("question {t} about {word}")}});
    let reply = serde_json::json!({"type": "assistant", "sessionId": id, "uuid": format!("{id}-a{t}"),
        "timestamp": ts, "cwd": "/src/p",
        "message": {"role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": format!("answer {t} on {word}")}]}});
    format!("{user}\n{reply}\n")
}
