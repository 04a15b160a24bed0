//! Export (spec 6.5): golden files for the three formats, jsonl parsed line by line, and the
//! Markdown checked by a real CommonMark parser so hostile content provably cannot change the
//! document's structure. Regenerate the golden files with `npm run update-golden`.
use crate::common;
use crate::sample;

use agent_mux_sessions::agents;
use agent_mux_sessions::export::{export, load_mode};
use agent_mux_sessions::model::{Role, Session};
use agent_mux_sessions::options::ExportFormat;
use agent_mux_sessions::{Client, Env, ErrorCode};
use agent_mux_wire::export_format;
use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use serde_json::Value;

/// serde_json tells 27 from 27.0; JSON (and JS) do not.
fn numbers_as_f64(v: Value) -> Value {
    match v {
        Value::Number(n) => serde_json::json!(n.as_f64().unwrap()),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_f64).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_f64(v))).collect())
        }
        other => other,
    }
}

fn same_json(a: Value, b: Value) {
    assert_eq!(numbers_as_f64(a), numbers_as_f64(b));
}

/// Every sample's export in `format` equals its golden file. Only `npm run update-golden`
/// (tests/update_golden.rs) writes them, so a test run can never rewrite what it compares with.
fn golden(format: ExportFormat) {
    for (path, actual) in sample::golden_files(format) {
        let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (`npm run update-golden` writes it)",
                path.display()
            )
        });
        assert!(
            expected == actual,
            "{} differs from the export; if the change is intended, run `npm run update-golden` \
             and review the diff",
            path.display()
        );
    }
}

fn samples() -> Vec<(&'static str, Session)> {
    sample::named()
}

#[test]
fn golden_json() {
    golden(ExportFormat::Json);
}

#[test]
fn golden_jsonl() {
    golden(ExportFormat::Jsonl);
}

#[test]
fn golden_markdown() {
    golden(ExportFormat::Markdown);
}

#[test]
fn json_is_the_whole_session_with_iso_dates_and_js_numbers() {
    let s = sample::gemini_hostile();
    let out = export(s.clone(), ExportFormat::Json).unwrap();
    let v: Value = serde_json::from_str(&out).unwrap();
    same_json(v.clone(), serde_json::to_value(&s).unwrap());
    assert_eq!(v["createdAt"], "2025-06-01T08:00:00.000Z");
    assert_eq!(v["messages"][0]["timestamp"], "2025-06-01T08:00:00.000Z");
    assert_eq!(v["messages"].as_array().unwrap().len(), 5);
    assert!(out.starts_with("{\n  \"agent\": \"gemini\",\n  \"sessionId\": "));
    // JS prints 27.0 as 27 and 1e21 as 1e+21
    assert!(out.contains("\"bytes\": 27,"), "{out}");
    assert!(out.contains("\"ratio\": 1e+21,"));
    assert!(out.contains("\"tiny\": 1.5e-7"));
    assert!(!out.ends_with('\n'));
}

#[test]
fn every_jsonl_line_parses_alone() {
    for (_, s) in samples() {
        let out = export(s.clone(), ExportFormat::Jsonl).unwrap();
        assert!(out.ends_with('\n'));
        let lines: Vec<&str> = out.strip_suffix('\n').unwrap().split('\n').collect();
        assert_eq!(lines.len(), s.messages.len() + 1);
        let header: Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(header["type"], "session");
        assert_eq!(header["agent"], s.summary.agent.as_str());
        assert_eq!(header["unifiedId"], s.summary.unified_id.as_str());
        assert_eq!(header["messageCount"], s.messages.len() as u64);
        assert!(header.get("messages").is_none());
        for (line, m) in lines[1..].iter().zip(&s.messages) {
            let v: Value = serde_json::from_str(line).unwrap();
            same_json(v.clone(), serde_json::to_value(m).unwrap());
            assert!(v.get("type").is_none());
        }
    }
}

/// What a CommonMark parser sees in an exported document.
#[derive(Default, Debug)]
struct Outline {
    headings: Vec<(HeadingLevel, String)>,
    html: Vec<String>,
    code_blocks: Vec<String>,
    text: String,
}

