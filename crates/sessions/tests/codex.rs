//! Codex reader: the real captures, fixture homes in the real layouts (dated, archived, .zst),
//! token accounting, bad input, what `list` sees of its fields.
use crate::common;

use agent_mux_sessions::model::{to_iso, Session, SessionSummary, Tokens};
use agent_mux_sessions::options::{Direction, ListOptions, ListSort};
use agent_mux_sessions::{Env, ErrorCode};
use common::{
    client_over, list_all, place, real_fixtures, role_letters, snapshot, total_tokens, write,
};
use serde_json::{json, Value};
use std::path::PathBuf;

fn assert_consistent(list: &SessionSummary, full: &Session) {
    let g = &full.summary;
    assert_eq!(list.message_count, full.messages.len() as u64);
    assert_eq!(
        (
            list.message_count,
            list.turn_count,
            &list.model,
            &list.title,
            &list.cwd,
            &list.forked_from
        ),
        (
            g.message_count,
            g.turn_count,
            &g.model,
            &g.title,
            &g.cwd,
            &g.forked_from
        )
    );
    assert_eq!(
        (list.created_at, list.updated_at),
        (g.created_at, g.updated_at)
    );
    assert_eq!(list.usage, g.usage);
}

fn real_codex() -> PathBuf {
    real_fixtures().join("codex")
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_captures_are_read_exactly() {
    let dir = real_codex();
    let before = snapshot(&dir);
    let client = client_over("codex", &dir);
    let env = Env::from_pairs([]);
    let list = list_all(&client, "codex", env.clone());
    let mut ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "agent-sessions-codex_053_rate_limit",
            "margin-session-basic-0.146.0",
            "margin-session-reasoning"
        ]
    );
    let get = |id: &str| client.get(env.clone(), "codex", id).unwrap();
    let summary = |id: &str| list.iter().find(|s| s.session_id == id).unwrap().clone();

    // margin 0.146.0 `codex exec`: 3 developer messages + injected environment context.
    let s = get("margin-session-basic-0.146.0");
    assert_consistent(&summary("margin-session-basic-0.146.0"), &s);
    assert_eq!(role_letters(&s), "SSSSUATA");
    assert_eq!(s.summary.turn_count, 1);
    assert_eq!(s.summary.model.as_deref(), Some("gpt-5.6-sol"));
    assert_eq!(
        s.summary.title,
        "Read sample.py. Name two edge cases slugify mishandles. Be brief."
    );
    assert_eq!(
        s.summary.cwd.as_deref(),
        Some("C:\\Users\\<user>\\CLEANROOM\\work\\fixture-gen")
    );
    assert_eq!(to_iso(&s.summary.created_at), "2026-08-20T11:16:42.940Z");
    assert_eq!(to_iso(&s.summary.updated_at), "2026-08-20T11:16:52.823Z");
    // Final cumulative total: input 32149 of which 15104 cached; output 126, no reasoning.
    assert_eq!(
        total_tokens(&s.summary),
        Tokens {
            input: 17_045,
            output: 126,
            cache_read: 15_104,
            cache_write: 0,
            reasoning: 0,
            ..Default::default()
        }
    );
    let call = &s.messages[5].tool_calls[0];
    assert_eq!(
        (call.tool_call_id.as_str(), call.tool_name.as_str()),
        ("call_CEDrC607Pk4hXucXu6nZPFbF", "exec")
    );
    assert!(call
        .input
        .as_str()
        .unwrap()
        .starts_with("const r = await tools.shell_command("));
    let out = "Script completed\nWall time 0.9 seconds\nOutput:\n\nExit code: 0\nWall time: 0.4 seconds\nOutput:\ndef slugify(s):\r\n    return s.lower().replace(\" \", \"-\")\r\n";
    assert_eq!(call.output, Some(json!(out)));
    assert_eq!(s.messages[6].content, out);
    assert_eq!(
        s.messages[6].tool_result.as_ref().unwrap().tool_name,
        "exec"
    );
    assert_eq!(
        s.messages[5].tokens,
        Some(Tokens {
            input: 16_007,
            output: 80,
            ..Default::default()
        })
    );
    assert_eq!(
        s.messages[7].tokens,
        Some(Tokens {
            input: 1_038,
            output: 46,
            cache_read: 15_104,
            ..Default::default()
        })
    );
    assert_eq!(s.messages[7].model.as_deref(), Some("gpt-5.6-sol"));
    assert_eq!(
        s.raw.as_ref().unwrap().to_value().as_array().unwrap().len(),
        19
    );

    // margin reasoning: event_msg-heavy; one response_item; totals repeat (skipped).
    let s = get("margin-session-reasoning");
    assert_consistent(&summary("margin-session-reasoning"), &s);
    assert_eq!(role_letters(&s), "A");
    assert_eq!(s.summary.turn_count, 0);
    assert_eq!(s.summary.title, "");
    assert_eq!(
        s.summary.model, None,
        "no turn_context: no model is invented"
    );
    assert_eq!(
        total_tokens(&s.summary),
        Tokens {
            input: 291_770,
            output: 21_946,
            cache_read: 5_857_024,
            cache_write: 0,
            reasoning: 15_528,
            ..Default::default()
        }
    );
    assert_eq!(
        s.raw.as_ref().unwrap().to_value().as_array().unwrap().len(),
        156
    );

    // agent-sessions 0.53: one real token_count, then a rate-limit-only one (info: null).
    let s = get("agent-sessions-codex_053_rate_limit");
    assert_consistent(&summary("agent-sessions-codex_053_rate_limit"), &s);
    assert_eq!(s.messages.len(), 0);
    assert_eq!(s.summary.cwd.as_deref(), Some("/tmp/test"));
    assert_eq!(
        total_tokens(&s.summary),
        Tokens {
            input: 1_211,
            output: 54,
            cache_read: 10_880,
            cache_write: 0,
            reasoning: 128,
            ..Default::default()
        }
    );
    assert_eq!(snapshot(&dir), before);
}

