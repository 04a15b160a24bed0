//! Pi: every real capture read with exact values, and fixture homes in the real layout
//! (`~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`) for list/get, overrides, forks, branches,
//! versions 1–3 and bad input.
use crate::common;

use agent_mux_sessions::agents::pi_family::read_file;
use agent_mux_sessions::model::{Role, Tokens};
use agent_mux_sessions::options::{CostOptions, ListOptions};
use agent_mux_sessions::{Env, ErrorCode};
use common::*;
use std::path::Path;

fn real(name: &str) -> std::path::PathBuf {
    real_fixtures().join("pi").join(name)
}

fn iso(t: &chrono::DateTime<chrono::Utc>) -> String {
    agent_mux_sessions::model::to_iso(t)
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_v3_capture_with_compactions() {
    let p = real("agent-sessions-pi-0.74-capture-small.jsonl");
    let s = read_file("pi", &p, true).unwrap();
    assert!(s.compacted);
    let s = s.session;
    assert_eq!(s.summary.session_id, "019e19b4-eb48-746a-aa6b-8dfcfa37954b");
    assert_eq!(
        s.summary.unified_id,
        "pi:019e19b4-eb48-746a-aa6b-8dfcfa37954b"
    );
    assert_eq!(
        s.summary.cwd.as_deref(),
        Some("/tmp/as-agent-fixture/project")
    );
    assert_eq!(
        s.summary.title,
        "Read hello.py and summarize what it prints without editing files."
    );
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    use Role::*;
    assert_eq!(roles, [User, Assistant, User, Assistant]);
    assert_eq!(s.summary.message_count, 4);
    assert_eq!(s.summary.turn_count, 2);
    assert_eq!(s.messages[1].content, "hello.py prints a fixture greeting.");
    assert_eq!(s.messages[2].content, "Add one concise follow-up sentence.");
    assert_eq!(s.summary.model.as_deref(), Some("pi-fixture-model"));
    assert_eq!(s.messages[1].model.as_deref(), Some("pi-fixture-model"));
    // Message time is the message's epoch ms; the session spans entry ISO times.
    assert_eq!(
        iso(&s.messages[0].timestamp.unwrap()),
        "2026-05-12T01:02:27.671Z"
    );
    assert_eq!(iso(&s.summary.created_at), "2026-05-12T01:02:27.657Z");
    assert_eq!(iso(&s.summary.updated_at), "2026-05-12T01:02:45.843Z");
    assert_eq!(
        s.messages[1].tokens,
        Some(Tokens {
            input: 12,
            output: 7,
            ..Default::default()
        })
    );
    // All-zero cost = no price known, left for estimation.
    assert_eq!(s.messages[1].native_cost_usd, None);
    assert_eq!(s.summary.usage.len(), 1);
    assert_eq!(s.summary.usage[0].model, "pi-fixture-model");
    assert_eq!(
        s.summary.usage[0].tokens,
        Tokens {
            input: 24,
            output: 14,
            ..Default::default()
        }
    );
    assert_eq!(s.summary.usage[0].native_cost_usd, None);
    let raw = s.raw.unwrap().to_value();
    assert_eq!(raw["version"], 3);
    assert_eq!(raw["entries"].as_array().unwrap().len(), 8);
    assert_eq!(raw["activePath"].as_array().unwrap().len(), 8);
    assert_eq!(raw["activePath"][7], "2c19d326");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_v1_large_session_head() {
    let p = real("pi-mono-large-session-v1-head12.jsonl");
    let s = read_file("pi", &p, true).unwrap().session;
    assert_eq!(s.summary.session_id, "d703a1a9-1b7b-4fb1-b512-c9738b1fe617");
    assert_eq!(s.summary.title, "/mode");
    assert_eq!(s.summary.forked_from, None);
    use Role::*;
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [User, Assistant, User, Assistant, Tool, Tool, Tool, Assistant, Tool, Tool]
    );
    assert_eq!(s.summary.turn_count, 2);
    // The aborted first reply was gpt-5.1-codex; the rest claude-sonnet-4-5 (after model_change).
    assert_eq!(s.messages[1].model.as_deref(), Some("gpt-5.1-codex"));
    assert_eq!(s.messages[1].content, "");
    assert_eq!(s.messages[1].tokens, None);
    assert_eq!(s.summary.model.as_deref(), Some("claude-sonnet-4-5"));
    // Pairing: three results for the first batch, two of four for the second (file cut at 12).
    let first = &s.messages[3];
    assert_eq!(first.tool_calls.len(), 3);
    assert_eq!(first.tool_calls[2].tool_name, "bash");
    assert!(first.tool_calls.iter().all(|c| c.output.is_some()));
    assert_eq!(
        first.tool_calls[0]
            .output
            .as_ref()
            .unwrap()
            .as_str()
            .unwrap()
            .chars()
            .count(),
        14580
    );
    let second = &s.messages[7];
    let paired: Vec<bool> = second
        .tool_calls
        .iter()
        .map(|c| c.output.is_some())
        .collect();
    assert_eq!(paired, [true, true, false, false]);
    let tr = s.messages[4].tool_result.as_ref().unwrap();
    assert_eq!(tr.tool_call_id, "toolu_017qEkVzzPb7b7o4FkgJLF23");
    assert_eq!(tr.tool_name, "read");
    // v1: no totalTokens; cache writes and reads in their own buckets, cost summed.
    assert_eq!(s.summary.usage.len(), 1);
    let u = &s.summary.usage[0];
    assert_eq!(u.model, "claude-sonnet-4-5");
    assert_eq!(
        u.tokens,
        Tokens {
            input: 10,
            output: 422,
            cache_read: 1684,
            cache_write: 11202,
            reasoning: 0,
            ..Default::default()
        }
    );
    assert!((u.native_cost_usd.unwrap() - 0.0488727).abs() < 1e-12);
    // v1 headers can be later than the first messages: the session starts at its first entry.
    assert_eq!(iso(&s.summary.created_at), "2025-11-20T23:33:01.550Z");
    assert_eq!(iso(&s.summary.updated_at), "2025-11-20T23:33:59.558Z");
    assert_eq!(s.raw.unwrap().to_value()["version"], 1);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_v1_branched_session() {
    let p = real("pi-mono-before-compaction-v1-head3.jsonl");
    let s = read_file("pi", &p, false).unwrap().session;
    assert_eq!(s.summary.session_id, "ffae836b-9420-4060-ac13-7745215f90ff");
    // v1 `branchedFrom` is the parent's file path; exposed as the parent's id.
    assert_eq!(
        s.summary.forked_from.as_deref(),
        Some("d97339c6-6c10-4827-846b-9ff1d9c3dc37")
    );
    assert_eq!(
        s.summary.title,
        "alright, read @packages/coding-agent/src/main.ts @packages/coding-agent/src/tui/tui-renderer.ts in f"
    );
    assert_eq!(s.messages.len(), 2);
    let a = &s.messages[1];
    assert_eq!(a.role, Role::Assistant);
    assert_eq!(a.model.as_deref(), Some("claude-opus-4-5"));
    let names: Vec<&str> = a
        .tool_calls
        .iter()
        .map(|c| c.tool_call_id.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "toolu_012yuiPP1VAfh196GXaAmT8D",
            "toolu_018AGG1WjGWVfUR2Sibzkh2Q"
        ]
    );
    assert_eq!(
        a.tool_calls[0].input["path"],
        "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/main.ts"
    );
    assert_eq!(
        a.tokens,
        Some(Tokens {
            input: 2775,
            output: 141,
            ..Default::default()
        })
    );
    assert_eq!(a.native_cost_usd, Some(0.017400000000000002));
    // Both entries were copied from the parent when branching (older than this header): they
    // were billed to the parent, so this session adds nothing.
    assert!(s.summary.usage.is_empty());
    assert_eq!(iso(&s.summary.created_at), "2025-12-09T00:53:29.825Z");
    assert_eq!(iso(&s.summary.updated_at), "2025-12-09T00:53:29.825Z");
}

const P: &str = "019a0000-0000-7000-8000-00000000000a";
const F: &str = "019a0000-0000-7000-8000-00000000000b";

fn parent_v3() -> String {
    [
        format!(r#"{{"type":"session","version":3,"id":"{P}","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/work/app"}}"#),
        r#"{"type":"model_change","id":"aa000001","parentId":null,"timestamp":"2026-03-01T10:00:00.010Z","provider":"anthropic","modelId":"claude-sonnet-4-5"}"#.into(),
        r#"{"type":"message","id":"aa000002","parentId":"aa000001","timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"list the files"}],"timestamp":1772359201000}}"#.into(),
        r#"{"type":"message","id":"aa000003","parentId":"aa000002","timestamp":"2026-03-01T10:00:03.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"use ls","thinkingSignature":"reasoning_content"},{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":100,"output":20,"cacheRead":50,"cacheWrite":10,"totalTokens":180,"cost":{"input":0.0003,"output":0.0003,"cacheRead":0.000015,"cacheWrite":0.0000375,"total":0.0006525}},"stopReason":"toolUse","timestamp":1772359202000}}"#.into(),
        r#"{"type":"message","id":"aa000004","parentId":"aa000003","timestamp":"2026-03-01T10:00:03.500Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"a.txt\nb.txt"}],"isError":false,"timestamp":1772359203400}}"#.into(),
        // Old branch reply, then the user went back to aa000004 and asked again (newer branch).
        r#"{"type":"message","id":"aa000005","parentId":"aa000004","timestamp":"2026-03-01T10:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"two files"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.00003,"output":0.000075,"cacheRead":0,"cacheWrite":0,"total":0.000105}},"stopReason":"stop","timestamp":1772359204000}}"#.into(),
        r#"{"type":"branch_summary","id":"aa000006","parentId":"aa000004","timestamp":"2026-03-01T10:01:00.000Z","fromId":"aa000005","summary":"answered: two files"}"#.into(),
        r#"{"type":"message","id":"aa000007","parentId":"aa000006","timestamp":"2026-03-01T10:01:01.000Z","message":{"role":"bashExecution","command":"wc -l a.txt","output":"3 a.txt","exitCode":0,"cancelled":false,"truncated":false,"timestamp":1772359261000}}"#.into(),
        r#"{"type":"message","id":"aa000008","parentId":"aa000007","timestamp":"2026-03-01T10:01:02.000Z","message":{"role":"user","content":"and the sizes?","timestamp":1772359262000}}"#.into(),
        r#"{"type":"message","id":"aa000009","parentId":"aa000008","timestamp":"2026-03-01T10:01:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"a.txt has 3 lines"}],"api":"openai-responses","provider":"openai","model":"gpt-5.1","usage":{"input":200,"output":40,"cacheRead":0,"cacheWrite":0,"totalTokens":240,"cost":{"input":0.00025,"output":0.0004,"cacheRead":0,"cacheWrite":0,"total":0.00065}},"stopReason":"stop","timestamp":1772359263000}}"#.into(),
        r#"{"type":"session_info","id":"aa00000a","parentId":"aa000009","timestamp":"2026-03-01T10:01:05.000Z","name":"File sizes"}"#.into(),
    ]
    .join("\n")
        + "\n"
}

/// A fork written by `forkFrom()`: parent entries copied with their ids and times, then new ones.
fn fork_v3(parent_path: &Path) -> String {
    let copied: Vec<String> = parent_v3()
        .lines()
        .skip(1)
        .take(4)
        .map(str::to_string)
        .collect();
    let mut lines = vec![format!(
        r#"{{"type":"session","version":3,"id":"{F}","timestamp":"2026-03-02T09:00:00.000Z","cwd":"/work/app","parentSession":"{}"}}"#,
        parent_path.display()
    )];
    lines.extend(copied);
    lines.push(r#"{"type":"message","id":"bb000001","parentId":"aa000004","timestamp":"2026-03-02T09:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"forked answer"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":7,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":10,"cost":{"input":0.000021,"output":0.000045,"cacheRead":0,"cacheWrite":0,"total":0.000066}},"stopReason":"stop","timestamp":1772442004000}}"#.into());
    lines.join("\n") + "\n"
}

const V2: &str = r#"{"type":"session","version":2,"id":"019a0000-0000-7000-8000-00000000000c","timestamp":"2025-12-20T08:00:00.000Z","cwd":"/work/old"}
{"type":"message","id":"cc000001","parentId":null,"timestamp":"2025-12-20T08:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1766217601000}}
{"type":"message","id":"cc000002","parentId":"cc000001","timestamp":"2025-12-20T08:00:02.000Z","message":{"role":"hookMessage","customType":"reminder","content":"be brief","display":true,"timestamp":1766217602000}}
{"type":"message","id":"cc000003","parentId":"cc000002","timestamp":"2025-12-20T08:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"openai-completions","provider":"openai","model":"gpt-4.1","usage":{"input":5,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":7,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1766217603000}}
"#;

fn home_with_sessions() -> (tempfile::TempDir, std::path::PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let dir = "/.pi/agent/sessions/--work-app--";
    let parent = write(
        home.path(),
        &format!("{}/2026-03-01T10-00-00-000Z_{P}.jsonl", &dir[1..]),
        parent_v3(),
    );
    write(
        home.path(),
        &format!("{}/2026-03-02T09-00-00-000Z_{F}.jsonl", &dir[1..]),
        fork_v3(&parent),
    );
    write(
        home.path(),
        ".pi/agent/sessions/--work-old--/2025-12-20T08-00-00-000Z_019a0000-0000-7000-8000-00000000000c.jsonl",
        V2,
    );
    (home, parent)
}

#[test]
fn branches_bash_and_titles_in_a_v3_session() {
    let (home, _) = home_with_sessions();
    let c = client();
    let s = c.get(env(home.path()), "pi", P).unwrap();
    use Role::*;
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    // Newest branch: the reply on the abandoned branch (aa000005) is not shown.
    assert_eq!(roles, [User, Assistant, Tool, Tool, User, Assistant]);
    assert!(!s.messages.iter().any(|m| m.content == "two files"));
    assert_eq!(s.summary.title, "File sizes");
    assert_eq!(s.messages[1].thinking.as_deref(), Some("use ls"));
    assert_eq!(
        s.messages[1].tool_calls[0].output.as_ref().unwrap(),
        "a.txt\nb.txt"
    );
    assert_eq!(s.messages[3].content, "$ wc -l a.txt\n3 a.txt");
    let bash = s.messages[3].tool_result.as_ref().unwrap();
    assert_eq!(
        (bash.tool_name.as_str(), bash.tool_call_id.as_str()),
        ("bash", "aa000007")
    );
    assert_eq!(bash.output["exitCode"], 0);
    assert_eq!(s.messages[4].content, "and the sizes?");
    // Models: two claude calls, one gpt; usage covers the abandoned branch (it was billed).
    assert_eq!(s.messages[5].model.as_deref(), Some("gpt-5.1"));
    let models: Vec<(&str, u64, u64)> = s
        .summary
        .usage
        .iter()
        .map(|u| (u.model.as_str(), u.tokens.input, u.tokens.output))
        .collect();
    assert_eq!(
        models,
        [("claude-sonnet-4-5", 110, 25), ("gpt-5.1", 200, 40)]
    );
    let cost = s.summary.cost.as_ref().unwrap();
    assert!((cost.total_usd - (0.0006525 + 0.000105 + 0.00065)).abs() < 1e-12);
    assert_eq!(cost.cached_tokens, Some(50));
    assert_eq!(cost.cache_write_tokens, Some(10));
    let raw = s.raw.as_ref().unwrap().to_value();
    assert_eq!(raw["entries"].as_array().unwrap().len(), 10);
    assert_eq!(
        raw["activePath"],
        serde_json::json!([
            "aa000001", "aa000002", "aa000003", "aa000004", "aa000006", "aa000007", "aa000008",
            "aa000009", "aa00000a"
        ])
    );
}

#[test]
fn list_get_fork_and_cost_counted_once() {
    let (home, parent) = home_with_sessions();
    let before = snapshot(home.path());
    let c = client();
    let list = c
        .list(env(home.path()), "pi", &ListOptions::default())
        .unwrap();
    let ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    // Newest first (updatedAt).
    assert_eq!(ids, [F, P, "019a0000-0000-7000-8000-00000000000c"]);
    let fork = &list[0];
    assert_eq!(fork.forked_from.as_deref(), Some(P));
    assert_eq!(fork.message_count, 4);
    assert_eq!(fork.title, "list the files");
    assert_eq!(fork.cwd.as_deref(), Some("/work/app"));
    // Only the fork's own reply is billed to it; the copied call stays with the parent.
    assert!((fork.cost.as_ref().unwrap().total_usd - 0.000066).abs() < 1e-12);
    let v2 = &list[2];
    assert_eq!(v2.message_count, 3);
    assert_eq!(v2.model.as_deref(), Some("gpt-4.1"));
    let total = c
        .total_cost(
            env(home.path()),
            &CostOptions {
                agent: Some("pi".into()),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(total.session_count, 3);
    // The v2 session records cost 0 ("no price known"), so its gpt-4.1 tokens are estimated from
    // the price table: 5 input x $2/M + 2 output x $8/M = $0.000026.
    assert!(
        (total.total_usd - (0.0006525 + 0.000105 + 0.00065 + 0.000066 + 0.000026)).abs() < 1e-12,
        "{total:?}"
    );
    assert_eq!(total.input_tokens, 110 + 200 + 7 + 5);
    let v2s = c
        .get(
            env(home.path()),
            "pi",
            "019a0000-0000-7000-8000-00000000000c",
        )
        .unwrap();
    assert_eq!(v2s.messages[1].role, Role::System);
    assert_eq!(v2s.messages[1].content, "be brief");
    let e = c
        .get(
            env(home.path()),
            "pi",
            "019a0000-0000-7000-8000-0000000000ff",
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionNotFound);
    assert!(parent.is_file());
    assert_eq!(snapshot(home.path()), before);
}

#[test]
fn session_dir_overrides_in_the_agents_order() {
    let (home, _) = home_with_sessions();
    let h = home.path().to_str().unwrap().to_string();
    let alt = write(
        home.path(),
        "elsewhere/--x--/2026-04-01T00-00-00-000Z_019a0000-0000-7000-8000-0000000000e1.jsonl",
        V2.replace(
            "019a0000-0000-7000-8000-00000000000c",
            "019a0000-0000-7000-8000-0000000000e1",
        ),
    );
    let alt_dir = alt
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let c = client();
    let ids = |e: Env| -> Vec<String> {
        c.list(e, "pi", &ListOptions::default())
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    let only_alt = vec!["019a0000-0000-7000-8000-0000000000e1".to_string()];
    let e = Env::from_pairs([
        ("HOME", h.as_str()),
        ("PI_CODING_AGENT_SESSION_DIR", alt_dir.as_str()),
    ]);
    assert_eq!(ids(e), only_alt);
    // PI_CODING_AGENT_DIR/sessions
    let agent_dir = format!("{h}/agentdir");
    write(home.path(), "agentdir/sessions/--y--/2026-04-01T00-00-00-000Z_019a0000-0000-7000-8000-0000000000e2.jsonl",
        V2.replace("019a0000-0000-7000-8000-00000000000c", "019a0000-0000-7000-8000-0000000000e2"));
    let e = Env::from_pairs([
        ("HOME", h.as_str()),
        ("PI_CODING_AGENT_DIR", agent_dir.as_str()),
    ]);
    assert_eq!(ids(e), ["019a0000-0000-7000-8000-0000000000e2"]);
    // settings.json sessionDir in the agent dir
    write(
        home.path(),
        ".pi/agent/settings.json",
        format!(r#"{{"sessionDir":"{alt_dir}"}}"#),
    );
    assert_eq!(ids(env(home.path())), only_alt);
}

#[test]
fn get_finds_a_file_by_header_when_its_name_differs() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".pi/agent/sessions/--w--/renamed.jsonl", V2);
    let s = client()
        .get(
            env(home.path()),
            "pi",
            "019a0000-0000-7000-8000-00000000000c",
        )
        .unwrap();
    assert_eq!(s.messages.len(), 3);
}

#[test]
fn bad_input_is_skipped_in_list_and_a_parse_error_in_get() {
    let home = tempfile::tempdir().unwrap();
    let d = ".pi/agent/sessions/--w--";
    // A torn last line (the agent is writing) loses only that line.
    let torn = format!(
        "{}{}",
        V2, r#"{"type":"message","id":"cc000004","parentId":"cc00"#
    );
    write(
        home.path(),
        &format!("{d}/2025-12-20T08-00-00-000Z_019a0000-0000-7000-8000-00000000000c.jsonl"),
        torn,
    );
    write(
        home.path(),
        &format!("{d}/2026-01-01T00-00-00-000Z_019a0000-0000-7000-8000-0000000000d1.jsonl"),
        "",
    );
    write(
        home.path(),
        &format!("{d}/2026-01-01T00-00-00-000Z_019a0000-0000-7000-8000-0000000000d2.jsonl"),
        "garbage\n\u{0}\u{1}{{{\n",
    );
    let before = snapshot(home.path());
    let c = client();
    let list = c
        .list(env(home.path()), "pi", &ListOptions::default())
        .unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].message_count, 3);
    let mut skipped: Vec<String> = c
        .cache()
        .skipped()
        .into_iter()
        .map(|(_, why)| why)
        .collect();
    skipped.sort();
    assert_eq!(skipped.len(), 2);
    assert!(skipped[0].contains("no session records"), "{skipped:?}");
    for id in [
        "019a0000-0000-7000-8000-0000000000d1",
        "019a0000-0000-7000-8000-0000000000d2",
    ] {
        let e = c.get(env(home.path()), "pi", id).unwrap_err();
        assert_eq!(e.code, ErrorCode::ParseError);
        assert!(e.message.contains(id), "{}", e.message);
    }
    assert_eq!(snapshot(home.path()), before);
}

/// Timing of a large synthetic store (run with `--ignored --nocapture`): 1,000 sessions of 200
/// entries each, listed cold and warm, and one session fetched by id.
#[test]
#[ignore]
fn bench_large_store() {
    let home = tempfile::tempdir().unwrap();
    let body: String = parent_v3().lines().skip(1).collect::<Vec<_>>().join("\n");
    for i in 0..1000u32 {
        let id = format!("019a0000-0000-7000-8000-{i:012}");
        let mut s = format!(
            r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/work/app"}}"#
        );
        for k in 0..20 {
            // 10 entries per copy, re-keyed so every copy chains after the previous one.
            let copy = body.replace("\"aa0", &format!("\"{k:02}0")).replace(
                &format!(r#""id":"{k:02}000001","parentId":null"#),
                &format!(
                    r#""id":"{k:02}000001","parentId":{}"#,
                    if k == 0 {
                        "null".into()
                    } else {
                        format!("\"{:02}00000a\"", k - 1)
                    }
                ),
            );
            s.push('\n');
            s.push_str(&copy);
        }
        s.push('\n');
        write(
            home.path(),
            &format!(
                ".pi/agent/sessions/--w{}--/2026-03-01T10-00-00-000Z_{id}.jsonl",
                i % 20
            ),
            s,
        );
    }
    let c = client();
    let t = std::time::Instant::now();
    let n = c
        .list(
            env(home.path()),
            "pi",
            &ListOptions {
                limit: 5000,
                ..Default::default()
            },
        )
        .unwrap()
        .len();
    let cold = t.elapsed();
    let t = std::time::Instant::now();
    c.list(env(home.path()), "pi", &ListOptions::default())
        .unwrap();
    let warm = t.elapsed();
    let t = std::time::Instant::now();
    let s = c
        .get(
            env(home.path()),
            "pi",
            "019a0000-0000-7000-8000-000000000777",
        )
        .unwrap();
    let get = t.elapsed();
    assert_eq!(s.messages.len(), 120);
    eprintln!("pi: {n} sessions of 201 lines: list cold {cold:?}, warm {warm:?}; get {get:?} ({} messages)", s.messages.len());
    assert_eq!(n, 1000);
}

/// The real captures, listed in place through a `sessionDirs` override: every file becomes one
/// session, and the directory is byte-identical afterwards with no new file.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_captures_listed_in_place_and_left_unchanged() {
    let dir = real_fixtures().join("pi");
    let before = snapshot(&dir);
    let mut opts = agent_mux_sessions::ClientOptions::default();
    opts.session_dirs.insert("pi".into(), dir.clone());
    let c = agent_mux_sessions::Client::new(opts);
    let home = tempfile::tempdir().unwrap();
    let list = c
        .list(env(home.path()), "pi", &ListOptions::default())
        .unwrap();
    let got: Vec<(&str, u64, u64)> = list
        .iter()
        .map(|s| (s.session_id.as_str(), s.message_count, s.turn_count))
        .collect();
    assert_eq!(
        got,
        [
            ("019e19b4-eb48-746a-aa6b-8dfcfa37954b", 4, 2),
            ("ffae836b-9420-4060-ac13-7745215f90ff", 2, 1),
            ("d703a1a9-1b7b-4fb1-b512-c9738b1fe617", 10, 2),
        ]
    );
    // get() finds files whose names do not carry the id by their headers.
    let s = c
        .get(
            env(home.path()),
            "pi",
            "d703a1a9-1b7b-4fb1-b512-c9738b1fe617",
        )
        .unwrap();
    assert!((s.summary.cost.unwrap().total_usd - 0.0488727).abs() < 1e-12);
    assert!(c.cache().skipped().is_empty());
    assert_eq!(snapshot(&dir), before);
}
