//! Sessions shaped like what `get()` returns for a few agents (after pricing), for the export and
//! diff tests: tool calls and results, thinking, subagents, CJK, and hostile Markdown/HTML.
#![allow(dead_code)]
use agent_mux_sessions::model::{
    parse_time_str, CostRecord, Message, Role, Session, SessionSummary, TokenUsage, ToolCall,
    ToolResult,
};
use serde_json::json;
use std::path::PathBuf;

use agent_mux_sessions::export::export;
use agent_mux_sessions::options::ExportFormat;

pub fn t(s: &str) -> chrono::DateTime<chrono::Utc> {
    parse_time_str(s).unwrap()
}

pub fn msg(role: Role, content: &str, ts: &str) -> Message {
    let mut m = Message::new(role, content);
    m.timestamp = Some(t(ts));
    m
}

pub fn session(
    agent: &str,
    id: &str,
    created: &str,
    updated: &str,
    messages: Vec<Message>,
) -> Session {
    let mut summary = SessionSummary::new(agent, id, t(created), t(updated));
    summary.title = messages
        .iter()
        .find(|m| m.role == Role::User)
        .map(|m| agent_mux_sessions::model::truncate_title(&m.content, 80))
        .unwrap_or_default();
    let mut s = Session {
        summary,
        messages,
        raw: None,
    };
    s.derive_summary_fields();
    s
}

fn cost(total: f64, input: u64, output: u64) -> CostRecord {
    CostRecord {
        total_usd: total,
        input_tokens: input,
        output_tokens: output,
        ..Default::default()
    }
}

/// Claude Code: thinking, Read/Edit tool calls answered by tool-result messages, a subagent.
pub fn claude() -> Session {
    let model = "claude-sonnet-4-5-20250929";
    let mut m1 = msg(
        Role::User,
        "The test `parses_dates` fails on CI <sometimes>. Can you look?",
        "2025-03-04T10:15:00.000Z",
    );
    m1.model = None;
    let mut m2 = msg(
        Role::Assistant,
        "I'll read the test first.",
        "2025-03-04T10:15:04.120Z",
    );
    m2.model = Some(model.into());
    m2.thinking = Some("The test is flaky only on CI, so check timezone handling first.".into());
    m2.tool_calls = vec![ToolCall {
        tool_call_id: "toolu_01A9vQ7mXkP2".into(),
        tool_name: "Read".into(),
        input: json!({"file_path": "/home/dev/proj/tests/dates.rs"}),
        output: Some(json!(
            "fn parses_dates() {\n    assert_eq!(parse(\"2025-01-02\"), local());\n}"
        )),
        duration_ms: Some(12.0),
        output_at_result: false,
    }];
    m2.token_usage = Some(TokenUsage {
        input_tokens: 820,
        output_tokens: 95,
        thinking_tokens: None,
        cached_tokens: Some(12000),
    });
    m2.cost = Some(cost(0.0191, 820, 95));
    let mut m3 = msg(
        Role::Tool,
        "fn parses_dates() {\n    assert_eq!(parse(\"2025-01-02\"), local());\n}",
        "2025-03-04T10:15:04.300Z",
    );
    m3.tool_result = Some(ToolResult {
        tool_call_id: "toolu_01A9vQ7mXkP2".into(),
        tool_name: "Read".into(),
        output: json!("fn parses_dates() {\n    assert_eq!(parse(\"2025-01-02\"), local());\n}"),
    });
    let mut m4 = msg(
        Role::Assistant,
        "The test compares against the local timezone.\n\n## Fix\n\n```rust\nlet tz = Utc;\n```",
        "2025-03-04T10:15:09.880Z",
    );
    m4.model = Some(model.into());
    m4.tool_calls = vec![ToolCall {
        tool_call_id: "toolu_01Bq2Edit".into(),
        tool_name: "Edit".into(),
        input: json!({
            "file_path": "/home/dev/proj/tests/dates.rs",
            "old_string": "local()",
            "new_string": "utc()",
            "replace_all": false
        }),
        output: None,
        duration_ms: None,
        output_at_result: false,
    }];
    m4.token_usage = Some(TokenUsage {
        input_tokens: 700,
        output_tokens: 315,
        thinking_tokens: None,
        cached_tokens: None,
    });
    m4.cost = Some(cost(0.023, 700, 315));
    let mut m5 = msg(
        Role::Tool,
        "The file has been updated.",
        "2025-03-04T10:15:10.010Z",
    );
    m5.tool_result = Some(ToolResult {
        tool_call_id: "toolu_01Bq2Edit".into(),
        tool_name: "Edit".into(),
        output: json!("The file has been updated."),
    });
    let mut m6 = msg(
        Role::Assistant,
        "Ran `cargo test`: 12 passed, 0 failed.",
        "2025-03-04T10:16:30.500Z",
    );
    m6.subagent = Some("a0ad4f44468bdf20d".into());
    m6.model = Some("claude-haiku-4-5-20251001".into());
    let mut m7 = msg(
        Role::Assistant,
        "Done. 修复完成：测试不再依赖本地时区。",
        "2025-03-04T10:17:42.250Z",
    );
    m7.model = Some(model.into());
    let mut s = session(
        "claude",
        "6f1c2a9e-3b7d-4c1e-9a55-0d2f4e8b7c31",
        "2025-03-04T10:15:00.000Z",
        "2025-03-04T10:17:42.250Z",
        vec![m1, m2, m3, m4, m5, m6, m7],
    );
    s.summary.cwd = Some("/home/dev/proj".into());
    s.summary.tags = vec!["bugfix".into(), "ci".into()];
    s.summary.cost = Some(CostRecord {
        total_usd: 0.0421,
        input_tokens: 1520,
        output_tokens: 410,
        thinking_tokens: None,
        cached_tokens: Some(12000),
        cache_write_tokens: Some(800),
    });
    s
}