// ---------------------------------------------------------------------------------------------
// Generated rollouts in the real 0.146–0.169 line schema.

fn line(ts: &str, kind: &str, payload: Value) -> Value {
    json!({"timestamp": ts, "type": kind, "payload": payload})
}

fn meta(ts: &str, id: &str, extra: Value) -> Value {
    let mut p = json!({"session_id": id, "id": id, "timestamp": ts, "cwd": "/work/app",
        "originator": "codex_exec", "cli_version": "0.169.0", "source": "exec",
        "thread_source": "user", "model_provider": "openai",
        "base_instructions": {"text": "You are Codex."}, "history_mode": "paginated"});
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    line(ts, "session_meta", p)
}

fn turn_context(ts: &str, model: &str) -> Value {
    line(
        ts,
        "turn_context",
        json!({"turn_id": "t1", "cwd": "/work/app", "approval_policy": "never",
        "sandbox_policy": {"type": "read-only"}, "model": model, "effort": "medium", "summary": "auto"}),
    )
}

fn msg(ts: &str, role: &str, text: &str) -> Value {
    let kind = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    line(
        ts,
        "response_item",
        json!({"type": "message", "role": role,
        "content": [{"type": kind, "text": text}]}),
    )
}

fn usage(input: u64, cached: u64, output: u64, reasoning: u64) -> Value {
    json!({"input_tokens": input, "cached_input_tokens": cached, "cache_write_input_tokens": 0,
        "output_tokens": output, "reasoning_output_tokens": reasoning,
        "total_tokens": input + output})
}

fn token_count(ts: &str, total: Value, last: Value) -> Value {
    line(
        ts,
        "event_msg",
        json!({"type": "token_count",
        "info": {"total_token_usage": total, "last_token_usage": last, "model_context_window": 258400},
        "rate_limits": {"limit_id": "codex", "primary": {"used_percent": 4, "window_minutes": 10080}}}),
    )
}

fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A session with `turns` prompts each answered, every answer using 100 input / 10 output tokens.
fn simple(id: &str, day: &str, model: &str, turns: u64, cwd: &str) -> String {
    let mut lines = vec![meta(
        &format!("{day}T08:00:00.000Z"),
        id,
        json!({"cwd": cwd}),
    )];
    lines.push(turn_context(&format!("{day}T08:00:00.100Z"), model));
    lines.push(msg(
        &format!("{day}T08:00:00.200Z"),
        "user",
        "<environment_context>\n  <cwd>/work/app</cwd>\n</environment_context>",
    ));
    for t in 0..turns {
        lines.push(msg(
            &format!("{day}T08:0{t}:01.000Z"),
            "user",
            &format!("task {t} for {id}"),
        ));
        lines.push(msg(&format!("{day}T08:0{t}:02.000Z"), "assistant", "done"));
        lines.push(token_count(
            &format!("{day}T08:0{t}:02.500Z"),
            usage(100 * (t + 1), 0, 10 * (t + 1), 0),
            usage(100, 0, 10, 0),
        ));
    }
    jsonl(&lines)
}

