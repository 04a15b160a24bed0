//! The `markdown` export: a metadata header, one `### Role` section per message (tool calls in
//! fenced blocks, thinking in `<details>`), and a cost summary. All message text goes through
//! [`escape`] so that no content can fake a section or open HTML that outlives it.
use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::Value;

use super::escape::{self, code_span, inline};
use super::json::write_pretty;
use crate::model::{to_iso, CostRecord, Message, Role, Session, ToolCall};

/// Output written between two returns of freed memory to the system.
const RELEASE_EVERY: usize = 2 << 20;

/// Each message is dropped once written, and its memory given back as the output grows, so the
/// process holds about the larger of the session and its export, not both.
pub fn markdown(out: &mut String, mut session: Session) {
    header(out, &session);
    out.push_str("## Messages\n\n");
    // Calls whose result has a message of its own: their output is printed there, in time order,
    // and not a second time under the call.
    let answered: HashSet<String> = session
        .messages
        .iter()
        .filter_map(|m| m.tool_result.as_ref())
        .map(|r| r.tool_call_id.clone())
        .collect();
    // The cost summary reads every message: made before they go.
    let mut costs = String::new();
    cost_summary(&mut costs, &session);
    let mut released_at = out.len();
    for m in std::mem::take(&mut session.messages) {
        message(out, &m, &answered);
        drop(m);
        if out.len() - released_at >= RELEASE_EVERY {
            crate::memory::release_freed();
            released_at = out.len();
        }
    }
    out.push_str(&costs);
}

fn header(out: &mut String, s: &Session) {
    let sum = &s.summary;
    let title = if sum.title.trim().is_empty() {
        format!("{} session {}", sum.agent, sum.session_id)
    } else {
        sum.title.clone()
    };
    let _ = writeln!(out, "# {}\n", inline(&title));
    let _ = writeln!(out, "- **Agent:** {}", inline(&sum.agent));
    let _ = writeln!(out, "- **Session:** {}", code_span(&sum.session_id));
    let _ = writeln!(out, "- **Unified ID:** {}", code_span(&sum.unified_id));
    if let Some(model) = &sum.model {
        let _ = writeln!(out, "- **Model:** {}", inline(model));
    }
    let _ = writeln!(out, "- **Created:** {}", to_iso(&sum.created_at));
    let _ = writeln!(out, "- **Updated:** {}", to_iso(&sum.updated_at));
    let _ = writeln!(
        out,
        "- **Messages:** {} ({} turn{})",
        sum.message_count,
        sum.turn_count,
        if sum.turn_count == 1 { "" } else { "s" }
    );
    if let Some(cwd) = &sum.cwd {
        let _ = writeln!(out, "- **Directory:** {}", code_span(cwd));
    }
    if let Some(parent) = &sum.forked_from {
        let _ = writeln!(out, "- **Forked from:** {}", code_span(parent));
    }
    if !sum.tags.is_empty() {
        let tags: Vec<String> = sum.tags.iter().map(|t| inline(t)).collect();
        let _ = writeln!(out, "- **Tags:** {}", tags.join(", "));
    }
    match &sum.cost {
        Some(c) => {
            let _ = writeln!(out, "- **Cost:** {}", usd(c.total_usd));
        }
        None => out.push_str("- **Cost:** not recorded\n"),
    }
    out.push('\n');
}

fn role_title(role: Role) -> &'static str {
    match role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
        Role::Tool => "Tool",
    }
}

fn message(out: &mut String, m: &Message, answered: &HashSet<String>) {
    let _ = writeln!(out, "### {}\n", role_title(m.role));
    let mut meta = Vec::new();
    if let Some(t) = &m.timestamp {
        meta.push(to_iso(t));
    }
    if let Some(model) = &m.model {
        meta.push(inline(model));
    }
    if let Some(agent) = &m.subagent {
        meta.push(format!("subagent {}", inline(agent)));
    }
    if let Some(c) = &m.cost {
        meta.push(usd(c.total_usd));
    }
    if !meta.is_empty() {
        let _ = writeln!(out, "*{}*\n", meta.join(" · "));
    }
    if let Some(thinking) = m.thinking.as_deref().filter(|t| !t.trim().is_empty()) {
        out.push_str("<details>\n<summary>Thinking</summary>\n\n");
        escape::block(out, thinking);
        out.push_str("\n</details>\n\n");
    }
    match (&m.tool_result, m.role) {
        // Tool output is raw text, not Markdown: show it as it is, fenced.
        (Some(r), _) => {
            let _ = writeln!(
                out,
                "**Result of** {} ({})\n",
                code_span(&r.tool_name),
                code_span(&r.tool_call_id)
            );
            if m.content.is_empty() {
                value_block(out, &r.output);
            } else {
                escape::fenced(out, &m.content, "");
            }
            out.push('\n');
        }
        (None, Role::Tool) if !m.content.is_empty() => {
            escape::fenced(out, &m.content, "");
            out.push('\n');
        }
        _ if !m.content.is_empty() => {
            escape::block(out, &m.content);
            out.push('\n');
        }
        _ => {}
    }
    for call in &m.tool_calls {
        tool_call(out, call, answered.contains(call.tool_call_id.as_str()));
    }
}

