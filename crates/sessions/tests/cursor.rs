//! Cursor: every real capture placed in the cursor-agent layout, a store.db built from the real
//! capture's own schema (JSON and protobuf blobs, plain-JSON meta, meta.json), a store plus
//! transcript of the same session, a live writer, a corrupt store and a read-only directory.
use crate::common;
use crate::sqlite_fixtures;

use std::path::{Path, PathBuf};

use agent_mux_sessions::model::{to_iso, Role, Timestamp};
use agent_mux_sessions::options::ListOptions;
use agent_mux_sessions::read::sqlite::open_read_only;
use agent_mux_sessions::{Env, ErrorCode, SessionSummary};
use rusqlite::Connection;
use serde_json::json;
use sqlite_fixtures::*;

const STORE_ID: &str = "a1b2c3d4-e5f6-7890-abcd-ef1234567890";
const MAIN: &str = "0f1e2d3c-0000-4000-8000-000000000001";
const SUB: &str = "0f1e2d3c-0000-4000-8000-000000000002";
const FLAT: &str = "0f1e2d3c-0000-4000-8000-000000000003";
const BUCKET: &str = "9e107d9d372bb6826bd81d3542a419d6";

fn real(name: &str) -> PathBuf {
    common::real_fixtures().join("cursor").join(name)
}

fn list(home: &Path) -> Vec<SessionSummary> {
    let mut v = common::client()
        .list(common::env(home), "cursor", &ListOptions::default())
        .unwrap();
    v.sort_by(|a, b| a.session_id.cmp(&b.session_id));
    v
}

fn by_id<'a>(v: &'a [SessionSummary], id: &str) -> &'a SessionSummary {
    v.iter().find(|s| s.session_id == id).unwrap()
}

fn mtime(p: &Path) -> Timestamp {
    std::fs::metadata(p).unwrap().modified().unwrap().into()
}

fn transcripts_dir() -> &'static str {
    ".cursor/projects/home-u-app/agent-transcripts"
}