const A: &str = "01a01ee3-393c-7cb1-818e-268d8e2ae938";
const B: &str = "01a01ee3-393c-7cb1-818e-268d8e2ae939";
const C: &str = "01a01ee3-393c-7cb1-818e-268d8e2ae93a";
const D: &str = "01a01ee3-393c-7cb1-818e-268d8e2ae93b";

fn rollout(day: &str, id: &str) -> String {
    let (y, m, d) = (&day[..4], &day[5..7], &day[8..10]);
    format!("{y}/{m}/{d}/rollout-{day}T08-00-00-{id}.jsonl")
}

fn zst(text: &str) -> Vec<u8> {
    zstd::stream::encode_all(text.as_bytes(), 3).unwrap()
}

fn fixture_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        &format!(".codex/sessions/{}", rollout("2026-08-20", A)),
        simple(A, "2026-08-20", "gpt-5.5", 1, "/work/app"),
    );
    write(
        h,
        &format!(
            ".codex/archived_sessions/{}",
            rollout("2026-07-01", B).rsplit('/').next().unwrap()
        ),
        simple(B, "2026-07-01", "gpt-5.4", 3, "/work/lib"),
    );
    // Both a plain and a compressed copy: the plain one is read (it has 2 turns, the .zst 1).
    let c = rollout("2026-08-21", C);
    write(
        h,
        &format!(".codex/sessions/{c}"),
        simple(C, "2026-08-21", "gpt-5.5", 2, "/work/app"),
    );
    write(
        h,
        &format!(".codex/sessions/{c}.zst"),
        zst(&simple(C, "2026-08-21", "gpt-5.5", 1, "/work/app")),
    );
    // Only compressed.
    write(
        h,
        &format!(".codex/sessions/{}.zst", rollout("2026-08-22", D)),
        zst(&simple(D, "2026-08-22", "gpt-5.5", 2, "/work/app")),
    );
    // The spec's flat path.
    write(
        h,
        ".codex/sessions/flat-session.jsonl",
        simple("flat-session", "2026-06-01", "gpt-5", 1, "/work/app"),
    );
    home
}

#[test]
fn fixture_home_layouts_compressed_and_archived() {
    let home = fixture_home();
    let h = home.path();
    let before = snapshot(h);
    let client = common::client();
    let env = Env::with_home(h);
    let list = list_all(&client, "codex", env.clone());
    let mut ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, [A, B, C, D, "flat-session"]);
    let by = |id: &str| list.iter().find(|s| s.session_id == id).unwrap().clone();
    assert_eq!(by(C).turn_count, 2, "the plain copy wins over the .zst");
    assert_eq!(by(D).turn_count, 2, "a .zst alone is decompressed");
    assert_eq!(by(B).turn_count, 3);
    assert_eq!(by(B).cwd.as_deref(), Some("/work/lib"));
    assert_eq!(by(A).model.as_deref(), Some("gpt-5.5"));
    assert_eq!(by(A).title, format!("task 0 for {A}"));
    assert_eq!(
        total_tokens(&by(B)),
        Tokens {
            input: 300,
            output: 30,
            ..Default::default()
        }
    );
    for id in [A, B, C, D, "flat-session"] {
        let s = client.get(env.clone(), "codex", id).unwrap();
        assert_consistent(&by(id), &s);
    }
    assert_eq!(
        role_letters(&client.get(env.clone(), "codex", D).unwrap()),
        "SUAUA"
    );

    // CODEX_HOME (comma list) replaces ~/.codex; the sessionDirs override replaces both.
    let other = tempfile::tempdir().unwrap();
    let from = h.join(format!(".codex/sessions/{}", rollout("2026-08-20", A)));
    place(
        other.path(),
        &format!(
            "sessions/{}",
            rollout("2026-09-01", "01a01ee3-0000-7000-8000-000000000001")
        ),
        &from,
    );
    let env2 = Env::from_pairs([
        ("HOME", h.to_str().unwrap()),
        (
            "CODEX_HOME",
            &format!("/nonexistent,{}", other.path().display()),
        ),
    ]);
    let ids: Vec<String> = list_all(&client, "codex", env2)
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(ids, ["01a01ee3-0000-7000-8000-000000000001"]);
    let c2 = client_over("codex", &h.join(".codex/archived_sessions"));
    let ids: Vec<String> = list_all(&c2, "codex", env.clone())
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(ids, [B]);
    assert_eq!(
        c2.get(env, "codex", A).unwrap_err().code,
        ErrorCode::SessionNotFound
    );
    assert_eq!(snapshot(h), before);
}

