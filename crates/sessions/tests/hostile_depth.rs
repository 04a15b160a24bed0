//! Two inputs that break naive JSON readers: 100,000 nested `[` (a recursive parser without a
//! depth limit overflows the stack) and a 60 MB single line, just under the 64 MiB line ceiling so
//! it is parsed (a reader that rescans or copies per byte takes unbounded time; longer lines are
//! tested in `memory.rs`). serde_json's recursion limit (128) must stay on (nothing in the
//! workspace enables `unbounded_depth` or calls `disable_recursion_limit`), and every reader must
//! skip such a line like any other garbage line, in bounded time.
use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agent_mux_sessions::options::{ListOptions, SearchQuery};
use agent_mux_sessions::read::{head, jsonl, tree};
use agent_mux_sessions::ErrorCode;
use common::{client, env, write};
use serde_json::Value;

const DEPTH: usize = 100_000;

fn deep() -> Vec<u8> {
    vec![b'['; DEPTH]
}

/// A valid JSON object whose one string is `mb` MB: the parser must walk all of it.
fn huge(mb: usize) -> Vec<u8> {
    let mut v = b"{\"type\":\"padding\",\"pad\":\"".to_vec();
    v.resize(v.len() + mb * 1024 * 1024, b'a');
    v.extend_from_slice(b"\"}");
    v
}

/// Session files of the JSONL agents in the demo home, by agent.
fn jsonl_files(home: &Path, agent: &str) -> Vec<PathBuf> {
    let root = home.join(match agent {
        "claude" => ".claude/projects",
        "codex" => ".codex/sessions",
        "gemini" => ".gemini/tmp",
        "copilot" => ".copilot/session-state",
        "pi" => ".pi/agent/sessions",
        "omp" => ".omp/agent/sessions",
        _ => unreachable!(),
    });
    let mut out = Vec::new();
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    walk(&root, &mut out);
    out.sort();
    out
}

const JSONL_AGENTS: [&str; 6] = ["claude", "codex", "gemini", "copilot", "pi", "omp"];

/// What an agent shows for a home: (id, message count, title) of every session, and the number
/// of sessions a search for a word of the demo texts finds.
fn view(home: &Path, agent: &str) -> (Vec<(String, u64, String)>, usize) {
    let c = client();
    let mut out: Vec<(String, u64, String)> = c
        .list(env(home), agent, &ListOptions::default())
        .unwrap()
        .into_iter()
        .map(|s| {
            let full = c.get(env(home), agent, &s.session_id).unwrap();
            assert_eq!(
                full.messages.len() as u64,
                s.message_count,
                "{agent} {}",
                s.session_id
            );
            (s.session_id, s.message_count, s.title)
        })
        .collect();
    out.sort();
    let mut q = SearchQuery::new("the");
    q.agent = Some(agent.to_string());
    let found = c.search(env(home), &q).unwrap().len();
    (out, found)
}

/// Insert `line` as the first line and again as the last-but-one line of `path`.
fn inject(path: &Path, line: &[u8]) {
    let old = std::fs::read(path).unwrap();
    let mut new = line.to_vec();
    new.push(b'\n');
    let body = old.strip_suffix(b"\n").unwrap_or(&old);
    let cut = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    new.extend_from_slice(&body[..cut]);
    new.extend_from_slice(line);
    new.push(b'\n');
    new.extend_from_slice(&body[cut..]);
    new.push(b'\n');
    std::fs::write(path, new).unwrap();
}