fn tool_call(out: &mut String, call: &ToolCall, answered: bool) {
    let _ = write!(
        out,
        "**Tool call:** {} ({})",
        code_span(&call.tool_name),
        code_span(&call.tool_call_id)
    );
    if let Some(ms) = call.duration_ms {
        let _ = write!(out, " · {} ms", super::json::js_number(ms));
    }
    out.push_str("\n\n");
    value_block(out, &call.input);
    out.push('\n');
    if let Some(output) = call.output.as_ref().filter(|_| !answered) {
        out.push_str("**Output:**\n\n");
        value_block(out, output);
        out.push('\n');
    }
}

/// A string as plain fenced text; anything else as pretty JSON.
fn value_block(out: &mut String, v: &Value) {
    match v {
        Value::String(s) => escape::fenced(out, s, ""),
        other => {
            let mut buf = Vec::new();
            // Writing a Value into a Vec cannot fail.
            let _ = write_pretty(&mut buf, other);
            escape::fenced(out, &String::from_utf8_lossy(&buf), "json");
        }
    }
}

fn cost_summary(out: &mut String, s: &Session) {
    out.push_str("## Cost summary\n\n");
    let Some(c) = &s.summary.cost else {
        out.push_str("No cost recorded for this session.\n");
        return;
    };
    let _ = writeln!(out, "- **Total:** {}", usd(c.total_usd));
    tokens_lines(out, c);
    // Per model, from the messages' own costs, in order of first use.
    let mut by_model: Vec<(String, u64, CostRecord)> = Vec::new();
    for m in &s.messages {
        let Some(mc) = &m.cost else { continue };
        let model = m
            .model
            .clone()
            .or_else(|| s.summary.model.clone())
            .unwrap_or_else(|| "unknown model".to_string());
        let i = match by_model.iter().position(|(name, _, _)| *name == model) {
            Some(i) => i,
            None => {
                by_model.push((model, 0, CostRecord::default()));
                by_model.len() - 1
            }
        };
        let entry = &mut by_model[i];
        entry.1 += 1;
        entry.2.total_usd += mc.total_usd;
        entry.2.input_tokens += mc.input_tokens;
        entry.2.output_tokens += mc.output_tokens;
    }
    if !by_model.is_empty() {
        out.push_str("\n**By model** (from per-message costs):\n\n");
        for (model, n, c) in &by_model {
            let _ = writeln!(
                out,
                "- {}: {} over {} message{} ({} input, {} output tokens)",
                inline(model),
                usd(c.total_usd),
                n,
                if *n == 1 { "" } else { "s" },
                c.input_tokens,
                c.output_tokens
            );
        }
    }
}

fn tokens_lines(out: &mut String, c: &CostRecord) {
    let _ = writeln!(out, "- **Input tokens:** {}", c.input_tokens);
    let _ = writeln!(out, "- **Output tokens:** {}", c.output_tokens);
    if let Some(t) = c.thinking_tokens {
        let _ = writeln!(out, "- **Thinking tokens:** {t}");
    }
    if let Some(t) = c.cached_tokens {
        let _ = writeln!(out, "- **Cached tokens:** {t}");
    }
    if let Some(t) = c.cache_write_tokens {
        let _ = writeln!(out, "- **Cache write tokens:** {t}");
    }
}

/// Dollars with four decimals, or six for amounts under a hundredth of a cent.
fn usd(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.0001 {
        format!("${x:.6}")
    } else {
        format!("${x:.4}")
    }
}