#[test]
fn tool_calls_reasoning_and_rollback() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let lines = vec![
        meta("2026-08-20T08:00:00.000Z", A, json!({})),
        line(
            "2026-08-20T08:00:00.050Z",
            "response_item",
            json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>read-only"}]}),
        ),
        turn_context("2026-08-20T08:00:00.100Z", "gpt-5.5"),
        msg("2026-08-20T08:00:01.000Z", "user", "run the tests"),
        line(
            "2026-08-20T08:00:01.500Z",
            "event_msg",
            json!({"type": "user_message", "message": "run the tests", "images": []}),
        ),
        line(
            "2026-08-20T08:00:02.000Z",
            "response_item",
            json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Planning**"}], "content": null, "encrypted_content": "gAAAA"}),
        ),
        line(
            "2026-08-20T08:00:02.100Z",
            "response_item",
            json!({"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"cargo test\"}", "call_id": "call_1", "status": "completed"}),
        ),
        line(
            "2026-08-20T08:00:03.000Z",
            "response_item",
            json!({"type": "function_call_output", "call_id": "call_1", "output": "Chunk ID: 1\nWall time: 0.1\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nok"}),
        ),
        line(
            "2026-08-20T08:00:03.500Z",
            "event_msg",
            json!({"type": "agent_message", "message": "All green."}),
        ),
        msg("2026-08-20T08:00:03.500Z", "assistant", "All green."),
        token_count(
            "2026-08-20T08:00:04.000Z",
            usage(1000, 200, 50, 20),
            usage(1000, 200, 50, 20),
        ),
        // A rate-limit refresh repeats the same total: not counted again.
        token_count(
            "2026-08-20T08:00:04.100Z",
            usage(1000, 200, 50, 20),
            usage(1000, 200, 50, 20),
        ),
        msg("2026-08-20T08:00:05.000Z", "user", "now deploy"),
        msg("2026-08-20T08:00:06.000Z", "assistant", "Deploying."),
        token_count(
            "2026-08-20T08:00:06.500Z",
            usage(1500, 400, 80, 30),
            usage(500, 200, 30, 10),
        ),
        line(
            "2026-08-20T08:00:07.000Z",
            "event_msg",
            json!({"type": "thread_rolled_back", "num_turns": 1}),
        ),
        // After a resume the cumulative totals restart: the event's own last usage counts.
        token_count(
            "2026-08-20T08:00:08.000Z",
            usage(300, 0, 5, 0),
            usage(300, 0, 5, 0),
        ),
    ];
    write(
        h,
        &format!(".codex/sessions/{}", rollout("2026-08-20", A)),
        jsonl(&lines),
    );
    let client = common::client();
    let s = client.get(Env::with_home(h), "codex", A).unwrap();
    assert_eq!(role_letters(&s), "SUATA", "the rolled-back turn is gone");
    assert_eq!(s.summary.turn_count, 1);
    let a = &s.messages[2];
    assert_eq!(a.thinking.as_deref(), Some("**Planning**"));
    assert_eq!(a.tool_calls[0].tool_name, "exec_command");
    assert_eq!(a.tool_calls[0].input, json!({"cmd": "cargo test"}));
    assert!(a.tool_calls[0]
        .output
        .as_ref()
        .unwrap()
        .as_str()
        .unwrap()
        .ends_with("Output:\nok"));
    assert_eq!(
        s.messages[3].tool_result.as_ref().unwrap().tool_call_id,
        "call_1"
    );
    assert_eq!(s.messages[4].content, "All green.");
    // 1000/200/50/20, +500/200/30/10, +300 after the reset; rolled-back tokens were still spent.
    assert_eq!(
        total_tokens(&s.summary),
        Tokens {
            input: 1400,
            output: 55,
            cache_read: 400,
            cache_write: 0,
            reasoning: 30,
            ..Default::default()
        }
    );
    let list = list_all(&client, "codex", Env::with_home(h));
    assert_consistent(&list[0], &s);
}

