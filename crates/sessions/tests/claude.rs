//! Claude Code reader: the real captures, fixture homes in the real layouts, bad input, what
//! `list` sees of its fields and files.
use crate::common;

use agent_mux_sessions::model::{Session, SessionSummary, Tokens};
use agent_mux_sessions::options::{Direction, ListOptions, ListSort};
use agent_mux_sessions::{Env, ErrorCode};
use common::{client_over, list_all, real_fixtures, role_letters, snapshot, total_tokens, write};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The summary `list` gives must agree with what `get` reads in full.
fn assert_consistent(list: &SessionSummary, full: &Session) {
    let g = &full.summary;
    assert_eq!(
        list.message_count,
        full.messages.len() as u64,
        "{}",
        g.session_id
    );
    assert_eq!(
        (
            list.message_count,
            list.turn_count,
            &list.model,
            &list.title,
            &list.cwd
        ),
        (g.message_count, g.turn_count, &g.model, &g.title, &g.cwd)
    );
    assert_eq!(
        (list.created_at, list.updated_at),
        (g.created_at, g.updated_at)
    );
    assert_eq!(list.usage, g.usage);
}

fn real_claude() -> PathBuf {
    real_fixtures().join("claude")
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_captures_are_read_exactly() {
    let dir = real_claude();
    let before = snapshot(&dir);
    let client = client_over("claude", &dir);
    let env = Env::from_pairs([]);
    let list = list_all(&client, "claude", env.clone());
    let ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f",
            "agent-sessions-stage0-small",
            "claude-code-log-representative_messages",
            "margin-session-basic-2.1.233"
        ],
        "subagent files are part of their parent, not sessions"
    );
    let get = |id: &str| client.get(env.clone(), "claude", id).unwrap();
    let summary = |id: &str| list.iter().find(|s| s.session_id == id).unwrap().clone();

    // margin 2.1.233: two API responses, each written as three/two lines repeating the usage.
    let s = get("margin-session-basic-2.1.233");
    assert_consistent(&summary("margin-session-basic-2.1.233"), &s);
    assert_eq!(role_letters(&s), "UATA");
    assert_eq!(s.summary.turn_count, 1);
    assert_eq!(
        s.summary.model.as_deref(),
        Some("claude-haiku-4-5-20251001")
    );
    assert_eq!(
        s.summary.cwd.as_deref(),
        Some("C:\\Users\\<user>\\CLEANROOM")
    );
    assert!(s
        .summary
        .title
        .starts_with("Run the bash command 'echo hello' using your Bash tool."));
    assert_eq!(s.summary.title.chars().count(), 100);
    assert_eq!(
        total_tokens(&s.summary),
        Tokens {
            input: 18,
            output: 156,
            cache_read: 55_547,
            cache_write: 11_821,
            cache_write_1h: 11_821, // the writes are one-hour cache entries
            reasoning: 156,
        },
        "output_tokens 135+177 minus thinking 49+107; cache 22820+32727 and 9907+1914, once each"
    );
    let a1 = &s.messages[1];
    assert_eq!(a1.content, "I'll run that bash command for you.");
    assert_eq!(a1.tool_calls.len(), 1);
    assert_eq!(
        a1.tool_calls[0].tool_call_id,
        "toolu_01CAFZGHQyrx8WTjhhDvCQMm"
    );
    assert_eq!(a1.tool_calls[0].tool_name, "Bash");
    assert_eq!(a1.tool_calls[0].input["command"], "echo hello");
    assert_eq!(a1.tool_calls[0].output, Some(json!("hello")));
    assert_eq!(a1.tool_calls[0].duration_ms, Some(15_249.0));
    assert_eq!(a1.thinking, None, "thinking is persisted redacted (empty)");
    let t = &s.messages[2];
    assert_eq!(t.content, "hello");
    let tr = t.tool_result.as_ref().unwrap();
    assert_eq!(
        (tr.tool_call_id.as_str(), tr.tool_name.as_str()),
        ("toolu_01CAFZGHQyrx8WTjhhDvCQMm", "Bash")
    );
    assert_eq!(
        s.raw.as_ref().unwrap().to_value().as_array().unwrap().len(),
        11
    );
    assert_eq!(
        agent_mux_sessions::model::to_iso(&s.summary.created_at),
        "2026-08-20T10:21:52.260Z"
    );

    // agent-sessions stage0: a catalogue of ~30 line types.
    let s = get("agent-sessions-stage0-small");
    assert_consistent(&summary("agent-sessions-stage0-small"), &s);
    assert_eq!(role_letters(&s), "UATTAASATUAUUUAAU");
    assert_eq!(s.summary.turn_count, 3);
    assert_eq!(s.summary.title, "Stage0 small fixture", "custom-title wins");
    assert_eq!(s.summary.model.as_deref(), Some("claude-opus-5"));
    assert_eq!(s.summary.cwd.as_deref(), Some("/tmp"));
    assert_eq!(
        total_tokens(&s.summary),
        Tokens {
            input: 10,
            output: 5,
            ..Default::default()
        }
    );
    assert_eq!(
        s.messages[1].thinking.as_deref(),
        Some("Reasoning goes here.")
    );
    assert_eq!(
        s.messages[2].tool_result.as_ref().unwrap().tool_call_id,
        "tool_use_stage0_001"
    );
    assert_eq!(
        s.messages[3].tool_result.as_ref().unwrap().tool_call_id,
        "tool_use_stage0_002"
    );
    assert_eq!(s.messages[6].content, "Summary of prior context.");
    let nested = &s.messages[7];
    assert_eq!(nested.model.as_deref(), Some("claude-opus-5"));
    assert_eq!(nested.tool_calls[0].output, Some(json!("a.txt\nb.txt\n")));
    assert!(
        s.messages
            .iter()
            .all(|m| m.model.as_deref() != Some("<synthetic>")),
        "synthetic error lines are skipped"
    );
    assert_eq!(s.messages[10].model.as_deref(), Some("claude-opus-4-8"));
    assert_eq!(
        s.messages[10].tool_calls.len(),
        1,
        "two lines of one response merged"
    );
    assert_eq!(
        s.messages[15].subagent.as_deref(),
        Some("[trimmed for fixture]")
    );
    assert_eq!(s.messages[15].model.as_deref(), Some("claude-fable-5"));
    assert_eq!(
        agent_mux_sessions::model::to_iso(&s.summary.updated_at),
        "2026-04-16T20:10:42.522Z"
    );

    // claude-code-log: one line per response, summary line as title.
    let s = get("claude-code-log-representative_messages");
    assert_consistent(&summary("claude-code-log-representative_messages"), &s);
    assert_eq!(role_letters(&s), "UAUATAUATAU");
    assert_eq!(s.summary.turn_count, 3);
    assert_eq!(s.summary.model.as_deref(), Some("claude-3-sonnet-20240229"));
    assert_eq!(
        s.summary.title,
        "User learned about Python decorators, including basic decorators and parameterized decorators. Creat"
    );
    assert_eq!(
        total_tokens(&s.summary),
        Tokens {
            input: 218,
            output: 445,
            ..Default::default()
        }
    );
    let calls: Vec<(&str, &str)> = s
        .messages
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .map(|c| (c.tool_call_id.as_str(), c.tool_name.as_str()))
        .collect();
    assert_eq!(calls, [("tool_001", "Edit"), ("tool_002", "Bash")]);
    assert_eq!(
        s.messages[8].tool_result.as_ref().unwrap().output,
        json!("Hello, Alice!\nHello, Alice!\nHello, Alice!")
    );

    // Subagent layout: the subagent transcript is part of the parent.
    let s = get("0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f");
    assert_consistent(&summary("0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"), &s);
    assert_eq!(role_letters(&s), "UAUAT");
    assert_eq!(
        s.summary.turn_count, 1,
        "a subagent's prompt is not a user turn"
    );
    assert_eq!(s.summary.title, "Delegate a repo search to a subagent");
    assert_eq!(s.summary.model, None);
    let sub: Vec<Option<&str>> = s.messages.iter().map(|m| m.subagent.as_deref()).collect();
    assert_eq!(
        sub,
        [
            None,
            None,
            Some("a0ad4f44468bdf20d"),
            Some("a0ad4f44468bdf20d"),
            Some("a0ad4f44468bdf20d")
        ]
    );
    assert_eq!(
        agent_mux_sessions::model::to_iso(&s.summary.updated_at),
        "2025-12-16T00:00:02.500Z"
    );
    assert_eq!(
        s.raw.as_ref().unwrap().to_value().as_array().unwrap().len(),
        7
    );

    assert_eq!(snapshot(&dir), before, "the captures were not modified");
}

