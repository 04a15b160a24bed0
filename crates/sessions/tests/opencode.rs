//! OpenCode: the real legacy `storage/` captures read in place, and `opencode.db` fixtures built
//! from the 1.18.33 DDL (sub-sessions, message-level usage, a model switch, an empty title), a
//! live writer, a corrupt database, a read-only directory and the path variables.
use crate::common;
use crate::sqlite_fixtures;

use std::path::{Path, PathBuf};

use agent_mux_sessions::model::{to_iso, Role};
use agent_mux_sessions::options::ListOptions;
use agent_mux_sessions::{Client, ClientOptions, Env, ErrorCode, SessionSummary};
use rusqlite::Connection;
use serde_json::{json, Value};
use sqlite_fixtures::opencode::{add_message, add_project, add_session, ddl};
use sqlite_fixtures::*;

fn client_for(dir: &Path) -> Client {
    let mut o = ClientOptions::default();
    o.session_dirs.insert("opencode".into(), dir.to_path_buf());
    Client::new(o)
}

fn nobody() -> Env {
    Env::with_home(Path::new("/nonexistent-home"))
}

fn list(c: &Client, env: Env) -> Vec<SessionSummary> {
    let mut v = c.list(env, "opencode", &ListOptions::default()).unwrap();
    v.sort_by(|a, b| a.session_id.cmp(&b.session_id));
    v
}