fn outline(md: &str) -> Outline {
    let mut o = Outline::default();
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut code: Option<String> = None;
    for ev in Parser::new(md) {
        match ev {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => o.headings.push(heading.take().unwrap()),
            Event::Start(Tag::CodeBlock(_)) => code = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => o.code_blocks.push(code.take().unwrap()),
            Event::Html(h) | Event::InlineHtml(h) => o.html.push(h.trim().to_string()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.1.push_str(&t);
                } else if let Some(c) = code.as_mut() {
                    c.push_str(&t);
                } else {
                    o.text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph) => {
                o.text.push('\n')
            }
            _ => {}
        }
    }
    o
}

fn role_title(r: Role) -> &'static str {
    match r {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
        Role::Tool => "Tool",
    }
}

#[test]
fn markdown_structure_survives_every_sample() {
    for (name, s) in samples() {
        let md = export(s.clone(), ExportFormat::Markdown).unwrap();
        let o = outline(&md);
        let mut expected: Vec<(HeadingLevel, String)> = vec![
            (HeadingLevel::H1, s.summary.title.replace('\n', " ")),
            (HeadingLevel::H2, "Messages".into()),
        ];
        expected.extend(
            s.messages
                .iter()
                .map(|m| (HeadingLevel::H3, role_title(m.role).to_string())),
        );
        expected.push((HeadingLevel::H2, "Cost summary".into()));
        assert_eq!(o.headings, expected, "{name}");

        // The only HTML is our own <details> blocks, one per message with thinking.
        let thinking = s.messages.iter().filter(|m| m.thinking.is_some()).count();
        let ours = ["<details>", "<summary>Thinking</summary>", "</details>"];
        assert_eq!(o.html.len(), 3 * thinking, "{name}: {:?}", o.html);
        for (i, h) in o.html.iter().enumerate() {
            assert_eq!(h, ours[i % 3], "{name}: foreign HTML in {:?}", o.html);
        }

        // Every tool call input appears as a code block holding exactly its pretty JSON.
        for m in &s.messages {
            for c in &m.tool_calls {
                let pretty = serde_json::to_string_pretty(&c.input).unwrap() + "\n";
                assert!(o.code_blocks.contains(&pretty), "{name}: {pretty}");
            }
        }
    }
}

#[test]
fn hostile_content_renders_as_text() {
    let md = export(sample::gemini_hostile(), ExportFormat::Markdown).unwrap();
    let o = outline(&md);
    for literal in [
        "### User",
        "</details>",
        "<script>alert(1)</script>",
        "# Title",
        "<!-- never closed",
        "I will close </details> early",
        "<details><summary>fake</summary>",
        "日本語のテスト 🚀 — 中文内容",
    ] {
        assert!(
            o.text.contains(literal),
            "missing text {literal:?} in {}",
            o.text
        );
    }
    // The unclosed fences in content were closed, so the content stayed code...
    assert!(o.code_blocks.contains(&"unclosed fence\n".to_string()));
    assert!(o
        .code_blocks
        .contains(&"A tilde fence never closed </details>\n".to_string()));
    // ...and the tool's JSON result is a code block, numbers as JS prints them.
    assert!(o.code_blocks.iter().any(|c| c.contains("\"ratio\": 1e+21")));
    // Cost: none recorded.
    assert!(md.ends_with("## Cost summary\n\nNo cost recorded for this session.\n"));
}

#[test]
fn markdown_header_and_cost_summary() {
    let md = export(sample::claude(), ExportFormat::Markdown).unwrap();
    assert!(md.starts_with(
        "# The test \\`parses\\_dates\\` fails on CI \\<sometimes\\>. Can you look?\n\n- **Agent:** claude\n"
    ));
    assert!(md.contains("- **Model:** claude-sonnet-4-5-20250929\n"));
    assert!(md.contains("- **Created:** 2025-03-04T10:15:00.000Z\n"));
    assert!(md.contains("- **Cost:** $0.0421\n"));
    let tail = md.split("## Cost summary\n\n").nth(1).unwrap();
    assert_eq!(
        tail,
        "- **Total:** $0.0421\n- **Input tokens:** 1520\n- **Output tokens:** 410\n\
         - **Cached tokens:** 12000\n- **Cache write tokens:** 800\n\n\
         **By model** (from per-message costs):\n\n\
         - claude-sonnet-4-5-20250929: $0.0421 over 2 messages (1520 input, 410 output tokens)\n"
    );
}