#[test]
fn forked_and_spawned_threads_do_not_recount_the_parent() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // 0.169 fork: no history copied, totals start from the parent's (900 in / 50 out).
    write(
        h,
        &format!(".codex/sessions/{}", rollout("2026-08-20", B)),
        jsonl(&[
            meta(
                "2026-08-20T09:00:00.000Z",
                B,
                json!({"forked_from_id": A, "forked_from_ordinal_exclusive": 40,
            "history_base": {"thread_id": A, "end_ordinal_exclusive": 40, "end_byte_offset": 12345}}),
            ),
            turn_context("2026-08-20T09:00:00.100Z", "gpt-5.5"),
            msg("2026-08-20T09:00:05.000Z", "user", "try another way"),
            msg("2026-08-20T09:00:09.000Z", "assistant", "ok"),
            token_count(
                "2026-08-20T09:00:10.000Z",
                usage(1000, 0, 60, 0),
                usage(100, 0, 10, 0),
            ),
            token_count(
                "2026-08-20T09:00:20.000Z",
                usage(1200, 0, 80, 0),
                usage(200, 0, 20, 0),
            ),
        ]),
    );
    // An older spawned subagent: the parent's events replayed in a burst at start.
    write(
        h,
        &format!(".codex/sessions/{}", rollout("2026-08-20", C)),
        jsonl(&[
            meta(
                "2026-08-20T10:00:00.000Z",
                C,
                json!({"source": {"subagent": {"thread_spawn": {"parent_thread_id": A, "depth": 1, "agent_nickname": "scout", "agent_role": "explorer"}}}, "thread_source": "subagent"}),
            ),
            token_count(
                "2026-08-20T10:00:00.010Z",
                usage(500, 0, 20, 0),
                usage(500, 0, 20, 0),
            ),
            token_count(
                "2026-08-20T10:00:00.020Z",
                usage(800, 0, 40, 0),
                usage(300, 0, 20, 0),
            ),
            turn_context("2026-08-20T10:00:01.000Z", "gpt-5.5-mini"),
            msg("2026-08-20T10:00:02.000Z", "user", "scan the repo"),
            msg("2026-08-20T10:00:06.000Z", "assistant", "found 3"),
            token_count(
                "2026-08-20T10:00:06.500Z",
                usage(1000, 100, 55, 5),
                usage(200, 100, 15, 5),
            ),
        ]),
    );
    let client = common::client();
    let list = list_all(&client, "codex", Env::with_home(h));
    let by = |id: &str| list.iter().find(|s| s.session_id == id).unwrap().clone();
    assert_eq!(by(B).forked_from.as_deref(), Some(A));
    assert_eq!(
        total_tokens(&by(B)),
        Tokens {
            input: 300,
            output: 30,
            ..Default::default()
        }
    );
    assert_eq!(by(C).forked_from.as_deref(), Some(A));
    assert_eq!(by(C).model.as_deref(), Some("gpt-5.5-mini"));
    assert_eq!(
        total_tokens(&by(C)),
        Tokens {
            input: 100,
            output: 10,
            cache_read: 100,
            cache_write: 0,
            reasoning: 5,
            ..Default::default()
        }
    );
}