// ---------------------------------------------------------------------------------------------
// Generated sessions in the real 2.1.x line schema.

const CWD: &str = "/home/u/app";

fn envelope(kind: &str, sid: &str, ts: &str, uuid: &str) -> Value {
    json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": CWD,
        "sessionId": sid, "version": "2.1.197", "gitBranch": "main", "type": kind,
        "uuid": uuid, "timestamp": ts, "entrypoint": "cli"})
}

fn prompt(sid: &str, ts: &str, text: &str) -> Value {
    let mut v = envelope("user", sid, ts, &format!("u-{ts}"));
    v["message"] = json!({"role": "user", "content": text});
    v["promptId"] = json!("p1");
    v
}

fn reply(sid: &str, ts: &str, model: &str, msg_id: &str, blocks: Value, usage: Value) -> Value {
    let mut v = envelope("assistant", sid, ts, &format!("a-{ts}-{msg_id}"));
    v["requestId"] = json!(format!("req_{msg_id}"));
    v["message"] = json!({"model": model, "id": msg_id, "type": "message", "role": "assistant",
        "content": blocks, "stop_reason": "end_turn", "stop_sequence": null, "usage": usage});
    v
}

fn usage(input: u64, output: u64, read: u64, write: u64) -> Value {
    json!({"input_tokens": input, "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read, "output_tokens": output,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
        "cache_creation": {"ephemeral_1h_input_tokens": write, "ephemeral_5m_input_tokens": 0}})
}

fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A simple finished session: `turns` prompts each answered, with usage and an old-style cost.
fn simple(sid: &str, day: &str, model: &str, turns: usize, cost: f64) -> String {
    let mut lines = Vec::new();
    for t in 0..turns {
        lines.push(prompt(
            sid,
            &format!("{day}T10:0{t}:00.000Z"),
            &format!("question {t} of {sid}"),
        ));
        let mut r = reply(
            sid,
            &format!("{day}T10:0{t}:30.000Z"),
            model,
            &format!("msg_{sid}_{t}"),
            json!([{"type": "text", "text": "answer"}]),
            usage(10, 20, 0, 0),
        );
        r["costUSD"] = json!(cost / turns as f64);
        lines.push(r);
    }
    jsonl(&lines)
}

const S1: &str = "11111111-1111-4111-8111-111111111111";
const S2: &str = "22222222-2222-4222-8222-222222222222";
const S3: &str = "33333333-3333-4333-8333-333333333333";
const S4: &str = "44444444-4444-4444-8444-444444444444";

/// A home with the current layout (and a subagent folder), the XDG root and a legacy sidechain.
fn fixture_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        &format!(".claude/projects/-home-u-app/{S1}.jsonl"),
        simple(S1, "2026-01-01", "claude-opus-4-5", 1, 0.5),
    );
    write(
        h,
        &format!(".claude/projects/-home-u-app/{S1}/subagents/agent-abc123.jsonl"),
        jsonl(&[
            {
                let mut p = prompt(S1, "2026-01-01T10:00:10.000Z", "sub task");
                p["isSidechain"] = json!(true);
                p["agentId"] = json!("abc123");
                p
            },
            {
                let mut r = reply(
                    S1,
                    "2026-01-01T10:00:20.000Z",
                    "claude-haiku-4-5",
                    "msg_sub_1",
                    json!([{"type": "text", "text": "sub answer"}]),
                    usage(1, 2, 3, 4),
                );
                r["isSidechain"] = json!(true);
                r["agentId"] = json!("abc123");
                r
            },
        ]),
    );
    write(
        h,
        &format!(".claude/projects/-home-u-app/{S1}/subagents/journal.jsonl"),
        "{\"type\":\"started\",\"key\":\"k\",\"agentId\":\"abc123\"}\n",
    );
    write(
        h,
        &format!(".claude/projects/-home-u-app/{S1}/subagents/agent-abc123.meta.json"),
        "{\"agentType\":\"general-purpose\",\"spawnDepth\":1}",
    );
    write(
        h,
        &format!(".claude/projects/-home-u-lib/{S2}.jsonl"),
        simple(S2, "2026-02-01", "claude-sonnet-4-5", 3, 2.0),
    );
    write(
        h,
        &format!(".config/claude/projects/-home-u-old/{S3}.jsonl"),
        simple(S3, "2025-06-01", "claude-opus-4-5", 2, 1.0),
    );
    // Old layout: a sidechain transcript beside the sessions, no link we can follow cheaply.
    write(h, ".claude/projects/-home-u-app/agent-32335b9b.jsonl", {
        let mut p = prompt(S1, "2025-12-01T09:00:00.000Z", "legacy sidechain");
        p["agentId"] = json!("32335b9b");
        jsonl(&[p])
    });
    home
}

