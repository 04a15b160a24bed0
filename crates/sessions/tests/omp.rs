//! omp: fixture homes in omp 18.2's real layout (title slot before the header, `-<slug>` dirs,
//! subagent transcripts beside the parent, forks linking by id, profiles, XDG store). No real omp
//! capture exists to read; the records follow the shapes omp's own SessionManager writes.
use crate::common;

use agent_mux_sessions::model::{Role, Tokens};
use agent_mux_sessions::options::ListOptions;
use agent_mux_sessions::{Env, ErrorCode};
use common::*;
use std::path::Path;

const U1: &str = "019dc6f0-1a2b-7c3d-8e4f-000000000001";
const U2: &str = "019dc6f0-1a2b-7c3d-8e4f-000000000002";
const U3: &str = "019dc6f0-1a2b-7c3d-8e4f-000000000003";
const U4: &str = "019dc6f0-1a2b-7c3d-8e4f-000000000004";
const U5: &str = "019dc6f0-1a2b-7c3d-8e4f-000000000005";

/// omp's title slot: padded with spaces to 256 bytes including the newline.
fn title_slot(title: &str, source: Option<&str>, updated: &str) -> String {
    let src = source
        .map(|s| format!(r#","source":"{s}""#))
        .unwrap_or_default();
    let head =
        format!(r#"{{"type":"title","v":1,"title":"{title}"{src},"updatedAt":"{updated}","pad":""#);
    let pad = 256 - head.len() - 3; // closing `"}` and the newline
    let line = format!("{head}{}\"}}\n", " ".repeat(pad));
    assert_eq!(line.len(), 256);
    line
}

fn header(id: &str, ts: &str, cwd: &str, extra: &str) -> String {
    format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"{ts}","cwd":"{cwd}"{extra}}}"#
    )
}

fn assistant(
    id: &str,
    parent: &str,
    ts: &str,
    ms: u64,
    content: &str,
    model: &str,
    usage: &str,
) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"{ts}","message":{{"role":"assistant","content":{content},"api":"anthropic-messages","provider":"anthropic","model":"{model}","usage":{usage},"stopReason":"stop","timestamp":{ms},"duration":1200,"ttft":300,"completedAt":{ms},"responseId":"msg_{id}"}}}}"#
    )
}

fn user(id: &str, parent: &str, ts: &str, ms: u64, text: &str) -> String {
    let p = if parent.is_empty() {
        "null".to_string()
    } else {
        format!("\"{parent}\"")
    };
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{p},"timestamp":"{ts}","message":{{"role":"user","content":[{{"type":"text","text":"{text}"}}],"timestamp":{ms}}}}}"#
    )
}