#[test]
fn bad_input_is_tolerated_by_list_and_named_by_get() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let day = ".codex/sessions/2026/08/20";
    let name = |id: &str| format!("rollout-2026-08-20T08-00-00-{id}.jsonl");
    write(
        h,
        &format!("{day}/{}", name(A)),
        format!(
            "{}{{\"timestamp\":\"2026-08-20T09:00:00Z\",\"type\":\"respo",
            simple(A, "2026-08-20", "gpt-5.5", 1, "/w")
        ),
    );
    write(h, &format!("{day}/{}", name(B)), "");
    let mut odd = jsonl(&[line(
        "2026-08-20T08:00:00.000Z",
        "brand_new_kind",
        json!({"x": 1}),
    )])
    .into_bytes();
    let user = msg("2026-08-20T08:00:01.000Z", "user", "na@ve").to_string() + "\n";
    odd.extend(user.bytes().map(|b| if b == b'@' { 0xEF } else { b }));
    write(h, &format!("{day}/{}", name(C)), &odd);
    let big = "y".repeat(50 * 1024 * 1024);
    write(
        h,
        &format!("{day}/{}", name(D)),
        jsonl(&[msg("2026-08-20T08:00:00.000Z", "user", &big)]),
    );
    std::fs::create_dir_all(h.join(format!(
        "{day}/{}",
        name("01a01ee3-393c-7cb1-818e-000000000005")
    )))
    .unwrap();
    write(
        h,
        &format!("{day}/{}", name("01a01ee3-393c-7cb1-818e-000000000006")),
        "\u{0}\u{1}garbage\n",
    );
    write(
        h,
        &format!("{day}/{}.zst", name("01a01ee3-393c-7cb1-818e-000000000007")),
        "not zstd at all",
    );
    let locked = write(
        h,
        &format!("{day}/{}", name("01a01ee3-393c-7cb1-818e-000000000008")),
        simple("x", "2026-08-20", "m", 1, "/w"),
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
    let list = list_all(&client, "codex", env.clone());
    let mut ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    ids.sort();
    let mut want = vec![A, C, D];
    if as_root {
        want.push("01a01ee3-393c-7cb1-818e-000000000008");
        want.sort();
    }
    assert_eq!(ids, want);
    assert_eq!(
        role_letters(&client.get(env.clone(), "codex", A).unwrap()),
        "SUA",
        "torn line ignored"
    );
    let utf = client.get(env.clone(), "codex", C).unwrap();
    assert_eq!(utf.messages[0].content, "na\u{fffd}ve");
    let huge = list.iter().find(|s| s.session_id == D).unwrap();
    assert_eq!((huge.message_count, huge.title.len()), (1, 100));
    for id in [
        B,
        "01a01ee3-393c-7cb1-818e-000000000006",
        "01a01ee3-393c-7cb1-818e-000000000007",
    ] {
        let e = client.get(env.clone(), "codex", id).unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError, "{id}");
        assert!(e.message.contains(id), "{}", e.message);
    }
    if !as_root {
        let e = client
            .get(env.clone(), "codex", "01a01ee3-393c-7cb1-818e-000000000008")
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError);
    }
    let e = client
        .get(env.clone(), "codex", "01a01ee3-393c-7cb1-818e-000000000005")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionNotFound);
    for bad in ["../../x", "..", "a/b", "/etc/passwd", "C:\\x", "x\0"] {
        assert_eq!(
            client.get(env.clone(), "codex", bad).unwrap_err().code,
            ErrorCode::SessionNotFound
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
/// Codex's dates, model, cwd and turns as `list` sees them, one read per rollout file.
/// (Filters, sort and limit themselves: list.rs.)
fn list_sees_codex_fields() {
    let home = fixture_home();
    let h = home.path();
    let client = common::client();
    let env = Env::with_home(h);
    let ids = |opts: ListOptions| -> Vec<String> {
        client
            .list(env.clone(), "codex", &opts)
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    let base = ListOptions {
        limit: 100,
        ..Default::default()
    };
    assert_eq!(ids(base.clone()), [D, C, A, B, "flat-session"]);
    let mut o = base.clone();
    o.filters.since = agent_mux_sessions::model::parse_time_str("2026-08-01T00:00:00Z");
    o.filters.until = agent_mux_sessions::model::parse_time_str("2026-08-21T12:00:00Z");
    assert_eq!(ids(o), [C, A]);
    let mut o = base.clone();
    o.filters.model = Some("gpt-5.4".into());
    assert_eq!(ids(o), [B]);
    let mut o = base.clone();
    o.filters.cwd = Some("/work/lib".into());
    assert_eq!(ids(o), [B]);
    let by = |sort, direction| ListOptions {
        sort,
        direction,
        limit: 3,
        ..Default::default()
    };
    assert_eq!(
        ids(by(ListSort::Turns, Direction::Desc)),
        [B, C, D],
        "ties by unified id"
    );
    assert_eq!(
        client.cache().reads(),
        5,
        "one read per source; later lists hit the cache"
    );
}