#[test]
fn fixture_home_layouts_and_subagents() {
    let home = fixture_home();
    let h = home.path();
    let before = snapshot(h);
    let client = common::client();
    // By default a list folds the older layout's sidechain file under the session it names.
    let folded = list_all(&client, "claude", Env::with_home(h));
    let mut ids: Vec<&str> = folded.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, [S1, S2, S3]);
    let every = ListOptions {
        limit: 1000,
        subagents: true,
        ..Default::default()
    };
    let list = client.list(Env::with_home(h), "claude", &every).unwrap();
    let mut ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, [S1, S2, S3, "agent-32335b9b"]);

    let s1 = list.iter().find(|s| s.session_id == S1).unwrap();
    assert_eq!(s1.message_count, 4, "2 parent + 2 subagent messages");
    assert_eq!(s1.turn_count, 1);
    assert_eq!(s1.cwd.as_deref(), Some(CWD));
    assert_eq!(s1.title, format!("question 0 of {S1}"));
    assert_eq!(
        total_tokens(s1),
        Tokens {
            input: 11,
            output: 22,
            cache_read: 3,
            cache_write: 4,
            cache_write_1h: 4, // the writes are one-hour cache entries
            reasoning: 0,
        },
        "subagent usage is added to the parent"
    );
    // costUSD of old lines is the native cost of the main model; the subagent's model has no
    // recorded cost, so the cost engine adds its estimate (a few hundred tokens: well under $0.001).
    let total = s1.cost.as_ref().unwrap().total_usd;
    assert!(
        total > 0.5 && total < 0.501,
        "native 0.5 plus the subagent's estimate, got {total}"
    );
    let full = client.get(Env::with_home(h), "claude", S1).unwrap();
    assert_consistent(s1, &full);
    assert_eq!(role_letters(&full), "UUAA");
    let subs: Vec<Option<&str>> = full
        .messages
        .iter()
        .map(|m| m.subagent.as_deref())
        .collect();
    assert_eq!(
        subs,
        [None, Some("abc123"), Some("abc123"), None],
        "subagent run placed by time"
    );

    // CLAUDE_CONFIG_DIR (a comma list, one entry ending in /projects) replaces ~/.claude.
    let other = tempfile::tempdir().unwrap();
    write(
        other.path(),
        &format!("projects/-x/{S4}.jsonl"),
        simple(S4, "2026-03-01", "claude-opus-4-5", 1, 0.1),
    );
    let env = Env::from_pairs([
        ("HOME", h.to_str().unwrap()),
        (
            "CLAUDE_CONFIG_DIR",
            &format!("{}/projects, /nonexistent", other.path().display()),
        ),
    ]);
    let mut ids: Vec<String> = (client.list(env.clone(), "claude", &every).unwrap())
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    ids.sort();
    assert_eq!(ids, [S1, S2, S3, S4, "agent-32335b9b"].map(String::from));
    assert_eq!(
        client.get(env, "claude", S4).unwrap().summary.message_count,
        2
    );

    // The sessionDirs override replaces every default root.
    let c2 = client_over("claude", other.path());
    let ids: Vec<String> = list_all(&c2, "claude", Env::with_home(h))
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(ids, [S4]);
    assert_eq!(
        c2.get(Env::with_home(h), "claude", S1).unwrap_err().code,
        ErrorCode::SessionNotFound
    );

    assert_eq!(snapshot(h), before, "reading never writes into the store");
}