fn main_session() -> String {
    let mut s = title_slot("Fix the parser", Some("user"), "2026-07-02T15:43:40.000Z");
    let lines = [
        header(U1, "2026-07-02T15:42:50.669Z", "/home/u/src/app", r#","title":"Fix the parser","titleSource":"user","providerPromptCacheKey":"k1""#),
        r#"{"type":"model_change","id":"e0000001","parentId":null,"timestamp":"2026-07-02T15:42:50.700Z","model":"anthropic/claude-sonnet-4-5","role":"default","resolvedModelIsFallback":false}"#.into(),
        r#"{"type":"thinking_level_change","id":"e0000002","parentId":"e0000001","timestamp":"2026-07-02T15:42:50.701Z","thinkingLevel":"high","configured":"high"}"#.into(),
        user("e0000003", "e0000002", "2026-07-02T15:43:00.000Z", 1783007000000, "the parser drops the last token"),
        assistant("e0000004", "e0000003", "2026-07-02T15:43:05.000Z", 1783007005000,
            r#"[{"type":"thinking","thinking":"delegate exploration"},{"type":"toolCall","id":"toolu_task1","name":"task","arguments":{"agent":"Explore","prompt":"find the tokenizer"},"intent":"explore the code"}]"#,
            "claude-sonnet-4-5",
            r#"{"input":900,"output":300,"cacheRead":4000,"cacheWrite":200,"reasoningTokens":120,"totalTokens":5400,"cost":{"input":0.0027,"output":0.0045,"cacheRead":0.0012,"cacheWrite":0.00075,"total":0.0123}}"#),
        r#"{"type":"message","id":"e0000005","parentId":"e0000004","timestamp":"2026-07-02T15:43:21.000Z","message":{"role":"toolResult","toolCallId":"toolu_task1","toolName":"task","content":[{"type":"text","text":"tokenizer is in src/lex.rs"}],"isError":false,"timestamp":1783007021000}}"#.into(),
        assistant("e0000006", "e0000005", "2026-07-02T15:43:30.000Z", 1783007030000,
            r#"[{"type":"text","text":"Fixed the off-by-one in src/lex.rs."}]"#,
            "claude-sonnet-4-5",
            r#"{"input":50,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":70,"cost":{"input":0.00015,"output":0.0003,"cacheRead":0,"cacheWrite":0,"total":0.001}}"#),
        r#"{"type":"model_usage","id":"e0000007","parentId":"e0000006","timestamp":"2026-07-02T15:43:40.000Z","purpose":"title","role":"smol","api":"anthropic-messages","provider":"anthropic","model":"claude-haiku-4-5","usage":{"input":300,"output":12,"cacheRead":0,"cacheWrite":0,"totalTokens":312,"cost":{"input":0.0003,"output":0.00006,"cacheRead":0,"cacheWrite":0,"total":0.0004}},"stopReason":"stop"}"#.into(),
        r#"{"type":"title_change","id":"e0000008","parentId":"e0000007","timestamp":"2026-07-02T15:43:40.000Z","title":"Fix the parser","source":"user"}"#.into(),
    ];
    s.push_str(&(lines.join("\n") + "\n"));
    s
}

fn subagent() -> String {
    [
        header(U3, "2026-07-02T15:43:05.500Z", "/home/u/src/app", ""),
        r#"{"type":"session_init","id":"f0000001","parentId":null,"timestamp":"2026-07-02T15:43:05.600Z","systemPrompt":"You explore code.","task":"find the tokenizer","tools":["read","grep"],"agent":"Explore"}"#.into(),
        user("f0000002", "f0000001", "2026-07-02T15:43:06.000Z", 1783007006000, "find the tokenizer"),
        assistant("f0000003", "f0000002", "2026-07-02T15:43:20.000Z", 1783007020000,
            r#"[{"type":"text","text":"src/lex.rs holds it"}]"#,
            "claude-haiku-4-5",
            r#"{"input":400,"output":60,"cacheRead":0,"cacheWrite":0,"totalTokens":460,"cost":{"input":0.0004,"output":0.0003,"cacheRead":0,"cacheWrite":0,"total":0.002}}"#),
    ]
    .join("\n")
        + "\n"
}

fn fork() -> String {
    let mut s = title_slot(
        "Fix the parser (fork)",
        Some("auto"),
        "2026-07-03T08:00:01.000Z",
    );
    let lines = [
        header(U2, "2026-07-03T08:00:00.000Z", "/home/u/src/app", &format!(r#","parentSession":"{U1}","title":"Fix the parser (fork)","titleSource":"auto","providerPromptCacheKey":"k2""#)),
        r#"{"type":"model_change","id":"e0000001","parentId":null,"timestamp":"2026-07-02T15:42:50.700Z","model":"anthropic/claude-sonnet-4-5","role":"default","resolvedModelIsFallback":false}"#.into(),
        user("e0000003", "e0000001", "2026-07-02T15:43:00.000Z", 1783007000000, "the parser drops the last token"),
        assistant("g0000001", "e0000003", "2026-07-03T08:00:10.000Z", 1783065610000,
            r#"[{"type":"text","text":"Try a different approach."}]"#,
            "claude-sonnet-4-5",
            r#"{"input":30,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":40,"cost":{"input":0.00009,"output":0.00015,"cacheRead":0,"cacheWrite":0,"total":0.0005}}"#),
    ];
    s.push_str(&(lines.join("\n") + "\n"));
    s
}

fn simple(id: &str, ts: &str, ms: u64, text: &str) -> String {
    let mut s = title_slot("", None, ts);
    s.push_str(&(header(id, ts, "/tmp/x", "") + "\n"));
    s.push_str(&(user("h0000001", "", ts, ms, text) + "\n"));
    s.push_str(&(assistant("h0000002", "h0000001", ts, ms + 1, r#""ok""#, "kimi-for-coding",
        r#"{"input":9377,"output":192,"cacheRead":4352,"cacheWrite":0,"totalTokens":13921,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#) + "\n"));
    s
}

fn omp_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let base = ".omp/agent/sessions/-src-app";
    write(
        h,
        &format!("{base}/2026-07-02T15-42-50-669Z_{U1}.jsonl"),
        main_session(),
    );
    write(
        h,
        &format!("{base}/2026-07-02T15-42-50-669Z_{U1}/Explore.jsonl"),
        subagent(),
    );
    write(
        h,
        &format!("{base}/2026-07-03T08-00-00-000Z_{U2}.jsonl"),
        fork(),
    );
    // Not a subagent folder (no sibling `stray.jsonl`) and too deep to be a session: ignored.
    write(h, &format!("{base}/stray/Explore.jsonl"), subagent());
    write(
        h,
        &format!(".omp/profiles/work/agent/sessions/-tmp-x/2026-07-04T00-00-00-000Z_{U4}.jsonl"),
        simple(
            U4,
            "2026-07-04T00:00:00.000Z",
            1783123200000,
            "profile session",
        ),
    );
    home
}

#[test]
fn title_slot_subagents_and_side_calls() {
    let home = omp_home();
    let s = client().get(env(home.path()), "omp", U1).unwrap();
    assert_eq!(s.summary.title, "Fix the parser");
    assert_eq!(s.summary.cwd.as_deref(), Some("/home/u/src/app"));
    let seq: Vec<(Role, Option<&str>)> = s
        .messages
        .iter()
        .map(|m| (m.role, m.subagent.as_deref()))
        .collect();
    use Role::*;
    assert_eq!(
        seq,
        [
            (User, None),
            (Assistant, None),
            (User, Some("Explore")),
            (Assistant, Some("Explore")),
            (Tool, None),
            (Assistant, None)
        ]
    );
    assert_eq!(s.summary.message_count, 6);
    assert_eq!(s.summary.turn_count, 1);
    assert_eq!(s.summary.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(
        s.messages[1].thinking.as_deref(),
        Some("delegate exploration")
    );
    assert_eq!(
        s.messages[1].tool_calls[0].output.as_ref().unwrap(),
        "tokenizer is in src/lex.rs"
    );
    assert_eq!(
        s.messages[1].tokens,
        Some(Tokens {
            input: 900,
            output: 180,
            cache_read: 4000,
            cache_write: 200,
            reasoning: 120,
            ..Default::default()
        })
    );
    let mut usage: Vec<(String, Tokens, f64)> = s
        .summary
        .usage
        .iter()
        .map(|u| (u.model.clone(), u.tokens, u.native_cost_usd.unwrap()))
        .collect();
    usage.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(usage[0].0, "claude-haiku-4-5");
    // model_usage side call (title) + the Explore subagent.
    assert_eq!(
        usage[0].1,
        Tokens {
            input: 700,
            output: 72,
            ..Default::default()
        }
    );
    assert!((usage[0].2 - 0.0024).abs() < 1e-12);
    assert_eq!(usage[1].0, "claude-sonnet-4-5");
    assert_eq!(
        usage[1].1,
        Tokens {
            input: 950,
            output: 200,
            cache_read: 4000,
            cache_write: 200,
            reasoning: 120,
            ..Default::default()
        }
    );
    assert!((usage[1].2 - 0.0133).abs() < 1e-12);
    let cost = s.summary.cost.unwrap();
    assert!((cost.total_usd - 0.0157).abs() < 1e-12);
    assert_eq!(cost.thinking_tokens, Some(120));
    let raw = s.raw.unwrap().to_value();
    assert_eq!(raw["title"]["title"], "Fix the parser");
    assert_eq!(raw["subagents"]["Explore"]["header"]["id"], U3);
    assert_eq!(
        agent_mux_sessions::model::to_iso(&s.summary.updated_at),
        "2026-07-02T15:43:40.000Z"
    );
}

#[test]
fn list_covers_profiles_forks_and_xdg_but_not_subagents() {
    let home = omp_home();
    let h = home.path();
    let xdg = h.join("xdg");
    write(
        h,
        &format!("xdg/omp/sessions/--opt-p--/2026-07-05T00-00-00-000Z_{U5}.jsonl"),
        simple(U5, "2026-07-05T00:00:00.000Z", 1783209600000, "xdg session"),
    );
    let before = snapshot(h);
    let c = client();
    let hs = h.to_str().unwrap();
    let e = Env::from_pairs([
        ("HOME", hs),
        ("XDG_DATA_HOME", xdg.to_str().unwrap()),
        ("OMP_PROFILE", "work"),
    ]);
    let list = c.list(e.clone(), "omp", &ListOptions::default()).unwrap();
    let ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [U5, U4, U2, U1]);
    let fork = &list[2];
    assert_eq!(fork.forked_from.as_deref(), Some(U1));
    assert_eq!(fork.title, "Fix the parser (fork)");
    assert_eq!(fork.message_count, 2);
    // Only the fork's own call is billed to it.
    assert!((fork.cost.as_ref().unwrap().total_usd - 0.0005).abs() < 1e-12);
    let prof = &list[1];
    // An empty title slot falls back to the first prompt.
    assert_eq!(prof.title, "profile session");
    assert_eq!(prof.model.as_deref(), Some("kimi-for-coding"));
    let pc = prof.cost.as_ref().unwrap();
    assert_eq!(
        (pc.input_tokens, pc.output_tokens, pc.cached_tokens),
        (9377, 192, Some(4352))
    );
    // The profile is read without OMP_PROFILE too.
    let list2 = c.list(env(h), "omp", &ListOptions::default()).unwrap();
    assert_eq!(list2.len(), 3);
    // A subagent transcript is part of its parent, not a session of its own.
    let e3 = c.get(e, "omp", U3).unwrap_err();
    assert_eq!(e3.code, ErrorCode::SessionNotFound);
    assert_eq!(snapshot(h), before);
}

#[test]
fn session_dir_option_replaces_the_defaults() {
    let home = omp_home();
    let mut opts = agent_mux_sessions::ClientOptions::default();
    opts.session_dirs.insert(
        "omp".into(),
        home.path().join(".omp/profiles/work/agent/sessions"),
    );
    let c = agent_mux_sessions::Client::new(opts);
    let list = c
        .list(env(home.path()), "omp", &ListOptions::default())
        .unwrap();
    let ids: Vec<&str> = list.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [U4]);
    assert!(Path::new(&home.path().join(".omp")).is_dir());
}

#[test]
fn damaged_subagent_does_not_hide_the_parent() {
    let home = omp_home();
    let base = ".omp/agent/sessions/-src-app";
    write(
        home.path(),
        &format!("{base}/2026-07-02T15-42-50-669Z_{U1}/Broken.jsonl"),
        "{\"type\":",
    );
    let s = client().get(env(home.path()), "omp", U1).unwrap();
    assert_eq!(s.messages.len(), 6);
}

#[test]
fn title_change_beats_the_headers_title_when_the_slot_is_empty() {
    let home = tempfile::tempdir().unwrap();
    let mut s = title_slot("", None, "2026-07-06T00:00:00.000Z");
    s.push_str(
        &(header(
            U5,
            "2026-07-06T00:00:00.000Z",
            "/tmp/t",
            r#","title":"Old name","titleSource":"auto""#,
        ) + "\n"),
    );
    s.push_str(
        &(user(
            "i0000001",
            "",
            "2026-07-06T00:00:01.000Z",
            1783296001000,
            "hello",
        ) + "\n"),
    );
    s.push_str(r#"{"type":"title_change","id":"i0000002","parentId":"i0000001","timestamp":"2026-07-06T00:00:02.000Z","title":"New name","source":"user"}"#);
    s.push('\n');
    write(
        home.path(),
        &format!(".omp/agent/sessions/-t/2026-07-06T00-00-00-000Z_{U5}.jsonl"),
        s,
    );
    let got = client().get(env(home.path()), "omp", U5).unwrap();
    assert_eq!(got.summary.title, "New name");
    assert_eq!(got.messages.len(), 1);
}
