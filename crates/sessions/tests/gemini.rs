//! Gemini CLI: the real captures read exactly, fixture homes in the real layouts (current slug
//! dirs, legacy hash dirs and `.json` documents, the spec's path), bad input, and `list` options.
use crate::common;

use agent_mux_sessions::agents::{gemini::Gemini, Agent, Mode, Source};
use agent_mux_sessions::model::to_iso;
use agent_mux_sessions::{Client, ClientOptions, ErrorCode, Role, Session};
use agent_mux_wire::list_options;
use common::*;
use serde_json::json;
use std::path::Path;

fn read_in_place(file: &Path) -> Session {
    let src = Source::new(file.to_path_buf(), &[]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let summary = Gemini.summaries(&c, &src).unwrap().remove(0);
    let session = Gemini.load_source(&c, &src).unwrap().remove(0);
    // The cheap summary and the full parse agree on everything a summary holds.
    assert_eq!(summary.session_id, session.summary.session_id);
    assert_eq!(summary.message_count, session.summary.message_count);
    assert_eq!(summary.turn_count, session.summary.turn_count);
    assert_eq!(summary.title, session.summary.title);
    assert_eq!(summary.model, session.summary.model);
    assert_eq!(summary.usage, session.summary.usage);
    assert_eq!(summary.created_at, session.summary.created_at);
    assert_eq!(summary.updated_at, session.summary.updated_at);
    // Search's read leaves `raw` out; `get` (by id, from a store holding the file) has it all.
    assert!(session.raw.is_none());
    let name = file.file_name().unwrap().to_str().unwrap();
    place(
        dir.path(),
        &format!(".gemini/tmp/project/chats/session-{name}"),
        file,
    );
    let full = Gemini
        .load(&c, &session.summary.session_id, Mode::Full)
        .unwrap();
    assert_eq!(full.messages, session.messages);
    assert_eq!(full.summary, session.summary);
    full
}

fn roles(s: &Session) -> Vec<Role> {
    s.messages.iter().map(|m| m.role).collect()
}

fn total(s: &Session) -> (u64, u64, u64, u64) {
    let mut t = (0, 0, 0, 0);
    for u in &s.summary.usage {
        t.0 += u.tokens.input;
        t.1 += u.tokens.output;
        t.2 += u.tokens.cache_read;
        t.3 += u.tokens.reasoning;
    }
    t
}

use Role::{Assistant as A, Tool as T, User as U};

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_jsonl_v040() {
    let real = real_fixtures();
    let s = read_in_place(&real.join("gemini/agent-sessions-jsonl_v040.jsonl"));
    assert_eq!(s.summary.session_id, "gemini_stage0_jsonl");
    assert_eq!(s.summary.title, "Say hello and list files.");
    assert_eq!(roles(&s), [U, A, T, A]);
    assert_eq!(s.summary.message_count, 4);
    assert_eq!(s.summary.turn_count, 1);
    assert_eq!(s.summary.model.as_deref(), Some("gemini-3-flash-preview"));
    let call = &s.messages[1].tool_calls[0];
    assert_eq!(call.tool_call_id, "run_shell_command_stage0");
    assert_eq!(call.tool_name, "run_shell_command");
    assert_eq!(call.input["command"], "ls -F");
    let out = "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345";
    assert_eq!(call.output, Some(json!(out)));
    let res = s.messages[2].tool_result.as_ref().unwrap();
    assert_eq!(res.tool_call_id, "run_shell_command_stage0");
    assert_eq!(res.output, json!(out));
    assert_eq!(
        to_iso(&s.messages[2].timestamp.unwrap()),
        "2026-04-29T21:39:35.364Z"
    );
    assert_eq!(s.messages[3].content, "Hello! I listed the files.");
    // input excludes cached (12069 - 11502 on the second reply), output excludes thoughts.
    assert_eq!(total(&s), (11855 + 567, 81 + 147, 11502, 0));
    assert_eq!(s.messages[3].tokens.unwrap().cache_read, 11502);
    assert_eq!(to_iso(&s.summary.created_at), "2026-04-29T21:39:22.319Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2026-04-29T21:39:45.996Z");
    assert_eq!(
        s.raw.as_ref().unwrap().to_value().as_array().unwrap().len(),
        5
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_legacy_small_json() {
    let real = real_fixtures();
    let s = read_in_place(&real.join("gemini/agent-sessions-small.json"));
    assert_eq!(s.summary.session_id, "session-2026-01-16T18-34-3739ef95");
    assert_eq!(s.summary.title, "Hello");
    assert_eq!(roles(&s), [U, A]);
    assert_eq!(s.summary.turn_count, 1);
    assert_eq!(s.messages[1].content, "Hi!");
    assert_eq!(
        s.messages[1].thinking.as_deref(),
        Some("Short reasoning placeholder.")
    );
    assert_eq!(s.summary.model.as_deref(), Some("gemini-3-flash-preview"));
    assert_eq!(total(&s), (10, 5, 0, 0));
    assert_eq!(to_iso(&s.summary.created_at), "2026-01-16T18:34:00.000Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2026-01-16T18:34:10.000Z");
    assert_eq!(s.raw.as_ref().unwrap().to_value()["kind"], "chat");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_legacy_large_json() {
    let real = real_fixtures();
    let s = read_in_place(&real.join("gemini/agent-sessions-large.json"));
    assert_eq!(s.summary.session_id, "session-2025-12-16T23-47-b4f17607");
    assert_eq!(s.summary.title, "Run a command");
    // `info` is a UI notice (not a message); legacy `model` records with `parts` are replies.
    assert_eq!(roles(&s), [U, A, T, A, T, A, U, A]);
    assert_eq!(s.summary.turn_count, 2);
    assert_eq!(s.messages[5].content, "Captured multiline output.");
    assert_eq!(s.messages[7].content, "Ok");
    let ids: Vec<_> = s
        .messages
        .iter()
        .flat_map(|m| m.tool_calls.iter().map(|c| c.tool_call_id.as_str()))
        .collect();
    assert_eq!(ids, ["run_shell_command-1", "run_shell_command-2"]);
    assert_eq!(
        s.messages[4].tool_result.as_ref().unwrap().tool_call_id,
        "run_shell_command-2"
    );
    assert!(s.messages[3].tool_calls[0]
        .output
        .as_ref()
        .unwrap()
        .as_str()
        .unwrap()
        .contains("Exit Code: 1"));
    assert_eq!(s.summary.model.as_deref(), Some("gemini-3-flash-preview"));
    assert_eq!(total(&s), (100, 10, 0, 0));
    assert_eq!(to_iso(&s.summary.created_at), "2025-12-16T23:47:00.000Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2025-12-16T23:48:00.000Z");
}

const SID: &str = "5b7c1e2a-9d41-4f3e-8a6b-0c2d4e6f8a10";
const PROJECT_HASH: &str = "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9";

/// A 0.61-shaped chat: upserts (tokens then tool calls), `$set` summary, a tool result sent back
/// as a `user` record, thoughts, a `$rewindTo` that drops an abandoned exchange.
fn current_chat() -> String {
    let lines = [
        json!({"sessionId": SID, "projectHash": PROJECT_HASH, "startTime": "2026-05-01T10:00:00.000Z", "lastUpdated": "2026-05-01T10:00:00.000Z", "kind": "main"}),
        json!({"id": "u1", "timestamp": "2026-05-01T10:00:01.000Z", "type": "user", "content": [{"text": "Fix the failing test"}]}),
        json!({"$set": {"lastUpdated": "2026-05-01T10:00:01.000Z"}}),
        json!({"id": "g1", "timestamp": "2026-05-01T10:00:02.000Z", "type": "gemini", "content": "", "thoughts": [{"subject": "Plan", "description": "Run the tests first", "timestamp": "2026-05-01T10:00:02.000Z"}], "tokens": {"input": 1000, "output": 20, "cached": 400, "thoughts": 30, "tool": 5, "total": 1055}, "model": "gemini-2.5-pro"}),
        json!({"id": "g1", "timestamp": "2026-05-01T10:00:02.000Z", "type": "gemini", "content": "", "thoughts": [{"subject": "Plan", "description": "Run the tests first", "timestamp": "2026-05-01T10:00:02.000Z"}], "tokens": {"input": 1000, "output": 20, "cached": 400, "thoughts": 30, "tool": 5, "total": 1055}, "model": "gemini-2.5-pro", "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "npm test"}, "status": "success", "timestamp": "2026-05-01T10:00:03.000Z", "displayName": "Shell", "description": "npm test", "renderOutputAsMarkdown": false}]}),
        json!({"id": "u2", "timestamp": "2026-05-01T10:00:04.000Z", "type": "user", "content": [{"functionResponse": {"id": "c1", "name": "run_shell_command", "response": {"output": "1 failing"}}}]}),
        json!({"id": "g2", "timestamp": "2026-05-01T10:00:05.000Z", "type": "gemini", "content": "One test fails; fixed.", "thoughts": [], "tokens": {"input": 1200, "output": 50, "cached": 1000, "thoughts": 0, "tool": 0, "total": 1250}, "model": "gemini-2.5-flash"}),
        json!({"id": "i1", "timestamp": "2026-05-01T10:00:05.500Z", "type": "info", "content": "Checkpoint saved."}),
        json!({"id": "u3", "timestamp": "2026-05-01T10:00:06.000Z", "type": "user", "content": [{"text": "Now delete everything"}]}),
        json!({"id": "g3", "timestamp": "2026-05-01T10:00:07.000Z", "type": "gemini", "content": "Deleting.", "tokens": {"input": 9, "output": 9, "cached": 0, "thoughts": 0, "tool": 0, "total": 18}, "model": "gemini-2.5-pro"}),
        json!({"$rewindTo": "u3"}),
        json!({"$set": {"summary": "Fix the failing unit test", "lastUpdated": "2026-05-01T10:00:09.000Z"}}),
        json!({"type": "future.record", "payload": 1}),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn legacy_doc(id: &str, start: &str, prompt: &str) -> String {
    json!({
        "sessionId": id, "projectHash": PROJECT_HASH, "startTime": start, "lastUpdated": start,
        "messages": [
            {"id": "m1", "timestamp": start, "type": "user", "content": prompt},
            {"id": "m2", "timestamp": start, "type": "gemini", "content": "ok", "model": "gemini-2.0-flash",
             "tokens": {"input": 10, "output": 2, "cached": 0, "thoughts": 0, "tool": 0, "total": 12}}
        ]
    })
    .to_string()
}

const LEGACY_ID: &str = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";
const TWIN_ID: &str = "77777777-aaaa-bbbb-cccc-dddddddddddd";

/// `~/.gemini` with a slug project (current), a sha256 project (older install), a legacy `.json`
/// with its resumed `.jsonl` twin, a subagent chat, temp files and the spec's path.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    write(
        h,
        ".gemini/projects.json",
        json!({"projects": {"/work/shop": "shop"}}).to_string(),
    );
    write(h, ".gemini/tmp/shop/.project_root", "/work/shop\n");
    write(
        h,
        ".gemini/tmp/shop/chats/session-2026-05-01T10-00-5b7c1e2a.jsonl",
        current_chat(),
    );
    // Subagent transcripts and temp/backup files are not sessions.
    write(
        h,
        &format!(".gemini/tmp/shop/chats/{SID}/9a9a9a9a-0000-0000-0000-000000000000.jsonl"),
        json!({"sessionId": "9a9a9a9a-0000-0000-0000-000000000000", "kind": "subagent", "startTime": "2026-05-01T10:00:02.000Z"}).to_string(),
    );
    write(
        h,
        ".gemini/tmp/shop/chats/session-2026-05-01T10-00-5b7c1e2a.jsonl.tmp-4242",
        "{",
    );
    write(
        h,
        ".gemini/tmp/shop/chats/session-2026-05-01T10-00-5b7c1e2a.jsonl.unreadable-1",
        "{",
    );
    write(h, ".gemini/tmp/shop/logs.json", "[]");
    write(h, ".gemini/tmp/shop/chats/checkpoint-a.json", "[]");
    write(
        h,
        &format!(".gemini/tmp/{PROJECT_HASH}/chats/session-2025-11-02T08-15-0f1e2d3c.json"),
        legacy_doc(LEGACY_ID, "2025-11-02T08:15:00.000Z", "Explain the build"),
    );
    // A legacy document resumed after the JSONL switch: the `.jsonl` twin wins.
    let twin = ".gemini/tmp/shop/chats/session-2026-03-01T09-00-77777777";
    write(
        h,
        &format!("{twin}.json"),
        legacy_doc(TWIN_ID, "2026-03-01T09:00:00.000Z", "Old twin"),
    );
    let mut twin_jsonl = json!({"sessionId": TWIN_ID, "projectHash": PROJECT_HASH, "startTime": "2026-03-01T09:00:00.000Z", "lastUpdated": "2026-03-01T09:00:00.000Z", "kind": "main"}).to_string();
    twin_jsonl.push('\n');
    twin_jsonl.push_str(&json!({"$set": {"messages": [
        {"id": "m1", "timestamp": "2026-03-01T09:00:00.000Z", "type": "user", "content": "Resumed twin"},
        {"id": "m2", "timestamp": "2026-03-01T09:00:01.000Z", "type": "gemini", "content": "ok", "model": "gemini-2.0-flash"}
    ]}}).to_string());
    twin_jsonl.push('\n');
    write(h, &format!("{twin}.jsonl"), twin_jsonl);
    // The spec's path, last.
    write(
        h,
        ".gemini/sessions/spec-session.jsonl",
        format!(
            "{}\n{}\n{}\n{}\n",
            json!({"id": "a", "timestamp": "2024-01-01T00:00:00.000Z", "type": "user", "content": "From the spec path"}),
            json!({"id": "b", "timestamp": "2024-01-01T00:00:01.000Z", "type": "model", "content": "hi", "model": "gemini-1.5-pro"}),
            json!({"id": "c", "timestamp": "2024-01-01T00:00:02.000Z", "type": "user", "content": "again"}),
            json!({"id": "d", "timestamp": "2024-01-01T00:00:03.000Z", "type": "model", "content": "hi again", "model": "gemini-1.5-pro"})
        ),
    );
    dir
}

#[test]
fn current_layout_upserts_rewind_set_and_tool_responses() {
    let h = home();
    let c = client();
    let s = c.get(env(h.path()), "gemini", SID).unwrap();
    assert_eq!(s.summary.unified_id, format!("gemini:{SID}"));
    assert_eq!(s.summary.title, "Fix the failing unit test");
    assert_eq!(s.summary.cwd.as_deref(), Some("/work/shop"));
    // u1, g1 (last copy: with its tool call), u2 as a tool result, g2; info skipped; u3/g3 rewound.
    assert_eq!(roles(&s), [U, A, T, A]);
    assert_eq!(s.summary.message_count, 4);
    assert_eq!(s.summary.turn_count, 1);
    let g1 = &s.messages[1];
    assert_eq!(g1.thinking.as_deref(), Some("Plan: Run the tests first"));
    assert_eq!(g1.tool_calls.len(), 1);
    assert_eq!(g1.tool_calls[0].output, Some(json!("1 failing")));
    assert_eq!(
        s.messages[2].tool_result.as_ref().unwrap().tool_call_id,
        "c1"
    );
    let t = g1.tokens.unwrap();
    assert_eq!(
        (t.input, t.output, t.cache_read, t.reasoning),
        (605, 20, 400, 30)
    );
    // Counted once per message id, rewound messages not at all.
    let pro = s
        .summary
        .usage
        .iter()
        .find(|u| u.model == "gemini-2.5-pro")
        .unwrap();
    assert_eq!(pro.tokens.input, 605);
    let flash = s
        .summary
        .usage
        .iter()
        .find(|u| u.model == "gemini-2.5-flash")
        .unwrap();
    assert_eq!((flash.tokens.input, flash.tokens.cache_read), (200, 1000));
    let cost = s.summary.cost.as_ref().unwrap();
    assert_eq!((cost.input_tokens, cost.output_tokens), (805, 70));
    assert_eq!(cost.thinking_tokens, Some(30));
    assert_eq!(cost.cached_tokens, Some(1400));
    // Tie (one reply each): the model seen first.
    assert_eq!(s.summary.model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(to_iso(&s.summary.created_at), "2026-05-01T10:00:00.000Z");
    // The rewound reply (10:00:07) was activity, but `$set.lastUpdated` came later.
    assert_eq!(to_iso(&s.summary.updated_at), "2026-05-01T10:00:09.000Z");
    let raw = s.raw.as_ref().unwrap().to_value();
    let raw = raw.as_array().unwrap();
    assert_eq!(raw.len(), 13);
    assert_eq!(raw[12]["type"], "future.record");
}

#[test]
fn list_covers_every_layout_once() {
    let h = home();
    let snap = snapshot(h.path());
    let c = client();
    let all = c
        .list(env(h.path()), "gemini", &list_options(&json!({})).unwrap())
        .unwrap();
    let mut ids: Vec<_> = all.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, [LEGACY_ID, SID, TWIN_ID, "spec-session"]);
    let twin = all.iter().find(|s| s.session_id == TWIN_ID).unwrap();
    assert_eq!(twin.title, "Resumed twin");
    let legacy = all.iter().find(|s| s.session_id == LEGACY_ID).unwrap();
    assert_eq!(legacy.title, "Explain the build");
    assert_eq!(legacy.cwd, None);
    let spec = all.iter().find(|s| s.session_id == "spec-session").unwrap();
    assert_eq!((spec.message_count, spec.turn_count), (4, 2));
    assert_eq!(spec.model.as_deref(), Some("gemini-1.5-pro"));
    // Every id found by list is found by get, and agrees.
    for s in &all {
        let g = c.get(env(h.path()), "gemini", &s.session_id).unwrap();
        assert_eq!(g.summary.message_count, s.message_count, "{}", s.session_id);
        assert_eq!(g.summary.title, s.title);
    }
    assert_eq!(snapshot(h.path()), snap, "reading changed the store");
}

#[test]
fn list_filters_sorts_and_limits() {
    let h = home();
    let c = client();
    let list = |o: serde_json::Value| -> Vec<String> {
        c.list(env(h.path()), "gemini", &list_options(&o).unwrap())
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    // Date = updatedAt, newest first by default.
    assert_eq!(list(json!({})), [SID, TWIN_ID, LEGACY_ID, "spec-session"]);
    assert_eq!(
        list(json!({"sortDirection": "asc"})),
        ["spec-session", LEGACY_ID, TWIN_ID, SID]
    );
    assert_eq!(list(json!({"limit": 2})), [SID, TWIN_ID]);
    let since = 1_767_225_600_000u64; // 2026-01-01
    assert_eq!(list(json!({"since": since})), [SID, TWIN_ID]);
    assert_eq!(list(json!({"until": since})), [LEGACY_ID, "spec-session"]);
    assert_eq!(list(json!({"model": "gemini-2.5-flash"})), [SID]);
    assert_eq!(
        list(json!({"model": "gemini-2.0-flash"})),
        [TWIN_ID, LEGACY_ID]
    );
    assert_eq!(list(json!({"cwd": "/work/shop/"})), [SID, TWIN_ID]);
    assert_eq!(list(json!({"tags": ["nope"]})).len(), 0);
    // Turns: the spec session has two, the others one each (ties by unified id).
    assert_eq!(
        list(json!({"sort": "turns"})),
        ["spec-session", LEGACY_ID, SID, TWIN_ID]
    );
    assert_eq!(
        list(json!({"sort": "turns", "sortDirection": "asc"})),
        [LEGACY_ID, SID, TWIN_ID, "spec-session"]
    );
    let by_cost = c
        .list(
            env(h.path()),
            "gemini",
            &list_options(&json!({"sort": "cost"})).unwrap(),
        )
        .unwrap();
    assert_eq!(by_cost.len(), 4);
    let costs: Vec<f64> = by_cost
        .iter()
        .map(|s| s.cost.as_ref().map_or(0.0, |c| c.total_usd))
        .collect();
    assert!(costs.windows(2).all(|w| w[0] >= w[1]), "{costs:?}");
}

#[test]
fn env_and_option_overrides_replace_the_defaults() {
    let h = home();
    let other = tempfile::tempdir().unwrap();
    write(
        other.path(),
        ".gemini/tmp/elsewhere/chats/session-2026-06-01T00-00-abcdef12.jsonl",
        legacy_doc_as_jsonl("abcdef12-0000-0000-0000-000000000000"),
    );
    let mut e = env(h.path());
    e.set("GEMINI_CLI_HOME", other.path().to_str().unwrap());
    let c = client();
    let ids: Vec<_> = c
        .list(e.clone(), "gemini", &list_options(&json!({})).unwrap())
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    // GEMINI_CLI_HOME replaces `~` for `.gemini`; the spec path under the real HOME remains.
    assert_eq!(
        ids,
        ["abcdef12-0000-0000-0000-000000000000", "spec-session"]
    );
    let mut opts = ClientOptions::default();
    opts.session_dirs
        .insert("gemini".into(), other.path().join(".gemini"));
    let c = Client::new(opts);
    let ids: Vec<_> = c
        .list(env(h.path()), "gemini", &list_options(&json!({})).unwrap())
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(ids, ["abcdef12-0000-0000-0000-000000000000"]);
    assert_eq!(
        c.get(env(h.path()), "gemini", SID).unwrap_err().code,
        ErrorCode::SessionNotFound
    );
}

fn legacy_doc_as_jsonl(id: &str) -> String {
    format!(
        "{}\n{}\n",
        json!({"sessionId": id, "projectHash": PROJECT_HASH, "startTime": "2026-06-01T00:00:00.000Z", "lastUpdated": "2026-06-01T00:00:00.000Z", "kind": "main"}),
        json!({"id": "u", "timestamp": "2026-06-01T00:00:01.000Z", "type": "user", "content": [{"text": "hi"}]})
    )
}

#[test]
fn get_finds_ids_the_file_name_does_not_carry_and_rejects_escapes() {
    let h = home();
    // An id that is not a UUID: only the metadata says it.
    write(
        h.path(),
        ".gemini/tmp/shop/chats/session-2026-07-01T00-00-zzzzzzzz.jsonl",
        legacy_doc_as_jsonl("custom-id"),
    );
    let c = client();
    let s = c.get(env(h.path()), "gemini", "custom-id").unwrap();
    assert_eq!(s.summary.title, "hi");
    for bad in ["../x", "a/b", "..", "/etc/passwd", "x\0", "nope"] {
        assert_eq!(
            c.get(env(h.path()), "gemini", bad).unwrap_err().code,
            ErrorCode::SessionNotFound,
            "{bad:?}"
        );
    }
}

/// Found by fuzzing: a foreign record before the metadata line made `get` miss a session that
/// `list` shows (the head peek read only the first record).
#[test]
fn get_finds_a_session_whose_metadata_is_not_the_first_record() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    write(h, ".gemini/tmp/shop/.project_root", "/work/shop\n");
    let chat = format!(
        "{}\n{}",
        json!({"type": "padding", "pad": "x"}),
        current_chat()
    );
    write(
        h,
        ".gemini/tmp/shop/chats/session-2026-05-01T10-00-zzzzzzzz.jsonl",
        chat,
    );
    let c = client();
    let listed = c.list(env(h), "gemini", &Default::default()).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].session_id, SID);
    let s = c.get(env(h), "gemini", SID).unwrap();
    assert_eq!(s.summary.session_id, SID);
    assert_eq!(s.messages.len() as u64, listed[0].message_count);
}

#[test]
fn bad_input_is_tolerated_by_list_and_named_by_get() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let chats = ".gemini/tmp/p/chats";
    // Torn last line: the agent is writing it.
    let mut torn = current_chat();
    torn.push_str("{\"id\":\"g9\",\"type\":\"gemini\",\"content\":\"half");
    write(
        h,
        &format!("{chats}/session-2026-05-01T10-00-5b7c1e2a.jsonl"),
        torn,
    );
    // Empty, garbage-only, truncated legacy document.
    write(h, &format!("{chats}/session-empty.jsonl"), "");
    write(
        h,
        &format!("{chats}/session-garbage.jsonl"),
        "not json\n{{{\n",
    );
    write(
        h,
        &format!("{chats}/session-torn-doc.json"),
        "{\"sessionId\": \"x\", \"messages\": [",
    );
    // Non-UTF-8 bytes inside a string.
    let mut bytes = json!({"sessionId": "bytes-1", "startTime": "2026-01-01T00:00:00Z"})
        .to_string()
        .into_bytes();
    bytes
        .extend_from_slice(b"\n{\"id\":\"u\",\"type\":\"user\",\"content\":\"caf\xe9 au lait\"}\n");
    write(h, &format!("{chats}/session-bytes.jsonl"), bytes);
    // A directory where a chat file should be.
    std::fs::create_dir_all(h.join(format!("{chats}/session-dir.jsonl"))).unwrap();
    let snap = snapshot(h);

    let c = client();
    let listed = c
        .list(env(h), "gemini", &list_options(&json!({})).unwrap())
        .unwrap();
    let mut ids: Vec<_> = listed.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, [SID, "bytes-1"]);
    let skipped = c.cache().skipped();
    assert_eq!(skipped.len(), 3, "{skipped:?}");

    let s = c.get(env(h), "gemini", SID).unwrap();
    assert_eq!(s.summary.message_count, 4, "the torn line is skipped");
    let s = c.get(env(h), "gemini", "bytes-1").unwrap();
    assert_eq!(s.messages[0].content, "caf\u{fffd} au lait");
    for (id, file) in [
        ("session-empty", "session-empty.jsonl"),
        ("session-garbage", "session-garbage.jsonl"),
        ("session-torn-doc", "session-torn-doc.json"),
    ] {
        let e = c.get(env(h), "gemini", id).unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError, "{id}");
        assert!(e.message.contains(file), "{}", e.message);
    }
    assert_eq!(
        c.get(env(h), "gemini", "session-dir").unwrap_err().code,
        ErrorCode::SessionNotFound
    );
    assert_eq!(snapshot(h), snap);
}

#[test]
fn a_second_list_reads_nothing_unchanged() {
    let h = home();
    let c = client();
    let o = list_options(&json!({})).unwrap();
    c.list(env(h.path()), "gemini", &o).unwrap();
    let reads = c.cache().reads();
    assert_eq!(reads, 4);
    c.list(env(h.path()), "gemini", &o).unwrap();
    assert_eq!(c.cache().reads(), reads);
}