#[test]
fn export_errors_carry_spec_codes() {
    let home = tempfile::tempdir().unwrap();
    let client = common::client();
    let env = || Env::with_home(home.path());
    let e = client
        .export(env(), "nope", "x", ExportFormat::Json, None)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::AgentNotFound);
    let e = client
        .export(
            env(),
            "claude",
            "missing-session",
            ExportFormat::Markdown,
            None,
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionNotFound);
    let e = export_format(&serde_json::json!("xml")).unwrap_err();
    assert_eq!(e.code, ErrorCode::ValidationError);
    assert_eq!(
        export_format(&serde_json::json!("jsonl")).unwrap(),
        ExportFormat::Jsonl
    );
}

/// A tool's output is printed once: under the Tool message that carries its result when there is
/// one, else under the call (agents that keep results only inside the call).
#[test]
fn markdown_prints_each_tool_output_once() {
    let md = export(sample::claude(), ExportFormat::Markdown).unwrap();
    assert_eq!(
        md.matches("assert_eq!(parse(\"2025-01-02\"), local());")
            .count(),
        1
    );
    assert_eq!(md.matches("**Output:**").count(), 0);
    assert_eq!(md.matches("**Result of** `Read`").count(), 1);

    // The same session without its Tool messages: the output moves back under the call.
    let mut unanswered = sample::claude();
    let calls = unanswered
        .messages
        .iter()
        .filter(|m| m.tool_calls.iter().any(|c| c.output.is_some()))
        .count();
    assert!(calls > 0);
    unanswered.messages.retain(|m| m.tool_result.is_none());
    let md = export(unanswered, ExportFormat::Markdown).unwrap();
    assert_eq!(md.matches("**Output:**").count(), calls);
    assert_eq!(
        md.matches("assert_eq!(parse(\"2025-01-02\"), local());")
            .count(),
        1
    );
}

/// Adapters that build `raw` from database rows whatever the mode (the client drops it).
const RAW_FROM_ROWS: [&str; 3] = ["cursor", "hermes", "opencode"];

/// Each format loads no more than it writes (issue 18): `jsonl` and `markdown` load the session
/// without `raw`, and `markdown` without the copy of a tool's output kept on its call. For every
/// session `client` lists for `agent`, each export equals the export of the whole session as
/// `get` returns it. Returns how many sessions were checked.
fn exports_equal_whole_session_exports(client: &Client, agent: &str, env: &Env) -> usize {
    let adapter = agents::find(agent).unwrap();
    let ctx = client.context(env.clone());
    let list = common::list_all(client, agent, env.clone());
    for s in &list {
        let id = s.session_id.as_str();
        let whole = client.get(env.clone(), agent, id).unwrap();
        let call_outputs = |s: &Session| {
            s.messages
                .iter()
                .flat_map(|m| &m.tool_calls)
                .filter(|c| c.output.is_some())
                .count()
        };
        for format in [
            ExportFormat::Json,
            ExportFormat::Jsonl,
            ExportFormat::Markdown,
        ] {
            let out = client.export(env.clone(), agent, id, format, None).unwrap();
            assert!(
                out == export(whole.clone(), format).unwrap(),
                "{agent} {id}: {format:?} export differs from the whole session's"
            );
            let mode = load_mode(format);
            assert_eq!(mode.raw(), format == ExportFormat::Json);
            let lean = adapter.load(&ctx, id, mode).unwrap();
            if !mode.raw() && !RAW_FROM_ROWS.contains(&agent) {
                assert!(lean.raw.is_none(), "{agent} {id}: {format:?} loaded raw");
            }
            if format == ExportFormat::Markdown && agent == "claude" {
                assert!(
                    call_outputs(&lean) == 0 || call_outputs(&whole) == 0,
                    "{agent} {id}: markdown's load kept call outputs"
                );
            }
        }
    }
    list.len()
}

#[test]
fn exports_of_the_demo_home_equal_whole_session_exports() {
    let home = common::demo_home();
    let client = common::client();
    let env = Env::with_home(&home);
    for agent in agents::all() {
        let n = exports_equal_whole_session_exports(&client, agent.name(), &env);
        assert!(n > 0, "{}: the demo home has no session", agent.name());
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn exports_of_real_captures_equal_whole_session_exports() {
    let env = Env::from_pairs([]);
    for agent in ["claude", "codex"] {
        let client = common::client_over(agent, &common::real_fixtures().join(agent));
        let n = exports_equal_whole_session_exports(&client, agent, &env);
        assert!(n >= 3, "{agent}: {n} real captures listed");
    }
}