fn real(name: &str) -> PathBuf {
    common::real_fixtures().join("opencode").join(name)
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_storage_v2_tree() {
    let dir = real("agent-sessions-storage_v2");
    let before = common::snapshot(&dir);
    let c = client_for(&dir);
    let v = list(&c, nobody());
    assert_eq!(v.len(), 2);

    let large = &v[0];
    assert_eq!(large.session_id, "s_stage0_large");
    assert_eq!(large.title, "OpenCode Large");
    assert_eq!(large.cwd.as_deref(), Some("/tmp/large"));
    assert_eq!(to_iso(&large.created_at), "2024-10-27T03:35:00.000Z");
    assert_eq!(to_iso(&large.updated_at), "2024-10-27T03:35:09.000Z");
    assert_eq!((large.message_count, large.turn_count), (4, 2));
    assert_eq!(large.model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(large.forked_from, None);
    // Message-level tokens only (the step-finish part repeats them); `cost` here is an object,
    // not OpenCode's USD number, so there is no native cost.
    let cost = large.cost.as_ref().unwrap();
    assert_eq!((cost.input_tokens, cost.output_tokens), (120, 16));
    assert_eq!(large.usage[0].native_cost_usd, None);

    let small = &v[1];
    assert_eq!(small.session_id, "s_stage0_small");
    assert_eq!(small.title, "OpenCode Small");
    assert_eq!(to_iso(&small.created_at), "2024-10-27T03:33:20.000Z");
    assert_eq!(to_iso(&small.updated_at), "2024-10-27T03:33:25.000Z");
    assert_eq!((small.message_count, small.turn_count), (2, 1));
    assert_eq!(small.cost, None, "no usage: cost unknown");

    let s = c.get(nobody(), "opencode", "s_stage0_large").unwrap();
    let a = &s.messages[1];
    assert_eq!(a.role, Role::Assistant);
    assert_eq!(a.content, "Command failed with exit code 1.");
    assert_eq!(
        a.thinking.as_deref(),
        Some("Investigating failing command.")
    );
    assert_eq!(a.tool_calls.len(), 1);
    let call = &a.tool_calls[0];
    assert_eq!(
        (call.tool_call_id.as_str(), call.tool_name.as_str()),
        ("call_large_1", "bash")
    );
    assert_eq!(
        call.input,
        json!({"command": "ls /non-existent-directory", "cwd": "/tmp/large"})
    );
    assert_eq!(
        call.output,
        Some(json!(
            "ls: /non-existent-directory: No such file or directory\n"
        ))
    );
    assert_eq!(call.duration_ms, Some(500.0));
    let t = a.token_usage.as_ref().unwrap();
    assert_eq!((t.input_tokens, t.output_tokens), (120, 16));
    let texts: Vec<&str> = s.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts[0], "Step 1");
    assert_eq!(texts[2..], ["Step 2", "Ok"]);
    assert_eq!(
        s.raw.as_ref().unwrap().to_value()["messages"][1]["parts"]
            .as_array()
            .unwrap()
            .len(),
        8
    );

    let s = c.get(nobody(), "opencode", "s_stage0_small").unwrap();
    // A part without `messageID` belongs to the message its directory names.
    assert_eq!(s.messages[0].content, "Hello");
    assert_eq!(s.messages[1].content, "Found 2 files.");
    assert_eq!(
        s.messages[1].tool_calls[0].output,
        Some(json!("a.txt\nb.txt\n"))
    );
    assert_eq!(common::snapshot(&dir), before);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_storage_legacy_tree_with_flat_parts() {
    let dir = real("agent-sessions-storage_legacy");
    let before = common::snapshot(&dir);
    let c = client_for(&dir);
    let v = list(&c, nobody());
    assert_eq!(v.len(), 1);
    let d = &v[0];
    assert_eq!(d.session_id, "s_stage0_drift");
    assert_eq!(d.title, "OpenCode Drift");
    assert_eq!(d.cwd.as_deref(), Some("/tmp/drift"));
    assert_eq!(to_iso(&d.created_at), "2024-10-27T03:36:40.000Z");
    assert_eq!(to_iso(&d.updated_at), "2024-10-27T03:36:44.000Z");
    assert_eq!((d.message_count, d.turn_count), (2, 1));
    assert_eq!(d.model.as_deref(), Some("gpt-4o-mini"));
    let s = c.get(nobody(), "opencode", "s_stage0_drift").unwrap();
    let a = &s.messages[1];
    assert_eq!(a.content, "Read README and extracted the title.");
    assert_eq!(a.tool_calls[0].tool_call_id, "call_legacy_1");
    assert_eq!(a.tool_calls[0].output, Some(json!("# Title\n\nBody\n")));
    assert_eq!(
        to_iso(a.timestamp.as_ref().unwrap()),
        "2024-10-27T03:36:42.000Z"
    );
    assert_eq!(common::snapshot(&dir), before);
}

fn text(s: &str) -> Value {
    json!({"type": "text", "text": s, "time": {"start": 1, "end": 2}})
}

fn fill(c: &Connection) {
    add_project(c);
    // Session aggregates deliberately disagree with the messages: they must not be read.
    add_session(
        c,
        "ses_A",
        &[
            ("title", t("Fix the build")),
            ("cost", r(0.05)),
            ("tokens_input", i(999_999)),
            (
                "model",
                t(r#"{"id":"claude-sonnet-4-5","providerID":"anthropic","variant":"default"}"#),
            ),
        ],
    );
    let usage = json!({"total": 1175, "input": 100, "output": 20, "reasoning": 5, "cache": {"read": 1000, "write": 50}});
    add_message(
        c,
        "ses_A",
        "msg_1",
        1780000001000,
        json!({"role": "user", "time": {"created": 1780000001000i64}, "agent": "build",
               "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}),
        &[text("\"fix the build\"")],
    );
    add_message(
        c,
        "ses_A",
        "msg_2",
        1780000002000,
        json!({"role": "assistant", "parentID": "msg_1", "mode": "build", "agent": "build",
               "path": {"cwd": "/work/app", "root": "/work/app"}, "cost": 0.0123, "tokens": usage,
               "modelID": "claude-sonnet-4-5", "providerID": "anthropic",
               "time": {"created": 1780000002000i64, "completed": 1780000009000i64}, "finish": "tool-calls"}),
        &[
            json!({"type": "step-start", "snapshot": "abc"}),
            json!({"type": "reasoning", "text": "Let me look", "time": {"start": 1, "end": 2}}),
            json!({"type": "tool", "callID": "call_1", "tool": "bash", "state": {"status": "completed",
                   "input": {"command": "make"}, "output": "ok", "title": "make", "metadata": {"exit": 0},
                   "time": {"start": 1780000003000i64, "end": 1780000004500i64}}}),
            text("Build fixed."),
            json!({"type": "step-finish", "reason": "stop", "snapshot": "def", "tokens": usage, "cost": 0.0123}),
        ],
    );
    add_message(
        c,
        "ses_A",
        "msg_3",
        1780000010000,
        json!({"role": "user", "time": {"created": 1780000010000i64}}),
        &[text("thanks")],
    );
    add_message(
        c,
        "ses_A",
        "msg_4",
        1780000011000,
        json!({"role": "assistant", "cost": 0.001, "tokens": {"input": 10, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}},
               "modelID": "gpt-5", "providerID": "openai", "time": {"created": 1780000011000i64}}),
        &[text("You're welcome.")],
    );

    // A sub-agent session, aborted before any usage.
    add_session(
        c,
        "ses_B",
        &[("title", t("Explore subagent")), ("parent_id", t("ses_A"))],
    );
    add_message(
        c,
        "ses_B",
        "msg_5",
        1780000020000,
        json!({"role": "user", "time": {"created": 1780000020000i64}}),
        &[text("look around")],
    );
    add_message(
        c,
        "ses_B",
        "msg_6",
        1780000021000,
        json!({"role": "assistant", "cost": 0, "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}},
               "modelID": "claude-haiku", "time": {"created": 1780000021000i64},
               "error": {"name": "MessageAbortedError", "data": {"message": "aborted"}}}),
        &[],
    );

    // No title: the first user text stands in.
    add_session(c, "ses_C", &[("time_updated", i(1780000000500))]);
    add_message(
        c,
        "ses_C",
        "msg_7",
        1780000000100,
        json!({"role": "user", "time": {"created": 1780000000100i64}}),
        &[
            json!({"type": "file", "mime": "text/plain", "filename": "a.rs", "url": "file:///a.rs"}),
            text("what is rust?"),
        ],
    );
}

fn data_dir(home: &Path) -> PathBuf {
    home.join(".local/share/opencode")
}

fn build_db(path: &Path, ddl: &str) {
    let c = create_db(path, ddl, true);
    fill(&c);
}

fn check_db(env: Env) {
    let c = common::client();
    let v = list(&c, env.clone());
    assert_eq!(v.len(), 3);
    let a = &v[0];
    assert_eq!(a.title, "Fix the build");
    assert_eq!(a.cwd.as_deref(), Some("/work/app"));
    assert_eq!(to_iso(&a.created_at), "2026-05-28T20:26:40.000Z");
    assert_eq!(to_iso(&a.updated_at), "2026-05-28T20:28:10.000Z");
    assert_eq!((a.message_count, a.turn_count), (4, 2));
    assert_eq!(a.model.as_deref(), Some("claude-sonnet-4-5"));
    let cost = a.cost.as_ref().unwrap();
    assert!(
        (cost.total_usd - 0.0133).abs() < 1e-12,
        "{}",
        cost.total_usd
    );
    assert_eq!((cost.input_tokens, cost.output_tokens), (110, 22));
    assert_eq!(
        (cost.cached_tokens, cost.cache_write_tokens),
        (Some(1000), Some(50))
    );
    assert_eq!(cost.thinking_tokens, Some(5));
    let models: Vec<&str> = a.usage.iter().map(|u| u.model.as_str()).collect();
    assert_eq!(models, ["claude-sonnet-4-5", "gpt-5"]);

    let b = &v[1];
    assert_eq!(b.forked_from.as_deref(), Some("ses_A"));
    assert_eq!((b.message_count, b.turn_count), (2, 1));
    assert_eq!(b.cost, None, "aborted before usage: cost unknown, not zero");
    assert_eq!(b.model.as_deref(), Some("claude-haiku"));

    let cc = &v[2];
    assert_eq!(cc.title, "what is rust?");
    assert_eq!(cc.model.as_deref(), None);
    assert_eq!((cc.message_count, cc.turn_count), (1, 0));

    let s = c.get(env.clone(), "opencode", "ses_A").unwrap();
    assert_eq!(s.messages[0].content, "\"fix the build\"");
    let m = &s.messages[1];
    assert_eq!(m.content, "Build fixed.");
    assert_eq!(m.thinking.as_deref(), Some("Let me look"));
    assert_eq!(m.tool_calls[0].input, json!({"command": "make"}));
    assert_eq!(m.tool_calls[0].output, Some(json!("ok")));
    assert_eq!(m.tool_calls[0].duration_ms, Some(1500.0));
    assert_eq!(m.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(m.cost.as_ref().unwrap().total_usd, 0.0123);
    assert_eq!(s.messages[3].model.as_deref(), Some("gpt-5"));
    assert_eq!(s.summary.cost.as_ref().unwrap().input_tokens, 110);
    assert_eq!(s.summary.message_count, 4);
    let raw = s.raw.as_ref().unwrap().to_value();
    assert_eq!(raw["session"]["slug"], "slug-ses_A");
    assert_eq!(raw["messages"][1]["parts"].as_array().unwrap().len(), 5);

    let e = c.get(env, "opencode", "ses_nope").unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionNotFound);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn opencode_1_18_database() {
    let ddl = ddl();
    let home = tempfile::tempdir().unwrap();
    build_db(&data_dir(home.path()).join("opencode.db"), &ddl);
    let before = common::snapshot(home.path());
    check_db(common::env(home.path()));
    assert_eq!(
        common::assert_fingerprints_follow_reads(home.path(), "opencode"),
        3
    );
    assert_eq!(common::snapshot(home.path()), before);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn xdg_data_home_channel_dbs_and_opencode_db() {
    let ddl = ddl();
    let home = tempfile::tempdir().unwrap();
    let xdg = home.path().join("xdg");
    build_db(&xdg.join("opencode/opencode-dev.db"), &ddl);
    let mut env = common::env(home.path());
    env.set("XDG_DATA_HOME", xdg.to_str().unwrap());
    check_db(env.clone());

    // OPENCODE_DB relative to the data directory replaces the channel files.
    let other = create_db(&xdg.join("opencode/custom.db"), &ddl, true);
    add_project(&other);
    add_session(&other, "ses_Z", &[("title", t("custom"))]);
    drop(other);
    env.set("OPENCODE_DB", "custom.db");
    let v = list(&common::client(), env.clone());
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].title, "custom");
    env.set(
        "OPENCODE_DB",
        xdg.join("opencode/opencode-dev.db").to_str().unwrap(),
    );
    assert_eq!(list(&common::client(), env).len(), 3);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn sees_committed_rows_of_a_live_writer() {
    let ddl = ddl();
    let home = tempfile::tempdir().unwrap();
    let db = data_dir(home.path()).join("opencode.db");
    let w = create_db(&db, &ddl, true);
    w.execute_batch("PRAGMA wal_autocheckpoint=0;").unwrap();
    fill(&w);
    assert_eq!(sidecars(home.path()).len(), 2);
    let c = common::client();
    let env = common::env(home.path());
    let before = snapshot_without_shm(home.path());
    assert_eq!(list(&c, env.clone()).len(), 3);
    assert_eq!(snapshot_without_shm(home.path()), before);

    add_session(
        &w,
        "ses_D",
        &[("title", t("live")), ("time_updated", i(1790000000000))],
    );
    add_message(
        &w,
        "ses_D",
        "msg_9",
        1790000000000,
        json!({"role": "user", "time": {"created": 1790000000000i64}}),
        &[text("hi")],
    );
    let before = snapshot_without_shm(home.path());
    let v = list(&c, env.clone());
    assert_eq!(v.len(), 4);
    assert_eq!(v[3].title, "live");
    assert_eq!(
        c.get(env, "opencode", "ses_D").unwrap().messages[0].content,
        "hi"
    );
    assert_eq!(snapshot_without_shm(home.path()), before);
}

#[cfg(unix)]
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn read_only_directory_gets_no_new_files() {
    use std::os::unix::fs::PermissionsExt;
    let ddl = ddl();
    let home = tempfile::tempdir().unwrap();
    let data = data_dir(home.path());
    build_db(&data.join("opencode.db"), &ddl);
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = common::snapshot(home.path());
    check_db(common::env(home.path()));
    assert_eq!(common::snapshot(home.path()), before);
    assert!(sidecars(home.path()).is_empty());
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn corrupt_database_is_skipped_by_list_and_a_parse_error_for_get() {
    let ddl = ddl();
    let home = tempfile::tempdir().unwrap();
    let data = data_dir(home.path());
    build_db(&data.join("opencode.db"), &ddl);
    let bad = data.join("opencode-beta.db");
    build_db(&bad, &ddl);
    corrupt_pages(&bad);
    std::fs::write(data.join("opencode-junk.db"), b"not sqlite at all").unwrap();
    let before = common::snapshot(home.path());
    let c = common::client();
    let env = common::env(home.path());
    assert_eq!(list(&c, env.clone()).len(), 3);
    let mut skipped: Vec<PathBuf> = c.cache().skipped().into_iter().map(|s| s.0).collect();
    skipped.sort();
    assert_eq!(skipped, [bad.clone(), data.join("opencode-junk.db")]);
    let e = c.get(env.clone(), "opencode", "ses_elsewhere").unwrap_err();
    assert_eq!(e.code, ErrorCode::ParseError);
    assert!(e.message.contains("opencode-"), "{}", e.message);
    assert!(c.get(env, "opencode", "ses_A").is_ok());
    assert_eq!(common::snapshot(home.path()), before);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn database_and_legacy_tree_together() {
    let ddl = ddl();
    let home = tempfile::tempdir().unwrap();
    let data = data_dir(home.path());
    build_db(&data.join("opencode.db"), &ddl);
    // A legacy copy of ses_A left behind by the migration, plus a legacy-only session.
    common::write(
        &data,
        "storage/session/global/ses_A.json",
        r#"{"id":"ses_A","title":"old copy","directory":"/old","time":{"created":1780000000000,"updated":1780000000001}}"#,
    );
    common::write(
        &data,
        "storage/session/global/ses_L.json",
        r#"{"id":"ses_L","title":"legacy only","directory":"/l","parentID":"ses_A","time":{"created":1700000000000,"updated":1700000001000}}"#,
    );
    common::write(
        &data,
        "storage/message/ses_L/msg_a.json",
        r#"{"id":"msg_a","sessionID":"ses_L","role":"user","time":{"created":1700000000500}}"#,
    );
    common::write(
        &data,
        "storage/part/msg_a/prt_a.json",
        r#"{"id":"prt_a","messageID":"msg_a","sessionID":"ses_L","type":"text","text":"legacy hello"}"#,
    );
    let c = common::client();
    let env = common::env(home.path());
    let v = list(&c, env.clone());
    assert_eq!(v.len(), 4);
    let a = v.iter().find(|s| s.session_id == "ses_A").unwrap();
    assert_eq!(a.title, "Fix the build", "the database's copy wins");
    let l = c.get(env.clone(), "opencode", "ses_L").unwrap();
    assert_eq!(l.summary.forked_from.as_deref(), Some("ses_A"));
    assert_eq!(l.messages[0].content, "legacy hello");
    assert_eq!(
        c.get(env, "opencode", "ses_A").unwrap().summary.title,
        "Fix the build"
    );
}
