//! OpenClaw: every real capture read with exact values; a 2026.4 fixture home (JSONL, sessions.json,
//! trajectory sidecars, legacy ~/.clawdbot); a 2026.9 database built from the real DDL with inline
//! and zstd-compressed events; the spec's channel layout; and proof nothing is written.
use crate::common;

use agent_mux_sessions::agents::openclaw::read_transcript;
use agent_mux_sessions::model::{to_iso, Role, Tokens};
use agent_mux_sessions::options::ListOptions;
use agent_mux_sessions::{Env, ErrorCode};
use common::*;
use rusqlite::{params, Connection};
use std::path::{Path, PathBuf};

fn real(name: &str) -> PathBuf {
    real_fixtures().join("openclaw").join(name)
}

fn roles(s: &agent_mux_sessions::Session) -> Vec<Role> {
    s.messages.iter().map(|m| m.role).collect()
}

use Role::*;

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_toolpath_excerpt() {
    let p = real("toolpath-convo-EXCERPT.jsonl");
    let s = read_transcript(&p, true).unwrap();
    assert_eq!(s.summary.session_id, "907f477b-0bba-4b63-9d04-481a03f2db9e");
    assert_eq!(
        s.summary.cwd.as_deref(),
        Some("/home/node/.openclaw/workspace")
    );
    // The excerpt's parent chain has gaps; the entries still read as one line.
    assert_eq!(roles(&s), [Assistant, Tool, Tool]);
    assert_eq!(s.summary.turn_count, 0);
    assert_eq!(s.summary.title, "");
    assert_eq!(s.summary.model.as_deref(), Some("claude-opus-4-8"));
    let a = &s.messages[0];
    assert_eq!(a.tool_calls.len(), 1);
    assert_eq!(a.tool_calls[0].tool_name, "write");
    assert_eq!(a.tool_calls[0].input["path"], "notes.md");
    assert_eq!(
        a.tool_calls[0].output.as_ref().unwrap(),
        "Successfully wrote 69 bytes to notes.md"
    );
    assert_eq!(
        a.tokens,
        Some(Tokens {
            input: 2,
            output: 140,
            cache_read: 26070,
            cache_write: 539,
            reasoning: 0,
            ..Default::default()
        })
    );
    assert_eq!(a.native_cost_usd, None);
    assert_eq!(to_iso(&a.timestamp.unwrap()), "2026-07-08T14:14:28.875Z");
    let read = s.messages[2].tool_result.as_ref().unwrap();
    assert_eq!(read.tool_call_id, "toolu_01WHMcahUkPhkXih1ovtU8yq");
    assert!(read.output.as_str().unwrap().contains("ENOENT"));
    assert_eq!(s.summary.usage.len(), 1);
    assert_eq!(s.summary.usage[0].tokens.total(), 26751);
    assert_eq!(to_iso(&s.summary.created_at), "2026-07-08T14:14:21.962Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2026-07-08T14:14:49.139Z");
    assert_eq!(
        s.raw.unwrap().to_value()["entries"]
            .as_array()
            .unwrap()
            .len(),
        6
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_agent_sessions_small() {
    let p = real("agent-sessions-stage0-small.jsonl");
    let s = read_transcript(&p, false).unwrap();
    assert_eq!(s.summary.session_id, "openclaw-stage0-small");
    assert_eq!(roles(&s), [User, Assistant, Tool]);
    assert_eq!(s.summary.title, "List files");
    assert_eq!(s.summary.turn_count, 1);
    // model_change hangs off the header (another root); it still names the model.
    assert_eq!(s.summary.model.as_deref(), Some("openclaw-small"));
    assert_eq!(s.messages[1].content, "Running ls now.");
    assert_eq!(s.messages[1].tool_calls[0].input["command"], "ls");
    assert_eq!(
        s.messages[1].tool_calls[0].output.as_ref().unwrap(),
        "main.swift\nResources\n"
    );
    assert!(s.summary.usage.is_empty());
    assert_eq!(to_iso(&s.summary.created_at), "2026-02-24T09:00:00.000Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2026-02-24T09:00:04.000Z");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_agent_sessions_large() {
    let p = real("agent-sessions-stage0-large.jsonl");
    let s = read_transcript(&p, true).unwrap();
    assert_eq!(s.summary.session_id, "openclaw-stage0-large");
    assert_eq!(s.summary.cwd.as_deref(), Some("/tmp/large"));
    assert_eq!(
        roles(&s),
        [User, Assistant, Tool, Assistant, Assistant, Tool]
    );
    assert_eq!(s.summary.turn_count, 1);
    assert_eq!(
        s.messages[3].content,
        "Done\n[media attached: screenshot-1]"
    );
    let calls: Vec<(&str, bool)> = s
        .messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .map(|c| (c.tool_name.as_str(), c.output.is_some()))
        .collect();
    assert_eq!(calls, [("run_terminal", true), ("edit_file", true)]);
    assert!(s
        .messages
        .iter()
        .filter(|m| m.role == Assistant)
        .all(|m| m.model.as_deref() == Some("openclaw-large")));
    // The custom/custom_message side branch is metadata, not the conversation.
    let raw = s.raw.unwrap().to_value();
    assert_eq!(
        raw["activePath"],
        serde_json::json!(["m1", "m2", "m3", "m4", "m5", "m6"])
    );
    assert_eq!(raw["entries"].as_array().unwrap().len(), 10);
    assert_eq!(to_iso(&s.summary.updated_at), "2026-05-19T18:12:00.000Z");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_agent_sessions_schema_drift() {
    let p = real("agent-sessions-stage0-schema_drift.jsonl");
    let s = read_transcript(&p, false).unwrap();
    assert_eq!(s.summary.session_id, "openclaw-stage0-drift");
    assert_eq!(roles(&s), [User, Assistant, Tool, System]);
    assert_eq!(s.messages[3].content, "diagnostic summary updated");
    assert_eq!(s.messages[2].content, "PASS\n");
    assert_eq!(
        s.messages[1].tool_calls[0].output.as_ref().unwrap(),
        "PASS\n"
    );
    assert_eq!(s.summary.model, None);
    assert_eq!(to_iso(&s.summary.updated_at), "2026-02-24T11:00:05.000Z");
}

// ---- 2026.4 JSONL layout -------------------------------------------------------------------

const L1: &str = "release-notes";
const L2: &str = "c0ffee00-0000-4000-8000-000000000002";

fn legacy_transcript(id: &str, zeroed: bool) -> String {
    let u1 = if zeroed {
        r#"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#
    } else {
        r#"{"input":1200,"output":300,"cacheRead":0,"cacheWrite":400,"totalTokens":1900,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#
    };
    let mut lines = vec![
        format!(r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-04-20T12:00:00.000Z","cwd":"/home/u/.openclaw/workspace"}}"#),
        r#"{"type":"model_change","id":"a1b2c3d4","parentId":null,"timestamp":"2026-04-20T12:00:00.010Z","provider":"anthropic","modelId":"claude-sonnet-4-6"}"#.into(),
        r#"{"type":"custom","customType":"model-snapshot","data":{"timestamp":1776686400020,"provider":"anthropic","modelApi":"anthropic-messages","modelId":"claude-sonnet-4-6"},"id":"a1b2c3d5","parentId":"a1b2c3d4","timestamp":"2026-04-20T12:00:00.020Z"}"#.into(),
        r#"{"type":"message","id":"a1b2c3d6","parentId":"a1b2c3d5","timestamp":"2026-04-20T12:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"draft the release notes"}],"timestamp":1776686401000}}"#.into(),
        format!(r#"{{"type":"message","id":"a1b2c3d7","parentId":"a1b2c3d6","timestamp":"2026-04-20T12:00:05.000Z","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"collect changes","thinkingSignature":"sig"}},{{"type":"toolCall","id":"toolu_x1","name":"exec","arguments":{{"command":"git log --oneline"}}}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","usage":{u1},"stopReason":"toolUse","timestamp":1776686402000,"responseId":"msg_1"}}}}"#),
        r#"{"type":"message","id":"a1b2c3d8","parentId":"a1b2c3d7","timestamp":"2026-04-20T12:00:06.000Z","message":{"role":"toolResult","toolCallId":"toolu_x1","toolName":"exec","content":[{"type":"text","text":"abc123 fix\n"}],"details":{"status":"completed","exitCode":0,"durationMs":42,"aggregated":"abc123 fix\n","cwd":"/home/u/.openclaw/workspace"},"isError":false,"timestamp":1776686406000}}"#.into(),
    ];
    if zeroed {
        lines.push(r#"{"type":"compaction","id":"a1b2c3d9","parentId":"a1b2c3d8","timestamp":"2026-04-20T12:10:00.000Z","summary":"notes drafted","firstKeptEntryId":"a1b2c3d8","tokensBefore":1900}"#.into());
        lines.push(r#"{"type":"message","id":"a1b2c3da","parentId":"a1b2c3d9","timestamp":"2026-04-20T12:10:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Done."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-6","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1776687005000}}"#.into());
    }
    lines.join("\n") + "\n"
}

fn legacy_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = ".openclaw/agents/main/sessions";
    write(
        h,
        &format!("{dir}/{L1}.jsonl"),
        legacy_transcript(L1, false),
    );
    let l2 = write(h, &format!("{dir}/{L2}.jsonl"), legacy_transcript(L2, true));
    write(
        h,
        &format!("{dir}/{L1}.trajectory.jsonl"),
        r#"{"traceSchema":"openclaw-trajectory","schemaVersion":1,"source":"runtime","type":"session.started","sessionId":"release-notes"}"#,
    );
    write(
        h,
        &format!("{dir}/{L1}.trajectory-path.json"),
        r#"{"traceSchema":"openclaw-trajectory-pointer","runtimeFile":"/x"}"#,
    );
    write(h, &format!("{dir}/{L1}.jsonl.lock"), "");
    write(
        h,
        &format!("{dir}/sessions.json"),
        format!(
            r#"{{"agent:main:explicit:{L2}":{{"sessionId":"{L2}","updatedAt":1776687005000,"sessionFile":"{}","modelProvider":"anthropic","model":"claude-sonnet-4-6","agentHarnessId":"pi","inputTokens":1500,"outputTokens":340,"cacheRead":2000,"cacheWrite":400,"totalTokens":3900,"totalTokensFresh":true,"estimatedCostUsd":0.0213,"contextTokens":200000,"thinkingLevel":"off"}}}}"#,
            l2.display()
        ),
    );
    write(
        h,
        ".clawdbot/agents/main/sessions/old-one.jsonl",
        legacy_transcript("old-one", false).replace("2026-04-20", "2026-01-05"),
    );
    home
}

#[test]
fn legacy_layout_with_index_totals_and_sidecars() {
    let home = legacy_home();
    let before = snapshot(home.path());
    let c = client();
    let list = c
        .list(env(home.path()), "openclaw", &ListOptions::default())
        .unwrap();
    let ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    // Trajectory sidecars are not sessions; ~/.clawdbot is read too.
    assert_eq!(ids, [L2, L1, "old-one"]);
    let l1 = &list[1];
    assert_eq!(l1.title, "draft the release notes");
    assert_eq!(l1.message_count, 3);
    let cost = l1.cost.as_ref().unwrap();
    assert_eq!(
        (
            cost.input_tokens,
            cost.output_tokens,
            cost.cache_write_tokens
        ),
        (1200, 300, Some(400))
    );
    // Compaction zeroed the first reply's usage: the index's totals stand in.
    let l2 = &list[0];
    let cost = l2.cost.as_ref().unwrap();
    assert_eq!(
        (cost.input_tokens, cost.output_tokens, cost.cached_tokens),
        (1500, 340, Some(2000))
    );
    assert!((cost.total_usd - 0.0213).abs() < 1e-12);
    let s = c.get(env(home.path()), "openclaw", L1).unwrap();
    assert_eq!(roles(&s), [User, Assistant, Tool]);
    assert_eq!(s.messages[1].thinking.as_deref(), Some("collect changes"));
    assert_eq!(s.messages[1].tool_calls[0].duration_ms, Some(42.0));
    assert_eq!(snapshot(home.path()), before);
    // OPENCLAW_STATE_DIR: a state dir elsewhere, read besides the homes'.
    let other = home.path().join("state2");
    write(
        &other,
        "agents/ops/sessions/x-1.jsonl",
        legacy_transcript("x-1", false),
    );
    let hs = home.path().to_str().unwrap();
    let e = Env::from_pairs([
        ("HOME", hs),
        ("OPENCLAW_STATE_DIR", other.to_str().unwrap()),
    ]);
    let n = c
        .list(e, "openclaw", &ListOptions::default())
        .unwrap()
        .len();
    assert_eq!(n, 4);
}

#[test]
fn spec_channel_layout_is_the_last_fallback() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".openclaw/sessions/telegram/chat-42.json",
        r#"{"title":"Groceries","createdAt":"2026-02-01T08:00:00Z","messages":[{"role":"user","content":"milk?","timestamp":"2026-02-01T08:00:01Z"},{"role":"assistant","content":[{"type":"text","text":"yes"}],"model":"gpt-5","usage":{"input":4,"output":1,"cost":{"total":0.00002}},"timestamp":"2026-02-01T08:00:02Z"}]}"#,
    );
    let c = client();
    let s = c.get(env(home.path()), "openclaw", "chat-42").unwrap();
    assert_eq!(s.summary.title, "Groceries");
    assert_eq!(roles(&s), [User, Assistant]);
    assert_eq!(s.raw.as_ref().unwrap().to_value()["channel"], "telegram");
    assert_eq!(s.summary.cost.as_ref().unwrap().total_usd, 0.00002);
    assert_eq!(
        c.list(env(home.path()), "openclaw", &ListOptions::default())
            .unwrap()
            .len(),
        1
    );
}

// ---- 2026.9 SQLite store, built from the real DDL ------------------------------------------

fn ddl() -> String {
    let p = shared("research/openclaw-agent-schema-2026.9.sql");
    // Two kinds of line in a `.schema` dump are SQLite's own and cannot be replayed by hand:
    // `sqlite_sequence` (made with the first AUTOINCREMENT table) and the FTS5 shadow tables
    // (`CREATE TABLE IF NOT EXISTS '<name>_data'…`, made by their `CREATE VIRTUAL TABLE`, which
    // the dump lists after them). Every other statement runs as captured.
    std::fs::read_to_string(&p)
        .unwrap()
        .lines()
        .filter(|l| {
            !l.starts_with("CREATE TABLE sqlite_sequence(")
                && !l.starts_with("CREATE TABLE IF NOT EXISTS '")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const S1: &str = "0199f000-aaaa-7bbb-8ccc-000000000001";
const S2: &str = "0199f000-aaaa-7bbb-8ccc-000000000002";

fn events_s1() -> Vec<String> {
    vec![
        format!(r#"{{"type":"session","version":4,"id":"{S1}","timestamp":"2026-10-01T09:00:00.000Z","cwd":"/home/u/.openclaw/workspace"}}"#),
        r#"{"type":"model_change","id":"0199f001-0000-7000-8000-000000000001","parentId":null,"timestamp":"2026-10-01T09:00:00.005Z","provider":"anthropic","modelId":"claude-opus-4-8"}"#.into(),
        r#"{"type":"thinking_level_change","id":"0199f001-0000-7000-8000-000000000002","parentId":"0199f001-0000-7000-8000-000000000001","timestamp":"2026-10-01T09:00:00.006Z","thinkingLevel":"low"}"#.into(),
        r#"{"type":"custom","customType":"openclaw.cache-ttl","data":{"ttl":300},"id":"0199f001-0000-7000-8000-000000000003","parentId":"0199f001-0000-7000-8000-000000000002","timestamp":"2026-10-01T09:00:00.007Z"}"#.into(),
        r#"{"type":"message","id":"0199f001-0000-7000-8000-000000000004","parentId":"0199f001-0000-7000-8000-000000000003","timestamp":"2026-10-01T09:00:01.000Z","message":{"role":"user","content":"how big is the repo?","timestamp":1790845201000,"__openclaw":{"senderIsOwner":true},"idempotencyKey":"0199f0ff-0000-7000-8000-000000000001:user"}}"#.into(),
        format!(r#"{{"type":"message","id":"0199f001-0000-7000-8000-000000000005","parentId":"0199f001-0000-7000-8000-000000000004","timestamp":"2026-10-01T09:00:04.000Z","message":{{"role":"assistant","content":[{{"type":"thinking","thinking":"{}","thinkingSignature":"sig"}},{{"type":"text","text":"Checking."}},{{"type":"toolCall","id":"toolu_du","name":"exec","arguments":{{"command":"du -sh ."}}}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{{"input":3,"output":90,"cacheRead":12000,"cacheWrite":800,"reasoningTokens":40,"totalTokens":12893,"cost":{{"input":0.000045,"output":0.00675,"cacheRead":0.018,"cacheWrite":0.015,"total":0.039795}}}},"stopReason":"toolUse","timestamp":1790845202000,"responseId":"msg_a","openclawDelivery":{{}},"__openclaw":{{"runId":"r1"}}}}}}"#, "x".repeat(3000)),
        r#"{"type":"message","id":"0199f001-0000-7000-8000-000000000006","parentId":"0199f001-0000-7000-8000-000000000005","timestamp":"2026-10-01T09:00:05.000Z","message":{"role":"toolResult","toolCallId":"toolu_du","toolName":"exec","content":[{"type":"text","text":"12M\t."}],"details":{"status":"completed","exitCode":0,"exitSignal":null,"exitReason":"exit","durationMs":15,"aggregated":"12M\t.","cwd":"/home/u/.openclaw/workspace"},"isError":false,"timestamp":1790845205000}}"#.into(),
        r#"{"type":"message","id":"0199f001-0000-7000-8000-000000000007","parentId":"0199f001-0000-7000-8000-000000000006","timestamp":"2026-10-01T09:00:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"About 12 MB."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{"input":5,"output":10,"cacheRead":12900,"cacheWrite":0,"reasoningTokens":0,"totalTokens":12915,"cost":{"input":0.000075,"output":0.00075,"cacheRead":0.01935,"cacheWrite":0,"total":0.020175}},"stopReason":"stop","timestamp":1790845206000,"responseId":"msg_b"}}"#.into(),
    ]
}

fn events_s2() -> Vec<String> {
    vec![
        format!(r#"{{"type":"session","version":4,"id":"{S2}","timestamp":"2026-10-02T10:00:00.000Z","cwd":"/home/u/.openclaw/workspace"}}"#),
        r#"{"type":"message","id":"0199f002-0000-7000-8000-000000000001","parentId":null,"timestamp":"2026-10-02T10:00:01.000Z","message":{"role":"user","content":"summarise the log","timestamp":1790935201000}}"#.into(),
        r#"{"type":"message","id":"0199f002-0000-7000-8000-000000000002","parentId":"0199f002-0000-7000-8000-000000000001","timestamp":"2026-10-02T10:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Summary."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-8","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1790935202000}}"#.into(),
        r#"{"type":"compaction","id":"0199f002-0000-7000-8000-000000000003","parentId":"0199f002-0000-7000-8000-000000000002","timestamp":"2026-10-02T10:05:00.000Z","summary":"summarised","firstKeptEntryId":"0199f002-0000-7000-8000-000000000002","tokensBefore":5000}"#.into(),
    ]
}

/// Write a 2026.9 agent database the way OpenClaw lays it out: WAL mode, small events inline,
/// large ones zstd-compressed with their `navigation_json`.
fn build_db(path: &Path, ddl: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = Connection::open(path).unwrap();
    c.execute_batch(ddl).unwrap();
    c.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
    c.execute("INSERT INTO schema_meta VALUES ('primary','agent',23,'main','2026.9.6',1790845200000,1790845200000)", []).unwrap();
    let node = |key: &str, current: &str, entry: &str, label: Option<&str>, fork: Option<&str>| {
        c.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at, label, fork_source_session_id) VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)",
            params![key, current, entry, 1790845200000i64, label, fork],
        )
        .unwrap();
    };
    node(
        &format!("agent:main:explicit:{S1}"),
        S1,
        &format!(
            r#"{{"sessionId":"{S1}","updatedAt":1790845207000,"model":"claude-opus-4-8","inputTokens":5,"outputTokens":10}}"#
        ),
        None,
        None,
    );
    node(
        &format!("agent:main:explicit:{S2}"),
        S2,
        &format!(
            r#"{{"sessionId":"{S2}","updatedAt":1790935500000,"model":"claude-opus-4-8","inputTokens":4000,"outputTokens":250,"cacheRead":600,"cacheWrite":0,"estimatedCostUsd":0.08}}"#
        ),
        Some("Log summary"),
        Some(S1),
    );
    let window = |id: &str, key: &str, reason: &str, created: i64, updated: i64| {
        c.execute(
            "INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at, model_provider, model) VALUES (?1, ?2, ?3, ?4, ?5, 'anthropic', 'claude-opus-4-8')",
            params![id, key, reason, created, updated],
        )
        .unwrap();
    };
    window(
        S1,
        &format!("agent:main:explicit:{S1}"),
        "initial",
        1790845200000,
        1790845207000,
    );
    window(
        S2,
        &format!("agent:main:explicit:{S2}"),
        "fork",
        1790935200000,
        1790935500000,
    );
    for (sid, events) in [(S1, events_s1()), (S2, events_s2())] {
        for (seq, e) in events.iter().enumerate() {
            if e.len() > 2000 {
                insert_packed_event(&c, sid, seq, 1790845200000, e);
            } else {
                c.execute(
                    "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?1, ?2, ?3, ?4, NULL, ?5, NULL)",
                    params![sid, seq as i64, e, 1790845200000i64, e.len() as i64],
                )
                .unwrap();
            }
        }
    }
    let packed: i64 = c
        .query_row(
            "SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(packed, 1, "one event is stored compressed");
}

fn sqlite_home() -> (tempfile::TempDir, PathBuf) {
    let ddl = ddl();
    let home = tempfile::tempdir().unwrap();
    let db = home
        .path()
        .join(".openclaw/agents/main/agent/openclaw-agent.sqlite");
    build_db(&db, &ddl);
    (home, db)
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn sqlite_store_inline_and_compressed_events() {
    let (home, db) = sqlite_home();
    let dir = db.parent().unwrap().to_path_buf();
    assert_eq!(
        listing(&dir),
        ["openclaw-agent.sqlite"],
        "a cleanly closed WAL database"
    );
    let before = snapshot(home.path());
    let c = client();
    let list = c
        .list(env(home.path()), "openclaw", &ListOptions::default())
        .unwrap();
    let ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [S2, S1]);
    let s1 = c.get(env(home.path()), "openclaw", S1).unwrap();
    assert_eq!(roles(&s1), [User, Assistant, Tool, Assistant]);
    assert_eq!(s1.summary.title, "how big is the repo?");
    assert_eq!(
        s1.summary.cwd.as_deref(),
        Some("/home/u/.openclaw/workspace")
    );
    assert_eq!(s1.summary.forked_from, None);
    // The compressed event decoded in full.
    assert_eq!(s1.messages[1].thinking.as_ref().unwrap().len(), 3000);
    assert_eq!(s1.messages[1].tool_calls[0].tool_name, "exec");
    assert_eq!(
        s1.messages[1].tool_calls[0].output.as_ref().unwrap(),
        "12M\t."
    );
    assert_eq!(
        s1.messages[1].tokens,
        Some(Tokens {
            input: 3,
            output: 50,
            cache_read: 12000,
            cache_write: 800,
            reasoning: 40,
            ..Default::default()
        })
    );
    let u = &s1.summary.usage[0];
    assert_eq!(u.model, "claude-opus-4-8");
    assert_eq!(
        u.tokens,
        Tokens {
            input: 8,
            output: 60,
            cache_read: 24900,
            cache_write: 800,
            reasoning: 40,
            ..Default::default()
        }
    );
    assert!((s1.summary.cost.as_ref().unwrap().total_usd - 0.05997).abs() < 1e-12);
    assert_eq!(to_iso(&s1.summary.created_at), "2026-10-01T09:00:00.000Z");
    assert_eq!(to_iso(&s1.summary.updated_at), "2026-10-01T09:00:07.000Z");
    assert_eq!(
        s1.raw.as_ref().unwrap().to_value()["window"]["reason"],
        "initial"
    );
    assert_eq!(s1.raw.as_ref().unwrap().to_value()["version"], 4);
    let s2 = &list[0];
    assert_eq!(s2.title, "Log summary");
    assert_eq!(s2.forked_from.as_deref(), Some(S1));
    // Usage zeroed before the compaction: the node's index totals stand in.
    let cost = s2.cost.as_ref().unwrap();
    assert_eq!(
        (cost.input_tokens, cost.output_tokens, cost.cached_tokens),
        (4000, 250, Some(600))
    );
    assert!((cost.total_usd - 0.08).abs() < 1e-12);
    assert_eq!(to_iso(&s2.updated_at), "2026-10-02T10:05:00.000Z");
    let e = c
        .get(
            env(home.path()),
            "openclaw",
            "0199f000-aaaa-7bbb-8ccc-0000000000ff",
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionNotFound);
    assert_eq!(
        common::assert_fingerprints_follow_reads(home.path(), "openclaw"),
        2
    );
    // Nothing written: same bytes, no -wal/-shm/journal created.
    assert_eq!(snapshot(home.path()), before);
    assert_eq!(listing(&dir), ["openclaw-agent.sqlite"]);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn sqlite_store_being_written_is_read_without_new_files() {
    let (home, db) = sqlite_home();
    let dir = db.parent().unwrap().to_path_buf();
    let w = Connection::open(&db).unwrap();
    w.execute_batch("PRAGMA wal_autocheckpoint=0;").unwrap();
    w.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) VALUES (?1, 8, ?2, 1, 10)",
        params![S1, r#"{"type":"message","id":"0199f001-0000-7000-8000-000000000008","parentId":"0199f001-0000-7000-8000-000000000007","timestamp":"2026-10-01T09:01:00.000Z","message":{"role":"user","content":"thanks","timestamp":1790845260000}}"#],
    )
    .unwrap();
    let files_before = listing(&dir);
    assert!(files_before.contains(&"openclaw-agent.sqlite-wal".to_string()));
    let s = client().get(env(home.path()), "openclaw", S1).unwrap();
    // The committed row in the -wal is seen.
    assert_eq!(s.messages.len(), 5);
    assert_eq!(s.messages[4].content, "thanks");
    assert_eq!(listing(&dir), files_before);
}

#[test]
fn corrupt_database_is_skipped_in_list_and_a_parse_error_in_get() {
    let home = legacy_home();
    let db = write(home.path(), ".openclaw/agents/ops/agent/openclaw-agent.sqlite", b"SQLite format 3\0 but not really a database at all............................................................................");
    let c = client();
    let list = c
        .list(env(home.path()), "openclaw", &ListOptions::default())
        .unwrap();
    assert_eq!(list.len(), 3);
    let skipped = c.cache().skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].0, db);
    let e = c
        .get(env(home.path()), "openclaw", "not-anywhere")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ParseError);
    assert!(e.message.contains("openclaw-agent.sqlite"));
    // A session in the readable JSONL store is still found.
    assert_eq!(
        c.get(env(home.path()), "openclaw", L1)
            .unwrap()
            .messages
            .len(),
        3
    );
}

#[test]
fn bad_transcripts() {
    let home = tempfile::tempdir().unwrap();
    let d = ".openclaw/agents/main/sessions";
    write(home.path(), &format!("{d}/empty.jsonl"), "");
    write(
        home.path(),
        &format!("{d}/junk.jsonl"),
        "\u{7f}ELF\n{not json\n",
    );
    let torn = legacy_transcript("torn", false) + r#"{"type":"message","id":"zz","parentId":"a1b2"#;
    write(home.path(), &format!("{d}/torn.jsonl"), torn);
    let c = client();
    let list = c
        .list(env(home.path()), "openclaw", &ListOptions::default())
        .unwrap();
    assert_eq!(
        list.iter()
            .map(|s| s.session_id.as_str())
            .collect::<Vec<_>>(),
        ["torn"]
    );
    assert_eq!(list[0].message_count, 3);
    assert_eq!(c.cache().skipped().len(), 2);
    for id in ["empty", "junk"] {
        assert_eq!(
            c.get(env(home.path()), "openclaw", id).unwrap_err().code,
            ErrorCode::ParseError
        );
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_captures_are_left_unchanged() {
    let dir = real_fixtures().join("openclaw");
    let before = snapshot(&dir);
    let mut read = 0;
    for p in agent_mux_sessions::read::fs::files(&dir, |n| n.ends_with(".jsonl")) {
        read_transcript(&p, true).unwrap();
        read += 1;
    }
    assert_eq!(read, 4);
    assert_eq!(snapshot(&dir), before);
}

// ---- many sessions of a database at once ---------------------------------------------------

/// Add the real captures' records to the database at `db`, one window each, every other event
/// zstd-compressed as OpenClaw stores large ones; their session ids.
fn add_real_captures(db: &Path) -> Vec<String> {
    let c = Connection::open(db).unwrap();
    let mut ids = Vec::new();
    for name in [
        "agent-sessions-stage0-small.jsonl",
        "agent-sessions-stage0-large.jsonl",
        "agent-sessions-stage0-schema_drift.jsonl",
        "toolpath-convo-EXCERPT.jsonl",
    ] {
        let text = std::fs::read_to_string(real(name)).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let header: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        let id = header["id"].as_str().unwrap().to_string();
        c.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at) VALUES (?1, ?2, ?3, 1790845200000, 1790845200000)",
            params![format!("agent:main:explicit:{id}"), id, format!(r#"{{"sessionId":"{id}"}}"#)],
        )
        .unwrap();
        c.execute(
            "INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at) VALUES (?1, ?2, 'initial', 1790845200000, 1790845200000)",
            params![id, format!("agent:main:explicit:{id}")],
        )
        .unwrap();
        for (seq, e) in lines.iter().enumerate() {
            if seq % 2 == 1 {
                insert_packed_event(&c, &id, seq, 1, e);
            } else {
                c.execute(
                    "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?1, ?2, ?3, 1)",
                    params![id, seq as i64, e],
                )
                .unwrap();
            }
        }
        ids.push(id);
    }
    ids
}

/// Sessions of a database asked by id come back in the order asked, each equal to what loading
/// it alone gives; so do every session of it (in id order) and the summaries asked by id. On the
/// real captures (with the two sessions built above) and on a generated store of more sessions
/// than are built at once.
#[test]
#[cfg_attr(
    no_shared,
    ignore = "needs ../shared/fixtures/real and ../shared/research"
)]
fn sessions_asked_by_id_come_back_in_that_order_each_as_loaded_alone() {
    use agent_mux_sessions::agents::adapter::{Agent, Mode};
    use agent_mux_sessions::agents::openclaw::OpenClaw;
    use agent_mux_sessions::context::Context;
    let (built, db) = sqlite_home();
    let captures = add_real_captures(&db);
    assert_eq!(captures.len(), 4);
    let tmp = tempfile::tempdir().unwrap();
    let generated = crate::index::generated_home_of(&tmp.path().join("home"), 150, 3, "openclaw");
    // The messages: the captures' 3 + 6 + 4 + 3 and the two built sessions' 4 + 2; the
    // generated store holds 960.
    for (home, count, least) in [(built.path(), 6, 22), (generated.as_path(), 150, 900)] {
        let ctx = Context::with_env(Env::with_home(home));
        let source = (OpenClaw.sources(&ctx).into_iter())
            .find(|s| s.path.ends_with("openclaw-agent.sqlite"))
            .unwrap();
        let ids: Vec<String> = {
            let c = Connection::open(&source.path).unwrap();
            let mut st = c
                .prepare("SELECT session_id FROM session_windows ORDER BY session_id")
                .unwrap();
            let rows = st.query_map([], |r| r.get(0)).unwrap();
            rows.map(|r| r.unwrap()).collect()
        };
        assert_eq!(ids.len(), count);
        let alone = |id: &str| OpenClaw.load(&ctx, id, Mode::Full).unwrap();
        // Newest id first, one the database does not hold among them.
        let mut asked: Vec<&str> = ids.iter().rev().map(String::as_str).collect();
        asked.insert(count / 2, "0199f000-aaaa-7bbb-8ccc-0000000000ff");
        let many = OpenClaw.many_sessions().unwrap();
        let got = many.sessions_of(&ctx, &source, &asked).unwrap();
        let got_ids: Vec<&str> = got.iter().map(|s| s.summary.session_id.as_str()).collect();
        let held: Vec<&str> = ids.iter().rev().map(String::as_str).collect();
        assert_eq!(got_ids, held);
        let mut messages = 0;
        for s in &got {
            let one = alone(&s.summary.session_id);
            assert_eq!(s.summary, one.summary);
            assert_eq!(s.messages, one.messages);
            assert_eq!(s.raw, one.raw);
            assert_eq!(*s, one);
            messages += s.messages.len();
        }
        assert!(messages >= least, "{messages} messages compared");
        let summaries = many.summaries_of(&ctx, &source, &asked).unwrap();
        let want: Vec<_> = got.iter().map(|s| s.summary.clone()).collect();
        assert_eq!(summaries, want);
        let every = OpenClaw.load_source(&ctx, &source).unwrap();
        let every_ids: Vec<&str> = every
            .iter()
            .map(|s| s.summary.session_id.as_str())
            .collect();
        assert_eq!(every_ids, ids);
        assert!(every.iter().all(|s| *s == alone(&s.summary.session_id)));
    }
}

/// An event stored as OpenClaw 2026.9 stores a large one: zstd-compressed, with its navigation
/// record.
fn insert_packed_event(c: &rusqlite::Connection, sid: &str, seq: usize, created_at: i64, e: &str) {
    let packed = zstd::bulk::compress(e.as_bytes(), 3).unwrap();
    let nav = format!(
        r#"{{"version":1,"report":{{"kind":"canonical"}},"navigation":{{}},"reset":{{}},"model":{{}},"modelBytes":{n},"modelWithoutCheckpointBytes":{n},"withoutCustomDataBytes":{n}}}"#,
        n = e.len()
    );
    c.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?1, ?2, NULL, ?3, ?4, ?5, ?6)",
        params![sid, seq as i64, created_at, packed, e.len() as i64, nav],
    )
    .unwrap();
}