#[test]
fn shared_readers_skip_deep_and_huge_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = deep();
    bytes.extend_from_slice(b"\n{\"type\":\"session\",\"id\":\"h\",\"version\":3}\n");
    bytes.extend_from_slice(&huge(60));
    bytes.extend_from_slice(b"\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}\n");
    bytes.extend_from_slice(&deep());
    let p = write(dir.path(), "t.jsonl", &bytes);

    let t = Instant::now();
    let mut kinds = Vec::new();
    let stats = jsonl::read_lines::<Value>(&p, |v| {
        kinds.push(v["type"].as_str().unwrap_or("").to_string());
        true
    })
    .unwrap();
    assert_eq!(stats, jsonl::LineStats { parsed: 3, bad: 2 });
    assert_eq!(kinds, ["session", "padding", "message"]);
    assert_eq!(jsonl::parse_line::<Value>(&deep()), None);

    let doc = tree::TreeDoc::read(&p).unwrap();
    assert_eq!(doc.bad_lines, 2);
    assert_eq!(doc.header_str("id"), Some("h"));
    assert_eq!(doc.entries.len(), 2, "the padding record and the message");
    let path = tree::active_path(&doc);
    assert_eq!(
        doc.entries[*path.last().unwrap()]["id"],
        "a",
        "the branch ends at the message"
    );
    assert_eq!(tree::read_header(&p).unwrap()["id"], "h");
    assert_eq!(head::first_record(&p).unwrap()["type"], "session");
    assert_eq!(
        head::first_string_field(&p, "id", 64 * 1024),
        None,
        "the nesting fills it"
    );
    assert_eq!(
        head::first_string_field(&p, "id", 1 << 20).as_deref(),
        Some("h")
    );
    let took = t.elapsed();
    eprintln!("shared readers over a deep line and a 60 MB line: {took:?}");
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn deep_nesting_is_skipped_by_every_reader() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    common::copy_dir(&common::demo_home(), h);
    let before: Vec<_> = JSONL_AGENTS.iter().map(|a| view(h, a)).collect();
    assert!(
        before.iter().all(|(v, _)| v.len() == 3),
        "3 demo sessions each"
    );
    for a in JSONL_AGENTS {
        for f in jsonl_files(h, a) {
            inject(&f, &deep());
        }
    }
    let t = Instant::now();
    for (a, b) in JSONL_AGENTS.iter().zip(&before) {
        assert_eq!(&view(h, a), b, "{a}: the deep lines change nothing");
    }

    // Whole-document formats: a file that is only nesting is not a session; the others stay.
    let deep_doc = deep();
    write(
        h,
        ".gemini/tmp/shop/chats/session-2025-11-02T08-15-0f1e2d3c.json",
        &deep_doc,
    );
    let oc = ".local/share/opencode/storage";
    write(h, &format!("{oc}/session/global/ses_deep.json"), &deep_doc);
    write(h, &format!("{oc}/message/ses_deep/msg_a.json"), &deep_doc);
    write(h, &format!("{oc}/part/msg_a/prt_a.json"), &deep_doc);
    write(
        h,
        ".openclaw/agents/main/sessions/9d3c6a52-2f1e-4c5e-9a57-0e4f3b2a1c10.jsonl",
        &deep_doc,
    );
    write(h, ".openclaw/agents/main/sessions/sessions.json", &deep_doc);
    write(
        h,
        ".cursor/projects/home-u-app/agent-transcripts/0b7e4c1a-0000-4000-8000-00000000dee9.jsonl",
        &deep_doc,
    );
    let c = client();
    let ids = |agent: &str| -> Vec<String> {
        let mut v: Vec<String> = c
            .list(env(h), agent, &ListOptions::default())
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect();
        v.sort();
        v
    };
    let gemini_before: Vec<String> = before[2].0.iter().map(|s| s.0.clone()).collect();
    assert_eq!(ids("gemini"), gemini_before);
    assert_eq!(
        ids("opencode").len(),
        3,
        "the demo database's 3, not ses_deep"
    );
    assert!(!ids("opencode").contains(&"ses_deep".to_string()));
    assert_eq!(ids("openclaw").len(), 3, "the demo database's 3");
    assert_eq!(ids("cursor").len(), 3, "the demo stores' 3");
    let e = c.get(env(h), "opencode", "ses_deep").unwrap_err();
    assert!(
        matches!(e.code, ErrorCode::ParseError | ErrorCode::SessionNotFound),
        "{e:?}"
    );
    let took = t.elapsed();
    eprintln!("every reader over 100k-deep nesting: {took:?}");
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn a_60_mb_line_is_skipped_in_bounded_time_by_every_jsonl_agent() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    common::copy_dir(&common::demo_home(), h);
    let line = huge(60);
    for a in JSONL_AGENTS {
        let before = view(h, a);
        let f = &jsonl_files(h, a)[0];
        let original = std::fs::read(f).unwrap();
        inject(f, &line);
        let t = Instant::now();
        assert_eq!(view(h, a), before, "{a}: the 60 MB line changes nothing");
        let took = t.elapsed();
        eprintln!("{a}: list + get + search with two 60 MB lines in one file: {took:?}");
        assert!(took < Duration::from_secs(60), "{a} took {took:?}");
        std::fs::write(f, original).unwrap();
    }
}