/// Codex: an environment-context system message (XML-ish), reasoning, a shell call.
pub fn codex() -> Session {
    let model = "gpt-5-codex";
    let m1 = msg(
        Role::System,
        "<environment_context>\n  <cwd>/home/dev/proj</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>",
        "2025-05-07T17:24:21.000Z",
    );
    let m2 = msg(
        Role::User,
        "The test `parses_dates` fails on CI <sometimes>. Can you look?",
        "2025-05-07T17:24:25.512Z",
    );
    let mut m3 = msg(Role::Assistant, "", "2025-05-07T17:24:29.004Z");
    m3.model = Some(model.into());
    m3.thinking = Some("**Inspecting the test**\n\nI should look at tests/dates.rs.".into());
    m3.tool_calls = vec![ToolCall {
        tool_call_id: "call_Q2hJ8kLmN0".into(),
        tool_name: "shell".into(),
        input: json!({"command": ["bash", "-lc", "sed -n 1,20p tests/dates.rs"], "timeout_ms": 120000}),
        output: Some(
            json!({"output": "fn parses_dates() {}\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}),
        ),
        duration_ms: Some(103.5),
        output_at_result: false,
    }];
    let mut m4 = msg(
        Role::Tool,
        "fn parses_dates() {}\n",
        "2025-05-07T17:24:29.200Z",
    );
    m4.tool_result = Some(ToolResult {
        tool_call_id: "call_Q2hJ8kLmN0".into(),
        tool_name: "shell".into(),
        output: json!({"output": "fn parses_dates() {}\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}),
    });
    let mut m5 = msg(
        Role::Assistant,
        "The test uses `Local::now()`; switch it to **UTC**.",
        "2025-05-07T17:24:40.777Z",
    );
    m5.model = Some(model.into());
    m5.token_usage = Some(TokenUsage {
        input_tokens: 3100,
        output_tokens: 220,
        thinking_tokens: Some(64),
        cached_tokens: Some(2048),
    });
    m5.cost = Some(CostRecord {
        total_usd: 0.0117,
        input_tokens: 3100,
        output_tokens: 220,
        thinking_tokens: Some(64),
        cached_tokens: Some(2048),
        cache_write_tokens: None,
    });
    let mut s = session(
        "codex",
        "5973b6c0-94b8-487b-a530-2aeb6098ae0e",
        "2025-05-07T17:24:21.000Z",
        "2025-05-07T17:24:40.777Z",
        vec![m1, m2, m3, m4, m5],
    );
    s.summary.cwd = Some("/home/dev/proj".into());
    s.summary.cost = Some(CostRecord {
        total_usd: 0.0117,
        input_tokens: 3100,
        output_tokens: 220,
        thinking_tokens: Some(64),
        cached_tokens: Some(2048),
        cache_write_tokens: None,
    });
    s
}

pub const HOSTILE_USER: &str = "### User\nPretend this is a new section\n</details>\n<script>alert(1)</script>\n---\n# Title\n<!-- never closed\n```\nunclosed fence";
pub const HOSTILE_THINKING: &str =
    "I will close </details> early\n### Assistant\n<details><summary>fake</summary>";
pub const HOSTILE_ASSISTANT: &str = "Backticks: ```` ``` ```` and a `span with <tag>`\r\n### Assistant\r\nlone\rcr `open\n    # indented\n| a | b |\n|---|---|";
pub const CJK: &str =
    "日本語のテスト 🚀 — 中文内容，还有 emoji 👩\u{200d}💻 and a control \u{1} char";

/// Gemini CLI: hostile Markdown and HTML everywhere, CJK, no recorded cost.
pub fn gemini_hostile() -> Session {
    let m1 = msg(Role::User, HOSTILE_USER, "2025-06-01T08:00:00.000Z");
    let mut m2 = msg(
        Role::Assistant,
        HOSTILE_ASSISTANT,
        "2025-06-01T08:00:03.250Z",
    );
    m2.model = Some("gemini-2.5-pro".into());
    m2.thinking = Some(HOSTILE_THINKING.into());
    m2.tool_calls = vec![ToolCall {
        tool_call_id: "write_file-1748764803250-0".into(),
        tool_name: "write_file".into(),
        input: json!({"file_path": "a.md", "content": "```js\nconsole.log('x')\n```\n````\n"}),
        output: None,
        duration_ms: None,
        output_at_result: false,
    }];
    let mut m3 = msg(Role::Tool, "", "2025-06-01T08:00:03.900Z");
    m3.tool_result = Some(ToolResult {
        tool_call_id: "write_file-1748764803250-0".into(),
        tool_name: "write_file".into(),
        output: json!({"status": "ok", "bytes": 27.0, "ratio": 1e21, "tiny": 1.5e-7}),
    });
    let m4 = msg(Role::User, CJK, "2025-06-01T08:01:00.000Z");
    let m5 = msg(
        Role::System,
        "~~~\nA tilde fence never closed </details>",
        "2025-06-01T08:01:00.500Z",
    );
    let mut s = session(
        "gemini",
        "b1946ac9-2b5e-4a7c-8f3d-7e6a0c9d1f20",
        "2025-06-01T08:00:00.000Z",
        "2025-06-01T08:01:00.500Z",
        vec![m1, m2, m3, m4, m5],
    );
    s.summary.title = "Hostile <b>markdown</b> # test | pipes `x`\nsecond line".into();
    s.summary.forked_from = Some("gemini:0c9d1f20".into());
    s
}

/// The samples the export golden files are made of, by name.
pub fn named() -> Vec<(&'static str, Session)> {
    vec![
        ("claude", claude()),
        ("codex", codex()),
        ("gemini-hostile", gemini_hostile()),
    ]
}

/// Each named sample's golden file in `format` (`tests/golden/<name>.<ext>`) and the export it
/// must hold.
pub fn golden_files(format: ExportFormat) -> Vec<(PathBuf, String)> {
    let ext = match format {
        ExportFormat::Json => "json",
        ExportFormat::Jsonl => "jsonl",
        ExportFormat::Markdown => "md",
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    named()
        .into_iter()
        .map(|(name, s)| {
            let text = export(s.clone(), format).unwrap();
            (dir.join(format!("{name}.{ext}")), text)
        })
        .collect()
}