#[test]
fn split_response_usage_counts_once_keeping_the_largest() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let m = "claude-opus-4-5";
    let lines = vec![
        prompt(S1, "2026-01-01T10:00:00.000Z", "go"),
        // Streamed partial (output 1), then the final usage, then a tool_use line of the same id.
        reply(
            S1,
            "2026-01-01T10:00:01.000Z",
            m,
            "msg_a",
            json!([{"type": "thinking", "thinking": "plan", "signature": "x"}]),
            usage(5, 1, 100, 50),
        ),
        reply(
            S1,
            "2026-01-01T10:00:02.000Z",
            m,
            "msg_a",
            json!([{"type": "text", "text": "running"}]),
            {
                let mut u = usage(5, 1130, 100, 50);
                u["output_tokens_details"] = json!({"thinking_tokens": 30});
                u
            },
        ),
        reply(
            S1,
            "2026-01-01T10:00:03.000Z",
            m,
            "msg_a",
            json!([{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}]),
            usage(5, 1, 100, 50),
        ),
        {
            let mut v = envelope("user", S1, "2026-01-01T10:00:04.500Z", "u-tr");
            v["message"] = json!({"role": "user", "content": [{"tool_use_id": "toolu_1", "type": "tool_result", "content": [{"type": "text", "text": "line1"}, {"type": "text", "text": "line2"}], "is_error": false}]});
            v["toolUseResult"] = json!({"stdout": "line1\nline2"});
            v
        },
        reply(
            S1,
            "2026-01-01T10:00:05.000Z",
            "<synthetic>",
            "msg_err",
            json!([{"type": "text", "text": "API Error"}]),
            usage(0, 0, 0, 0),
        ),
        {
            let mut v = envelope("user", S1, "2026-01-01T10:00:06.000Z", "u-cmd");
            v["message"] =
                json!({"role": "user", "content": "<command-name>/clear</command-name>"});
            v
        },
        {
            let mut v = envelope("user", S1, "2026-01-01T10:00:07.000Z", "u-meta");
            v["isMeta"] = json!(true);
            v["message"] = json!({"role": "user", "content": "Caveat: injected"});
            v
        },
        json!({"type": "ai-title", "sessionId": S1, "aiTitle": "Reading a file"}),
    ];
    write(h, &format!(".claude/projects/-p/{S1}.jsonl"), jsonl(&lines));
    let client = common::client();
    let s = client.get(Env::with_home(h), "claude", S1).unwrap();
    assert_eq!(role_letters(&s), "UATSS");
    assert_eq!(s.summary.title, "Reading a file");
    let a = &s.messages[1];
    assert_eq!(a.content, "running");
    assert_eq!(a.thinking.as_deref(), Some("plan"));
    assert_eq!(a.tool_calls[0].output, Some(json!("line1\nline2")));
    assert_eq!(a.tool_calls[0].duration_ms, Some(1500.0));
    assert_eq!(
        a.tokens,
        Some(Tokens {
            input: 5,
            output: 1100,
            cache_read: 100,
            cache_write: 50,
            cache_write_1h: 50, // the writes are one-hour cache entries
            reasoning: 30,
        })
    );
    assert_eq!(total_tokens(&s.summary), a.tokens.unwrap());
    let list = list_all(&client, "claude", Env::with_home(h));
    assert_consistent(&list[0], &s);
}

#[test]
fn forked_from_metadata_and_replayed_parent_id() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // An older --resume file: its first lines replay the parent with the parent's sessionId.
    write(
        h,
        &format!(".claude/projects/-p/{S2}.jsonl"),
        jsonl(&[
            prompt(S1, "2026-01-01T10:00:00.000Z", "old prompt"),
            prompt(S2, "2026-01-02T10:00:00.000Z", "new prompt"),
        ]),
    );
    // A line naming its origin explicitly.
    let mut first = prompt(S3, "2026-01-03T10:00:00.000Z", "forked");
    first["forkedFrom"] = json!({"sessionId": S4, "messageUuid": "m1"});
    write(
        h,
        &format!(".claude/projects/-p/{S3}.jsonl"),
        jsonl(&[first]),
    );
    let client = common::client();
    let list = list_all(&client, "claude", Env::with_home(h));
    let by = |id: &str| {
        list.iter()
            .find(|s| s.session_id == id)
            .unwrap()
            .forked_from
            .clone()
    };
    assert_eq!(by(S2).as_deref(), Some(S1));
    assert_eq!(by(S3).as_deref(), Some(S4));
}