/// Every real capture at the place cursor-agent writes it.
fn place_real(home: &Path) {
    common::place(
        home,
        &format!(".cursor/chats/{BUCKET}/{STORE_ID}/store.db"),
        &real("agent-sessions-chats-store.db"),
    );
    let t = transcripts_dir();
    common::place(
        home,
        &format!("{t}/{MAIN}/{MAIN}.jsonl"),
        &real("agent-sessions-agent-transcript-test-session.jsonl"),
    );
    common::place(
        home,
        &format!("{t}/{MAIN}/subagents/{SUB}.jsonl"),
        &real("agent-sessions-agent-transcript-subagent-session.jsonl"),
    );
    common::place(
        home,
        &format!("{t}/{FLAT}.jsonl"),
        &real("agent-sessions-stage0-small-with-turn_ended.jsonl"),
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_captures_in_the_cursor_agent_layout() {
    let home = tempfile::tempdir().unwrap();
    place_real(home.path());
    let real_dir = real("");
    let real_before = common::snapshot(&real_dir);
    let before = common::snapshot(home.path());
    let v = list(home.path());
    assert_eq!(v.len(), 4);

    // store.db: hex meta, no blobs.
    let st = by_id(&v, STORE_ID);
    assert_eq!(st.title, "Test Session");
    assert_eq!(to_iso(&st.created_at), "2026-04-07T00:43:10.321Z");
    let db = home
        .path()
        .join(format!(".cursor/chats/{BUCKET}/{STORE_ID}/store.db"));
    let expected_updated = mtime(&db).max(st.created_at);
    assert_eq!(
        st.updated_at.timestamp_millis(),
        expected_updated.timestamp_millis()
    );
    assert_eq!(st.model.as_deref(), Some("claude-4-sonnet"));
    assert_eq!((st.message_count, st.turn_count), (0, 0));
    assert_eq!(
        st.cost, None,
        "cursor records no usage: cost unknown, not zero"
    );

    let main = by_id(&v, MAIN);
    assert_eq!(main.title, "run ls command");
    assert_eq!((main.message_count, main.turn_count), (6, 2));
    assert_eq!(main.cost, None);
    assert_eq!(main.model, None);
    assert_eq!(main.forked_from, None);
    let tfile = home
        .path()
        .join(format!("{}/{MAIN}/{MAIN}.jsonl", transcripts_dir()));
    assert_eq!(
        main.created_at.timestamp_millis(),
        mtime(&tfile).timestamp_millis()
    );

    let sub = by_id(&v, SUB);
    assert_eq!(sub.forked_from.as_deref(), Some(MAIN));
    assert_eq!(
        sub.title,
        "Run ls -la in the workspace directory and return the output."
    );
    assert_eq!((sub.message_count, sub.turn_count), (3, 1));

    let flat = by_id(&v, FLAT);
    assert_eq!(flat.title, "List the files.");
    assert_eq!(
        (flat.message_count, flat.turn_count),
        (4, 2),
        "turn_ended is not a message"
    );

    let c = common::client();
    let s = c.get(common::env(home.path()), "cursor", MAIN).unwrap();
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(
        roles,
        [User, Assistant, Assistant, User, Assistant, Assistant]
    );
    assert_eq!(s.messages[3].content, "now show me the git status");
    assert_eq!(s.messages[1].content, "Running the ls command for you.");
    let call = &s.messages[1].tool_calls[0];
    assert_eq!(call.tool_name, "Shell");
    assert_eq!(
        call.input,
        json!({"command": "ls -la /tmp", "description": "List directory contents"})
    );
    assert_eq!(
        s.messages[4].content, "",
        "[REDACTED] is not shown as words"
    );
    assert_eq!(s.messages[4].tool_calls[0].input["command"], "git status");
    assert_eq!(s.summary.cost, None);

    let s = c.get(common::env(home.path()), "cursor", SUB).unwrap();
    assert_eq!(s.messages[2].content, "Done. The directory has 12 entries.");
    let s = c.get(common::env(home.path()), "cursor", FLAT).unwrap();
    assert_eq!(s.messages[3].tool_calls[0].input, json!({"command": "ls"}));
    let s = c.get(common::env(home.path()), "cursor", STORE_ID).unwrap();
    assert_eq!(
        s.raw.as_ref().unwrap().to_value()["meta"]["latestRootBlobId"],
        "deadbeef"
    );
    let e = c
        .get(common::env(home.path()), "cursor", "nope")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionNotFound);

    assert_eq!(common::snapshot(home.path()), before);
    assert_eq!(common::snapshot(&real_dir), real_before);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn store_without_messages_takes_them_from_the_transcript() {
    let home = tempfile::tempdir().unwrap();
    let db = real("agent-sessions-chats-store.db");
    common::place(
        home.path(),
        &format!(".cursor/chats/{BUCKET}/{STORE_ID}/store.db"),
        &db,
    );
    common::place(
        home.path(),
        &format!("{}/{STORE_ID}/{STORE_ID}.jsonl", transcripts_dir()),
        &real("agent-sessions-agent-transcript-test-session.jsonl"),
    );
    let v = list(home.path());
    assert_eq!(v.len(), 1, "one session, from two stores");
    assert_eq!(v[0].title, "Test Session");
    assert_eq!((v[0].message_count, v[0].turn_count), (6, 2));
    assert_eq!(v[0].model.as_deref(), Some("claude-4-sonnet"));
}

/// The real capture's own schema (`sqlite_master.sql`), read through the read-only opener.
fn real_schema() -> String {
    let conn = open_read_only(&real("agent-sessions-chats-store.db")).unwrap();
    let mut st = conn
        .prepare("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        .unwrap();
    let v: Vec<String> = st
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    v.join(";\n") + ";"
}

fn blob(c: &Connection, data: &[u8]) {
    insert(
        c,
        "blobs",
        &[
            (
                "id",
                t(&format!("{:064x}", data.len() * 7919 + data[0] as usize)),
            ),
            ("data", rusqlite::types::Value::Blob(data.to_vec())),
        ],
    );
}

fn json_blob(c: &Connection, v: serde_json::Value) {
    blob(c, v.to_string().as_bytes());
}

/// A store.db as cursor-agent 2026 writes it: plain-JSON meta, JSON and protobuf blobs.
fn build_store(dir: &Path, ddl: &str, wal: bool) -> Connection {
    let c = create_db(&dir.join("store.db"), ddl, wal);
    let meta = json!({"agentId": "s1", "name": "Read main", "mode": "default",
        "createdAt": 1753999999000i64, "lastUsedModel": "composer-2.5", "latestRootBlobId": "x"});
    insert(
        &c,
        "meta",
        &[("key", t("0")), ("value", t(&meta.to_string()))],
    );
    json_blob(
        &c,
        json!({"role": "user", "content": [{"type": "text",
            "text": "<user_info>\nOS: linux\nWorkspace Path: /home/u/proj\n</user_info>"}]}),
    );
    json_blob(
        &c,
        json!({"role": "user", "content": [{"type": "text", "text": "<user_query>\nread main.rs\n</user_query>"}],
               "createdAt": 1754000000000i64}),
    );
    blob(&c, &[0x0a, 0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x12, 0x00]); // protobuf node
    json_blob(
        &c,
        json!({"role": "assistant", "content": [
            {"type": "reasoning", "text": "Need to read"},
            {"type": "text", "text": "I'll read the file first."},
            {"type": "tool-call", "toolCallId": "call_01", "toolName": "Read", "args": {"path": "src/main.rs"}}],
            "createdAt": 1754000001000i64, "providerOptions": {"cursor": {"modelName": "composer-2.5"}}}),
    );
    json_blob(
        &c,
        json!({"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_01",
               "toolName": "Read", "result": "fn main() {}", "isError": false}], "createdAt": 1754000002000i64}),
    );
    json_blob(
        &c,
        json!({"role": "assistant", "content": "It prints nothing.", "createdAt": 1754000003000i64,
               "providerOptions": {"cursor": {"modelName": "composer-2.5"}}}),
    );
    common::write(
        dir,
        "meta.json",
        r#"{"schemaVersion":1,"title":"Reading main.rs","createdAtMs":1753999999000,"updatedAtMs":1754000005000,"hasConversation":true}"#,
    );
    c
}

fn store_dir(home: &Path, id: &str) -> PathBuf {
    home.join(format!(".cursor/chats/{BUCKET}/{id}"))
}

fn check_store(home: &Path, env: Env) {
    let v = list(home);
    let s = by_id(&v, "s1");
    assert_eq!(s.title, "Reading main.rs");
    assert_eq!(to_iso(&s.created_at), "2025-07-31T22:13:19.000Z");
    assert_eq!(to_iso(&s.updated_at), "2025-07-31T22:13:25.000Z");
    assert_eq!((s.message_count, s.turn_count), (5, 1));
    assert_eq!(s.model.as_deref(), Some("composer-2.5"));
    assert_eq!(s.cwd.as_deref(), Some("/home/u/proj"));
    assert_eq!(s.cost, None);

    let full = common::client().get(env, "cursor", "s1").unwrap();
    let roles: Vec<Role> = full.messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(roles, [System, User, Assistant, Tool, Assistant]);
    assert_eq!(full.messages[1].content, "read main.rs");
    let a = &full.messages[2];
    assert_eq!(a.thinking.as_deref(), Some("Need to read"));
    assert_eq!(a.tool_calls[0].output, Some(json!("fn main() {}")));
    assert_eq!(a.model.as_deref(), Some("composer-2.5"));
    let r = full.messages[3].tool_result.as_ref().unwrap();
    assert_eq!(
        (r.tool_call_id.as_str(), r.tool_name.as_str()),
        ("call_01", "Read")
    );
    assert_eq!(
        to_iso(full.messages[4].timestamp.as_ref().unwrap()),
        "2025-07-31T22:13:23.000Z"
    );
    assert_eq!(
        full.raw.as_ref().unwrap().to_value()["blobs"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn store_with_json_and_protobuf_blobs() {
    let ddl = real_schema();
    let home = tempfile::tempdir().unwrap();
    drop(build_store(&store_dir(home.path(), "s1"), &ddl, true));
    let before = common::snapshot(home.path());
    check_store(home.path(), common::env(home.path()));
    assert_eq!(common::snapshot(home.path()), before);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn sees_committed_rows_of_a_live_writer() {
    let ddl = real_schema();
    let home = tempfile::tempdir().unwrap();
    let w = build_store(&store_dir(home.path(), "s1"), &ddl, true);
    w.execute_batch("PRAGMA wal_autocheckpoint=0;").unwrap();
    assert_eq!(sidecars(home.path()).len(), 2);
    let c = common::client();
    let env = common::env(home.path());
    let before = snapshot_without_shm(home.path());
    let v = c
        .list(env.clone(), "cursor", &ListOptions::default())
        .unwrap();
    assert_eq!(v[0].message_count, 5);
    assert_eq!(snapshot_without_shm(home.path()), before);
    json_blob(
        &w,
        json!({"role": "user", "content": "and tests?", "createdAt": 1754000010000i64}),
    );
    let before = snapshot_without_shm(home.path());
    let v = c
        .list(env.clone(), "cursor", &ListOptions::default())
        .unwrap();
    assert_eq!(v[0].message_count, 6);
    assert_eq!(
        c.get(env, "cursor", "s1").unwrap().messages[5].content,
        "and tests?"
    );
    assert_eq!(snapshot_without_shm(home.path()), before);
}

#[cfg(unix)]
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn read_only_directory_gets_no_new_files() {
    use std::os::unix::fs::PermissionsExt;
    let ddl = real_schema();
    let home = tempfile::tempdir().unwrap();
    let dir = store_dir(home.path(), "s1");
    drop(build_store(&dir, &ddl, true));
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = common::snapshot(home.path());
    check_store(home.path(), common::env(home.path()));
    assert_eq!(common::snapshot(home.path()), before);
    assert!(sidecars(home.path()).is_empty());
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn corrupt_store_is_skipped_by_list_and_a_parse_error_for_get() {
    let ddl = real_schema();
    let home = tempfile::tempdir().unwrap();
    drop(build_store(&store_dir(home.path(), "s1"), &ddl, false));
    let bad_dir = store_dir(home.path(), "s2");
    drop(build_store(&bad_dir, &ddl, false));
    corrupt_pages(&bad_dir.join("store.db"));
    let before = common::snapshot(home.path());
    let c = common::client();
    let env = common::env(home.path());
    let v = c
        .list(env.clone(), "cursor", &ListOptions::default())
        .unwrap();
    assert_eq!(v.len(), 1);
    let skipped = c.cache().skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].0, bad_dir.join("store.db"));
    let e = c.get(env, "cursor", "s2").unwrap_err();
    assert_eq!(e.code, ErrorCode::ParseError);
    assert!(
        e.message
            .contains(bad_dir.join("store.db").to_str().unwrap()),
        "{}",
        e.message
    );
    assert_eq!(common::snapshot(home.path()), before);
}
