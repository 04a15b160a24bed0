//! Copilot CLI: the real captures read exactly, fixture homes in all three layouts plus the spec's
//! path, segment usage, bad input, and `list` options.
use crate::common;

use agent_mux_sessions::agents::{copilot::Copilot, Agent, Mode, Source};
use agent_mux_sessions::model::{parse_time_str, to_iso, Tokens};
use agent_mux_sessions::{Client, ClientOptions, ErrorCode, Role, Session};
use agent_mux_wire::list_options;
use common::*;
use serde_json::{json, Value};
use std::path::Path;

use Role::{Assistant as A, System as S, Tool as T, User as U};

fn read_in_place(file: &Path) -> Session {
    let src = Source::new(file.to_path_buf(), &[]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let summary = Copilot.summaries(&c, &src).unwrap().remove(0);
    let session = Copilot.load_source(&c, &src).unwrap().remove(0);
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
    let rel = match file.file_name().and_then(|n| n.to_str()) {
        Some("events.jsonl") => {
            let id = file
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_str()
                .unwrap();
            format!(".copilot/session-state/{id}/events.jsonl")
        }
        Some(name) => format!(".copilot/session-state/{name}"),
        None => unreachable!("a capture file"),
    };
    place(dir.path(), &rel, file);
    let full = Copilot
        .load(&c, &session.summary.session_id, Mode::Full)
        .unwrap();
    assert_eq!(full.messages, session.messages);
    assert_eq!(full.summary, session.summary);
    full
}

fn roles(s: &Session) -> Vec<Role> {
    s.messages.iter().map(|m| m.role).collect()
}

fn usage_of(s: &Session, model: &str) -> Tokens {
    s.summary
        .usage
        .iter()
        .find(|u| u.model == model)
        .unwrap_or_else(|| panic!("no usage for {model}: {:?}", s.summary.usage))
        .tokens
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_subdir_v1_events() {
    let real = real_fixtures();
    let s = read_in_place(&real.join(
        "copilot/agent-sessions-subdir_v1/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl",
    ));
    assert_eq!(s.summary.session_id, "aaaabbbb-1111-2222-3333-ccccddddeeee");
    assert_eq!(s.summary.title, "List the files");
    assert_eq!(s.summary.cwd.as_deref(), Some("/tmp/project"));
    assert_eq!(roles(&s), [U, A, T, A]);
    assert_eq!(s.summary.turn_count, 1);
    let call = &s.messages[1].tool_calls[0];
    assert_eq!(call.tool_call_id, "call_1");
    assert_eq!(call.tool_name, "bash");
    // The execution event is what ran (the request also had a description).
    assert_eq!(call.input, json!({"command": "ls"}));
    assert_eq!(call.output, Some(json!("file1\nfile2\n")));
    assert_eq!(call.duration_ms, Some(100.0));
    assert_eq!(
        s.messages[2].tool_result.as_ref().unwrap().tool_call_id,
        "call_1"
    );
    assert_eq!(
        s.messages[3].content,
        "The directory contains file1 and file2."
    );
    // No model is named anywhere; no shutdown, so usage is the per-message output tokens.
    assert_eq!(s.summary.model, None);
    assert_eq!(s.summary.usage.len(), 1);
    assert_eq!(
        s.summary.usage[0].tokens,
        Tokens {
            output: 26,
            ..Tokens::default()
        }
    );
    assert_eq!(to_iso(&s.summary.created_at), "2026-03-26T17:50:34.263Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2026-03-26T17:50:37.100Z");
    assert_eq!(
        s.raw.as_ref().unwrap().to_value().as_array().unwrap().len(),
        8
    );
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_stage0_large_legacy_flat() {
    let real = real_fixtures();
    let s = read_in_place(&real.join("copilot/agent-sessions-stage0-large.jsonl"));
    assert_eq!(s.summary.session_id, "copilot_stage0_large");
    assert_eq!(s.summary.title, "Step 1");
    // session.info is a notice; the tool run after the last turn_start, announced by no message,
    // is a tool-only reply of its own.
    assert_eq!(roles(&s), [S, U, A, U, A, T, A, U, A, A]);
    assert_eq!(s.messages[0].content, "System notice");
    assert_eq!(s.summary.turn_count, 3);
    assert_eq!(s.summary.model.as_deref(), Some("gpt-5"));
    let c1 = &s.messages[4].tool_calls[0];
    assert_eq!(c1.tool_call_id, "call_1");
    assert_eq!(c1.output, Some(json!("line1\nline2\nline3\n")));
    assert_eq!(c1.duration_ms, None, "no execution_start to time it from");
    let c2 = &s.messages[9].tool_calls[0];
    assert_eq!(
        (c2.tool_call_id.as_str(), c2.tool_name.as_str()),
        ("call_2", "bash")
    );
    assert_eq!(c2.input, json!({"command": "echo hi"}));
    assert_eq!(c2.output, None);
    assert!(s.summary.usage.is_empty());
    assert_eq!(to_iso(&s.summary.created_at), "2025-12-18T23:00:00.000Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2025-12-18T23:00:10.400Z");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_stage0_small_catalogue() {
    let real = real_fixtures();
    let s = read_in_place(&real.join("copilot/agent-sessions-stage0-small.jsonl"));
    assert_eq!(s.summary.session_id, "copilot_stage0_small");
    assert_eq!(s.summary.title, "List the files");
    assert_eq!(s.summary.cwd.as_deref(), Some("/tmp/repo"));
    assert_eq!(roles(&s), [S, U, A, T, A, T, A, T, A, T, U, A]);
    assert_eq!(s.summary.turn_count, 2);
    assert_eq!(s.summary.model.as_deref(), Some("gpt-5-mini"));
    let call = &s.messages[2].tool_calls[0];
    assert_eq!(call.tool_name, "shell");
    // `arguments` was a JSON string in the request; the execution event has the object.
    assert_eq!(call.input, json!({"command": "ls"}));
    assert_eq!(call.output, Some(json!("a.txt\nb.txt\n")));
    assert_eq!(call.duration_ms, Some(4.0), "the tool's own telemetry");
    // Subagent messages carry the invoking tool call id.
    assert_eq!(
        s.messages[6].subagent.as_deref(),
        Some("[trimmed for fixture]")
    );
    assert_eq!(
        s.messages[11].thinking.as_deref(),
        Some("[trimmed for fixture]")
    );
    // The shutdown's modelMetrics carry no usage here: the segment falls back to outputTokens.
    assert_eq!(
        usage_of(&s, "gpt-5-mini"),
        Tokens {
            output: 15,
            ..Tokens::default()
        }
    );
    assert_eq!(s.summary.usage.len(), 1);
    assert_eq!(to_iso(&s.summary.created_at), "2025-12-18T21:32:04.182Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2025-12-18T21:32:20.000Z");
}

const CID: &str = "52caac9f-099a-4057-9867-6e4bd35a2c0d";
const LID: &str = "8e0f6a1c-2b3d-4e5f-8091-a2b3c4d5e6f7";

fn ev(kind: &str, id: usize, ts: &str, data: Value) -> String {
    let parent = if id == 1 {
        Value::Null
    } else {
        json!(format!("e{}", id - 1))
    };
    format!(
        "{}\n",
        json!({"type": kind, "data": data, "id": format!("e{id}"), "timestamp": ts, "parentId": parent})
    )
}

/// Three process segments: two closed by a shutdown with per-model totals, one still open.
fn current_events() -> String {
    let d = "2026-07-21T22:56:";
    [
        ev("session.start", 1, &format!("{d}15.806Z"), json!({"sessionId": CID, "version": 1, "producer": "copilot-agent", "copilotVersion": "1.0.68", "startTime": format!("{d}15.790Z"), "context": {"cwd": "/work/app"}, "alreadyInUse": false})),
        ev("session.model_change", 2, &format!("{d}17.000Z"), json!({"newModel": "auto"})),
        ev("system.message", 3, &format!("{d}17.500Z"), json!({"role": "system", "content": "You are Copilot."})),
        ev("user.message", 4, &format!("{d}18.000Z"), json!({"content": "Add a health check", "transformedContent": "<current_datetime>2026</current_datetime> Add a health check", "attachments": [], "interactionId": "i1"})),
        ev("session.auto_mode_resolved", 5, &format!("{d}18.200Z"), json!({"chosenModel": "claude-sonnet-4.5"})),
        ev("assistant.turn_start", 6, &format!("{d}18.300Z"), json!({"turnId": "0", "interactionId": "i1"})),
        ev("assistant.reasoning", 7, &format!("{d}19.000Z"), json!({"reasoningId": "r1", "content": "Need a route."})),
        ev("assistant.message", 8, &format!("{d}20.000Z"), json!({"messageId": "m1", "content": "Adding the route.", "toolRequests": [{"toolCallId": "t1", "name": "edit", "arguments": "{\"path\":\"app.ts\"}", "type": "function"}], "interactionId": "i1", "outputTokens": 10})),
        ev("tool.execution_start", 9, &format!("{d}20.250Z"), json!({"toolCallId": "t1", "toolName": "edit", "arguments": {"path": "app.ts"}})),
        ev("tool.execution_complete", 10, &format!("{d}21.000Z"), json!({"toolCallId": "t1", "success": true, "result": {"content": "edited", "detailedContent": "diff"}})),
        ev("assistant.message", 11, &format!("{d}22.000Z"), json!({"messageId": "m2", "content": "Done.", "toolRequests": [], "outputTokens": 5, "model": "gpt-5-mini"})),
        ev("assistant.turn_end", 12, &format!("{d}22.100Z"), json!({"turnId": "0"})),
        ev("session.shutdown", 13, &format!("{d}30.000Z"), json!({"shutdownType": "routine", "totalPremiumRequests": 2, "currentModel": "claude-sonnet-4.5", "modelMetrics": {
            "claude-sonnet-4.5": {"requests": {"count": 2, "cost": 1}, "usage": {"inputTokens": 71282, "outputTokens": 900, "cacheReadTokens": 35495, "cacheWriteTokens": 35783}},
            "gpt-5-mini": {"requests": {"count": 1, "cost": 0}, "usage": {"inputTokens": 1000, "outputTokens": 200, "cacheReadTokens": 600, "cacheWriteTokens": 0, "reasoningTokens": 50}}}})),
        ev("session.resume", 14, "2026-07-22T09:00:00.000Z", json!({"resumeTime": "2026-07-22T09:00:00.000Z", "eventCount": 13, "context": {"cwd": "/work/app"}})),
        ev("user.message", 15, "2026-07-22T09:00:01.000Z", json!({"content": "Also add a test", "attachments": []})),
        ev("assistant.message", 16, "2026-07-22T09:00:05.000Z", json!({"content": "Test added.", "toolRequests": [], "outputTokens": 30, "model": "claude-sonnet-4.5"})),
        ev("session.shutdown", 17, "2026-07-22T09:00:10.000Z", json!({"shutdownType": "routine", "modelMetrics": {
            "claude-sonnet-4.5": {"requests": {"count": 1, "cost": 1}, "usage": {"inputTokens": 500, "outputTokens": 30, "cacheReadTokens": 400, "cacheWriteTokens": 0}}}})),
        ev("session.resume", 18, "2026-07-23T10:00:00.000Z", json!({"resumeTime": "2026-07-23T10:00:00.000Z", "eventCount": 17})),
        ev("user.message", 19, "2026-07-23T10:00:01.000Z", json!({"content": "Run it", "attachments": []})),
        ev("session.compaction_complete", 20, "2026-07-23T10:00:02.000Z", json!({"success": true, "preCompactionTokens": 90000, "postCompactionTokens": 9000, "compactionTokensUsed": {"inputTokens": 2000, "outputTokens": 100, "cacheReadTokens": 0, "cacheWriteTokens": 0, "model": "claude-sonnet-4.5"}})),
        ev("assistant.message", 21, "2026-07-23T10:00:03.000Z", json!({"content": "Ran.", "outputTokens": 7, "model": "gpt-5-mini", "toolRequests": [{"toolCallId": "t2", "name": "bash", "arguments": {"command": "npm test"}}]})),
        ev("tool.execution_complete", 22, "2026-07-23T10:00:04.000Z", json!({"toolCallId": "t2", "success": false, "error": {"message": "exit 1"}})),
        ev("hook.start", 23, "2026-07-23T10:00:05.000Z", json!({"hookInvocationId": "h1", "hookType": "postToolUse"})),
        ev("brand.new.event", 24, "2026-07-23T10:00:06.000Z", json!({"anything": true})),
    ]
    .concat()
}

fn set_mtime(p: &Path, iso: &str) {
    let t: std::time::SystemTime = parse_time_str(iso).unwrap().into();
    std::fs::File::options()
        .write(true)
        .open(p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

/// `~/.copilot` with all three layouts, plus the spec's path under `~/.config`.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    write(
        h,
        &format!(".copilot/session-state/{CID}/events.jsonl"),
        current_events(),
    );
    write(
        h,
        &format!(".copilot/session-state/{CID}/workspace.yaml"),
        format!("id: {CID}\ncwd: /work/app\ngit_root: /work/app\nname: Health check endpoint\nuser_named: false\nsummary_count: 1\ncreated_at: 2026-07-21T22:56:15.790Z\nupdated_at: 2026-07-23T10:00:06.000Z\n"),
    );
    write(
        h,
        &format!(".copilot/session-state/{CID}/inuse.4242.lock"),
        "",
    );
    let history = write(
        h,
        &format!(".copilot/history-session-state/{LID}.json"),
        json!({"sessionId": LID, "startTime": "2025-10-08T21:10:16.398Z", "chatMessages": [
            {"role": "user", "content": "please add mcp servers"},
            {"role": "assistant", "content": "sure"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "str_replace_editor", "arguments": "{\"command\":\"view\",\"path\":\"/x\"}"}}]},
            {"role": "tool", "tool_call_id": "call_a", "content": "file contents here"},
            {"role": "user", "content": "thanks"}
        ], "timeline": []})
        .to_string(),
    );
    set_mtime(&history, "2025-10-08T22:00:00.000Z");
    let spec = write(
        h,
        ".config/github-copilot/sessions/spec-1.json",
        json!({"messages": [{"role": "user", "content": "From the spec path"}, {"role": "assistant", "content": "ok", "model": "gpt-4o"}]}).to_string(),
    );
    set_mtime(&spec, "2024-02-02T00:00:00.000Z");
    // Not sessions: config files beside the stores, a directory named like a session file.
    write(h, ".copilot/config.json", "{}");
    write(h, ".config/github-copilot/hosts.json", "{}");
    std::fs::create_dir_all(h.join(".copilot/session-state/dir-only/events.jsonl")).unwrap();
    dir
}

/// `home()` with two real captures among the current sessions.
fn home_with_real() -> tempfile::TempDir {
    let dir = home();
    let (h, real) = (dir.path(), real_fixtures());
    place(
        h,
        ".copilot/session-state/copilot_stage0_large.jsonl",
        &real.join("copilot/agent-sessions-stage0-large.jsonl"),
    );
    // A file whose name is not its id: found through its session.start.
    place(
        h,
        ".copilot/session-state/renamed.jsonl",
        &real.join("copilot/agent-sessions-stage0-small.jsonl"),
    );
    dir
}

#[test]
fn current_layout_segments_tools_and_workspace() {
    let h = home();
    let c = client();
    let s = c.get(env(h.path()), "copilot", CID).unwrap();
    assert_eq!(s.summary.unified_id, format!("copilot:{CID}"));
    assert_eq!(s.summary.title, "Health check endpoint");
    assert_eq!(s.summary.cwd.as_deref(), Some("/work/app"));
    assert_eq!(roles(&s), [S, U, A, T, A, U, A, U, A, T]);
    assert_eq!(s.summary.turn_count, 3);
    // `content`, not the `transformedContent` with injected reminders.
    assert_eq!(s.messages[1].content, "Add a health check");
    let m1 = &s.messages[2];
    assert_eq!(
        m1.model.as_deref(),
        Some("claude-sonnet-4.5"),
        "auto resolved"
    );
    assert_eq!(m1.thinking.as_deref(), Some("Need a route."));
    assert_eq!(m1.tool_calls.len(), 1, "request and execution are one call");
    let t1 = &m1.tool_calls[0];
    assert_eq!(t1.input, json!({"path": "app.ts"}));
    assert_eq!(t1.output, Some(json!("edited")));
    assert_eq!(t1.duration_ms, Some(750.0));
    let t2 = &s.messages[8].tool_calls[0];
    assert_eq!(t2.output, Some(json!({"message": "exit 1"})));
    assert_eq!(
        s.messages[9].tool_result.as_ref().unwrap().tool_name,
        "bash"
    );
    // Segments 1 and 2 from their shutdowns (input includes cache reads and writes), segment 3
    // from its outputTokens plus the compaction call.
    assert_eq!(
        usage_of(&s, "claude-sonnet-4.5"),
        Tokens {
            input: 4 + 100 + 2000,
            output: 900 + 30 + 100,
            cache_read: 35495 + 400,
            cache_write: 35783,
            reasoning: 0,
            ..Default::default()
        }
    );
    assert_eq!(
        usage_of(&s, "gpt-5-mini"),
        Tokens {
            input: 400,
            output: 150 + 7,
            cache_read: 600,
            cache_write: 0,
            reasoning: 50,
            ..Default::default()
        }
    );
    assert_eq!(s.summary.usage.len(), 2);
    let cost = s.summary.cost.as_ref().unwrap();
    assert_eq!((cost.input_tokens, cost.output_tokens), (2504, 1187));
    // Two replies each: the model seen first.
    assert_eq!(s.summary.model.as_deref(), Some("claude-sonnet-4.5"));
    assert_eq!(to_iso(&s.summary.created_at), "2026-07-21T22:56:15.790Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2026-07-23T10:00:06.000Z");
    let raw = s.raw.as_ref().unwrap().to_value();
    let raw = raw.as_array().unwrap();
    assert_eq!(raw.len(), 24);
    assert_eq!(raw[23]["type"], "brand.new.event");
}

#[test]
fn legacy_history_document_and_spec_path() {
    let h = home();
    let c = client();
    let s = c.get(env(h.path()), "copilot", LID).unwrap();
    assert_eq!(roles(&s), [U, A, A, T, U]);
    assert_eq!(s.summary.turn_count, 1);
    assert_eq!(s.summary.title, "please add mcp servers");
    let call = &s.messages[2].tool_calls[0];
    assert_eq!(call.input, json!({"command": "view", "path": "/x"}));
    assert_eq!(call.output, Some(json!("file contents here")));
    assert_eq!(
        s.messages[3].tool_result.as_ref().unwrap().tool_name,
        "str_replace_editor"
    );
    assert_eq!(to_iso(&s.summary.created_at), "2025-10-08T21:10:16.398Z");
    // No message times: the file's mtime is the last resort for the last activity.
    assert_eq!(to_iso(&s.summary.updated_at), "2025-10-08T22:00:00.000Z");
    let spec = c.get(env(h.path()), "copilot", "spec-1").unwrap();
    assert_eq!(roles(&spec), [U, A]);
    assert_eq!(spec.summary.model.as_deref(), Some("gpt-4o"));
    assert_eq!(to_iso(&spec.summary.created_at), "2024-02-02T00:00:00.000Z");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn list_covers_every_layout_and_changes_nothing() {
    let h = home_with_real();
    let snap = snapshot(h.path());
    let c = client();
    let all = c
        .list(env(h.path()), "copilot", &list_options(&json!({})).unwrap())
        .unwrap();
    let ids: Vec<_> = all.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            CID,
            "copilot_stage0_large",
            "copilot_stage0_small",
            LID,
            "spec-1"
        ]
    );
    assert!(c.cache().skipped().is_empty(), "{:?}", c.cache().skipped());
    for s in &all {
        let g = c.get(env(h.path()), "copilot", &s.session_id).unwrap();
        assert_eq!(g.summary.message_count, s.message_count, "{}", s.session_id);
        assert_eq!(g.summary.turn_count, s.turn_count);
        assert_eq!(g.summary.title, s.title);
    }
    assert_eq!(snapshot(h.path()), snap, "reading changed the store");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn list_filters_sorts_and_limits() {
    let h = home_with_real();
    let c = client();
    let list = |o: Value| -> Vec<String> {
        c.list(env(h.path()), "copilot", &list_options(&o).unwrap())
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    let (large, small) = ("copilot_stage0_large", "copilot_stage0_small");
    assert_eq!(
        list(json!({"sortDirection": "asc", "limit": 3})),
        ["spec-1", LID, small]
    );
    assert_eq!(list(json!({"since": 1_767_225_600_000u64})), [CID]);
    assert_eq!(
        list(json!({"until": 1_766_095_200_000u64})),
        [small, LID, "spec-1"]
    );
    assert_eq!(list(json!({"model": "gpt-5-mini"})), [CID, small]);
    assert_eq!(list(json!({"model": "gpt-5"})), [large]);
    assert_eq!(list(json!({"cwd": "/tmp/repo"})), [small]);
    assert_eq!(list(json!({"tags": ["x"]})).len(), 0);
    // Turns: CID 3, large 3, small 2, legacy 1, spec 1; ties by unified id.
    assert_eq!(
        list(json!({"sort": "turns"})),
        [CID, large, small, LID, "spec-1"]
    );
    assert_eq!(
        list(json!({"sort": "turns", "sortDirection": "asc", "limit": 2})),
        [LID, "spec-1"]
    );
    let by_cost = c
        .list(
            env(h.path()),
            "copilot",
            &list_options(&json!({"sort": "cost"})).unwrap(),
        )
        .unwrap();
    let costs: Vec<f64> = by_cost
        .iter()
        .map(|s| s.cost.as_ref().map_or(0.0, |c| c.total_usd))
        .collect();
    assert_eq!(costs.len(), 5);
    assert!(costs.windows(2).all(|w| w[0] >= w[1]), "{costs:?}");
}

#[test]
fn overrides_replace_the_defaults() {
    let h = home();
    let other = tempfile::tempdir().unwrap();
    write(
        other.path(),
        "session-state/zzz/events.jsonl",
        ev(
            "user.message",
            1,
            "2026-01-01T00:00:00Z",
            json!({"content": "elsewhere"}),
        ),
    );
    let mut e = env(h.path());
    e.set("COPILOT_HOME", other.path().to_str().unwrap());
    let c = client();
    let ids: Vec<_> = c
        .list(e, "copilot", &list_options(&json!({})).unwrap())
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    // COPILOT_HOME replaces ~/.copilot; the spec's path stays the last fallback.
    assert_eq!(ids, ["zzz", "spec-1"]);
    let mut opts = ClientOptions::default();
    opts.session_dirs
        .insert("copilot".into(), other.path().join("session-state"));
    let c = Client::new(opts);
    let s = c.get(env(h.path()), "copilot", "zzz").unwrap();
    assert_eq!(s.summary.title, "elsewhere");
    assert_eq!(
        c.get(env(h.path()), "copilot", CID).unwrap_err().code,
        ErrorCode::SessionNotFound
    );
}

#[test]
fn bad_input_is_tolerated_by_list_and_named_by_get() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let st = ".copilot/session-state";
    let mut torn = current_events();
    torn.push_str("{\"type\":\"assistant.message\",\"data\":{\"content\":\"hal");
    write(h, &format!("{st}/{CID}/events.jsonl"), torn);
    write(h, &format!("{st}/empty-1/events.jsonl"), "");
    write(h, &format!("{st}/garbage-1.jsonl"), "\u{2028}nope\n{]\n");
    write(
        h,
        ".copilot/history-session-state/torn-doc.json",
        "{\"chatMessages\": [",
    );
    let mut bytes = ev(
        "session.start",
        1,
        "2026-01-01T00:00:00Z",
        json!({"sessionId": "bytes-1"}),
    )
    .into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"user.message\",\"data\":{\"content\":\"na\xefve\"},\"id\":\"e2\",\"timestamp\":\"2026-01-01T00:00:01Z\"}\n");
    write(h, &format!("{st}/bytes-1/events.jsonl"), bytes);
    std::fs::create_dir_all(h.join(format!("{st}/dir-1/events.jsonl"))).unwrap();
    let snap = snapshot(h);

    let c = client();
    let mut ids: Vec<_> = c
        .list(env(h), "copilot", &list_options(&json!({})).unwrap())
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    ids.sort();
    assert_eq!(ids, [CID, "bytes-1"]);
    assert_eq!(c.cache().skipped().len(), 3, "{:?}", c.cache().skipped());
    assert_eq!(
        c.get(env(h), "copilot", CID).unwrap().summary.message_count,
        10
    );
    assert_eq!(
        c.get(env(h), "copilot", "bytes-1").unwrap().messages[0].content,
        "na\u{fffd}ve"
    );
    for (id, file) in [
        ("empty-1", "events.jsonl"),
        ("garbage-1", "garbage-1.jsonl"),
        ("torn-doc", "torn-doc.json"),
    ] {
        let e = c.get(env(h), "copilot", id).unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError, "{id}");
        assert!(e.message.contains(file), "{}", e.message);
    }
    for bad in ["dir-1", "../.copilot", "a/b", "..", "nope"] {
        assert_eq!(
            c.get(env(h), "copilot", bad).unwrap_err().code,
            ErrorCode::SessionNotFound,
            "{bad}"
        );
    }
    assert_eq!(snapshot(h), snap);
}