#[test]
fn bad_input_is_tolerated_by_list_and_named_by_get() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let p = ".claude/projects/-p";
    let good = simple(S1, "2026-01-01", "claude-opus-4-5", 1, 0.0);
    // Torn last line (the agent is writing it).
    write(
        h,
        &format!("{p}/{S1}.jsonl"),
        format!("{good}{{\"type\":\"user\",\"message\":{{\"ro"),
    );
    // Empty file.
    write(h, &format!("{p}/{S2}.jsonl"), "");
    // Unknown line type and non-UTF-8 bytes (0xE9 is Latin-1 é, invalid as UTF-8).
    let mut odd = jsonl(&[
        json!({"type": "brand-new-type", "sessionId": S3, "timestamp": "2026-01-03T00:00:00.000Z"}),
    ])
    .into_bytes();
    let user = format!("{{\"type\":\"user\",\"sessionId\":\"{S3}\",\"timestamp\":\"2026-01-03T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"caf@ ol@\"}}}}\n");
    odd.extend(user.bytes().map(|b| if b == b'@' { 0xE9 } else { b }));
    write(h, &format!("{p}/{S3}.jsonl"), &odd);
    // A 50 MB single line (a huge pasted prompt).
    let big = "x".repeat(50 * 1024 * 1024);
    write(
        h,
        &format!("{p}/{S4}.jsonl"),
        jsonl(&[prompt(S4, "2026-01-04T00:00:00.000Z", &big)]),
    );
    // A directory named like a session file, and garbage-only content.
    std::fs::create_dir_all(h.join(format!("{p}/55555555-5555-4555-8555-555555555555.jsonl")))
        .unwrap();
    write(
        h,
        &format!("{p}/66666666-6666-4666-8666-666666666666.jsonl"),
        "not json\n{also not\n",
    );
    // An unreadable file.
    let locked = write(
        h,
        &format!("{p}/77777777-7777-4777-8777-777777777777.jsonl"),
        simple("x", "2026-01-07", "m", 1, 0.0),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    }
    let as_root = std::fs::read(&locked).is_ok();

    let before = snapshot(h);
    let client = common::client();
    let env = Env::with_home(h);
    let list = list_all(&client, "claude", env.clone());
    let mut ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort();
    let mut want = vec![S1, S3, S4];
    if as_root {
        want.push("77777777-7777-4777-8777-777777777777");
    }
    assert_eq!(
        ids, want,
        "empty, garbage and unreadable files are skipped, never fatal"
    );
    let skipped: Vec<String> = client
        .cache()
        .skipped()
        .iter()
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(skipped.iter().any(|p| p.ends_with(&format!("{S2}.jsonl"))));
    assert!(skipped
        .iter()
        .any(|p| p.ends_with("66666666-6666-4666-8666-666666666666.jsonl")));

    let torn = client.get(env.clone(), "claude", S1).unwrap();
    assert_eq!(role_letters(&torn), "UA");
    let utf = client.get(env.clone(), "claude", S3).unwrap();
    assert_eq!(utf.messages[0].content, "caf\u{fffd} ol\u{fffd}");
    assert_eq!(utf.summary.title, "caf\u{fffd} ol\u{fffd}");
    let huge = list.iter().find(|s| s.session_id == S4).unwrap();
    assert_eq!((huge.message_count, huge.title.len()), (1, 100));

    for (id, what) in [
        (S2, format!("{S2}.jsonl")),
        (
            "66666666-6666-4666-8666-666666666666",
            "66666666-6666-4666-8666-666666666666.jsonl".to_string(),
        ),
    ] {
        let e = client.get(env.clone(), "claude", id).unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError, "{id}");
        assert!(e.message.contains(&what), "{}", e.message);
    }
    if !as_root {
        let e = client
            .get(
                env.clone(),
                "claude",
                "77777777-7777-4777-8777-777777777777",
            )
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError);
        assert!(e
            .message
            .contains("77777777-7777-4777-8777-777777777777.jsonl"));
    }
    let e = client
        .get(
            env.clone(),
            "claude",
            "55555555-5555-4555-8555-555555555555",
        )
        .unwrap_err();
    assert_eq!(
        e.code,
        ErrorCode::SessionNotFound,
        "a directory is not a session"
    );
    for bad in ["../-p/x", "..", "a/b", "a\\b", "/etc/passwd", "x\0y"] {
        assert_eq!(
            client.get(env.clone(), "claude", bad).unwrap_err().code,
            ErrorCode::SessionNotFound,
            "{bad:?}"
        );
    }
    assert_eq!(snapshot(h), before);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
}

#[test]
/// Claude's dates, models (a subagent's too), cwd, native cost and turns as `list` sees them, and
/// a subagent file as part of its session's source. (Filters, sort and limit themselves: list.rs.)
fn list_sees_claudes_fields_and_subagent_files() {
    let home = fixture_home();
    let h = home.path();
    let client = common::client();
    let env = Env::with_home(h);
    let ids = |opts: ListOptions| -> Vec<String> {
        client
            .list(env.clone(), "claude", &opts)
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    let ms = |s: &str| agent_mux_sessions::model::parse_time_str(s).unwrap();
    // Every session, the sidechain file too (a default list folds it under its parent).
    let base = ListOptions {
        limit: 100,
        subagents: true,
        ..Default::default()
    };

    // Default: date (updatedAt) descending.
    assert_eq!(ids(base.clone()), [S2, S1, "agent-32335b9b", S3]);
    // since/until bound createdAt.
    let mut o = base.clone();
    o.filters.since = Some(ms("2025-12-31T00:00:00Z"));
    assert_eq!(ids(o.clone()), [S2, S1]);
    o.filters.until = Some(ms("2026-01-15T00:00:00Z"));
    assert_eq!(ids(o), [S1]);
    // model matches the primary model or any model used (the subagent's haiku).
    let mut o = base.clone();
    o.filters.model = Some("claude-opus-4-5".into());
    assert_eq!(ids(o.clone()), [S1, S3]);
    o.filters.model = Some("claude-haiku-4-5".into());
    assert_eq!(ids(o), [S1]);
    // cwd (trailing slash ignored).
    let mut o = base.clone();
    o.filters.cwd = Some(format!("{CWD}/"));
    assert_eq!(ids(o).len(), 4);
    let mut o = base.clone();
    o.filters.cwd = Some("/elsewhere".into());
    assert!(ids(o).is_empty());
    // cost (native costUSD) and turns.
    let by = |sort, direction| ListOptions {
        sort,
        direction,
        ..base.clone()
    };
    assert_eq!(
        ids(by(ListSort::Cost, Direction::Desc)),
        [S2, S3, S1, "agent-32335b9b"]
    );
    assert_eq!(
        ids(by(ListSort::Turns, Direction::Desc)),
        [S2, S3, S1, "agent-32335b9b"]
    );
    // A cut returns what the whole list begins with, priced (prices come after the cut unless
    // the sort needs them first).
    let whole = client.list(env.clone(), "claude", &base).unwrap();
    let cut = ListOptions {
        limit: 2,
        ..base.clone()
    };
    assert_eq!(
        client.list(env.clone(), "claude", &cut).unwrap(),
        whole[..2]
    );
    assert!(whole[0].cost.as_ref().is_some_and(|c| c.total_usd > 0.0));
    let cut_by_cost = ListOptions {
        limit: 2,
        ..by(ListSort::Cost, Direction::Desc)
    };
    assert_eq!(ids(cut_by_cost), [S2, S3]);
    // Every call above after the first was served from the cache: 4 sources, read once.
    assert_eq!(client.cache().reads(), 4);
    // Touching one file (a new line) re-reads only that one; a new subagent file counts too.
    let f = h.join(format!(".claude/projects/-home-u-lib/{S2}.jsonl"));
    let mut text = std::fs::read_to_string(&f).unwrap();
    text.push_str(&format!(
        "{}\n",
        prompt(S2, "2026-02-02T00:00:00.000Z", "more")
    ));
    std::fs::write(&f, text).unwrap();
    write(
        h,
        &format!(".claude/projects/-home-u-app/{S1}/subagents/agent-def456.jsonl"),
        jsonl(&[prompt(S1, "2026-01-01T10:00:40.000Z", "second sub")]),
    );
    let list = client.list(env.clone(), "claude", &base).unwrap();
    assert_eq!(client.cache().reads(), 6);
    assert_eq!(
        list.iter()
            .find(|s| s.session_id == S1)
            .unwrap()
            .message_count,
        5
    );
    assert_eq!(
        list.iter()
            .find(|s| s.session_id == S2)
            .unwrap()
            .message_count,
        7
    );
}
