//! What Pi, omp and OpenClaw share: their entries (one format family, Pi's) mapped to the session
//! model, and finding a session file by id. Each adapter adds only its paths and its extras.
//!
//! - Messages come from the active branch (`read::tree`): `user`, `assistant` (text, thinking,
//!   toolCall blocks), `toolResult` (paired to its call by `toolCallId`), `bashExecution` (a user
//!   `!` command, shown as a `bash` tool result), and `system`/`custom` text.
//! - The model is the assistant message's own `model`, else the last `model_change` before it
//!   (`modelId`, or omp's combined `provider/model`), else a v1 header's `modelId`.
//! - Token buckets from assistant `usage`: `input` already excludes `cacheRead`/`cacheWrite`;
//!   `output` includes reasoning, so `reasoningTokens` (omp, OpenClaw) is moved to its own bucket.
//!   `usage.cost.total` is the agent's own cost; an all-zero cost means "no price known", not free,
//!   so it is left unset for the cost engine to estimate.
//! - The session's usage is what was billed: every assistant message in the file, abandoned
//!   branches included, plus omp's `model_usage` side calls, but not entries a fork copied from its
//!   parent (they keep their original timestamps, earlier than the fork's header).
//! - Two clocks: entries carry ISO strings, messages epoch milliseconds; a message's time is its
//!   own, the session's span covers both.
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::agents::adapter::{FileTools, FormatVersion, ToolKind};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{
    add_usage_at, parse_timestamp, truncate_title, Message, ModelUsage, Role, Session,
    SessionSummary, Timestamp, Tokens, ToolCall, ToolResult,
};
use crate::read::fs::{files_noted, stamp, subdirs};
use crate::read::tree::{self, entry_time_ms, TreeDoc};

/// A built session plus what adapters need to decide on fallbacks.
#[derive(Debug)]
pub struct Built {
    pub session: Session,
    /// A `compaction` entry exists: OpenClaw may have zeroed the usage of messages before it.
    pub compacted: bool,
}

/// Read one session file and build it. `PARSE_ERROR` naming the path when it cannot be read or
/// holds no session records (empty, all garbage).
pub fn read_file(agent: &str, path: &Path, want_raw: bool) -> Result<Built> {
    let doc = TreeDoc::read(path).map_err(|e| Error::parse(path.display(), e))?;
    let mtime = stamp(path)
        .map(|s| chrono::DateTime::from_timestamp_nanos(s.mtime_ns as i64))
        .unwrap_or_default();
    build(agent, &doc, &id_from_file_name(path), mtime, want_raw)
        .map_err(|why| Error::parse(path.display(), why))
}

/// Build a session from its records. `fallback_id`/`fallback_time` stand in for a missing header.
pub fn build(
    agent: &str,
    doc: &TreeDoc,
    fallback_id: &str,
    fallback_time: Timestamp,
    want_raw: bool,
) -> std::result::Result<Built, String> {
    if doc.header.is_none() && doc.entries.is_empty() {
        return Err(if doc.bad_lines > 0 {
            format!("no session records ({} unreadable lines)", doc.bad_lines)
        } else {
            "no session records (empty)".to_string()
        });
    }
    // Every record of the format has a `type`: without a header or any typed entry, the file
    // holds none (see `Error::not_a_session`).
    if doc.header.is_none()
        && !doc
            .entries
            .iter()
            .any(|e| e.get("type").is_some_and(Value::is_string))
    {
        return Err(format!("holds no {agent} record, so it is not a session"));
    }
    let header = doc.header.as_ref();
    let id = doc
        .header_str("id")
        .filter(|s| !s.is_empty())
        .unwrap_or(fallback_id)
        .to_string();
    let header_time = header
        .and_then(|h| h.get("timestamp"))
        .and_then(parse_timestamp);
    let forked_from = ["parentSession", "branchedFrom"]
        .iter()
        .find_map(|k| doc.header_str(k).filter(|s| !s.is_empty()))
        .map(fork_ref_to_id);

    let path = tree::active_path(doc);
    let mut model = doc.header_str("modelId").map(str::to_string);
    // The model in effect in file order: a fallback for a message whose branch has no
    // `model_change` before it (hand-made and excerpted trees hang it off another root).
    let mut file_model: Vec<Option<String>> = Vec::with_capacity(doc.entries.len());
    let mut in_effect = model.clone();
    for e in &doc.entries {
        file_model.push(in_effect.clone());
        if e.get("type").and_then(Value::as_str) == Some("model_change") {
            in_effect = model_of_change(e).or(in_effect);
        }
    }
    let mut messages: Vec<Message> = Vec::new();
    let mut calls: HashMap<String, (usize, usize)> = HashMap::new();
    for &i in &path {
        let e = &doc.entries[i];
        match e.get("type").and_then(Value::as_str) {
            Some("model_change") => {
                if let Some(m) = model_of_change(e) {
                    model = Some(m);
                }
            }
            Some("message") => {
                if let Some(m) = e.get("message") {
                    let current = model.as_deref().or(file_model[i].as_deref());
                    push_message(e, m, current, &mut messages, &mut calls);
                }
            }
            Some("custom_message") if e.get("display").and_then(Value::as_bool) == Some(true) => {
                let text = text_of(e.get("content").unwrap_or(&Value::Null));
                if !text.is_empty() {
                    let mut m = Message::new(Role::System, text);
                    m.timestamp = e.get("timestamp").and_then(parse_timestamp);
                    messages.push(m);
                }
            }
            _ => {}
        }
    }

    let mut created = header_time;
    let mut updated = header_time;
    let mut compacted = false;
    let mut named: Option<String> = None;
    let mut usage: Vec<ModelUsage> = Vec::new();
    for e in &doc.entries {
        let t = entry_time_ms(e).and_then(chrono::DateTime::from_timestamp_millis);
        if let Some(t) = t {
            created = Some(created.map_or(t, |c| c.min(t)));
            updated = Some(updated.map_or(t, |u| u.max(t)));
        }
        // Entries a fork copied from its parent were billed to the parent.
        let copied =
            forked_from.is_some() && matches!((t, header_time), (Some(t), Some(h)) if t < h);
        match e.get("type").and_then(Value::as_str) {
            Some("compaction") => compacted = true,
            Some("session_info") => named = text_field(e, "name").or(named),
            Some("title_change") => named = text_field(e, "title").or(named),
            Some("message") if !copied => {
                let m = &e["message"];
                if m.get("role").and_then(Value::as_str) == Some("assistant") {
                    add_billed(&mut usage, m, model.as_deref().or(in_effect.as_deref()), t);
                }
            }
            Some("model_usage") if !copied => {
                add_billed(&mut usage, e, model.as_deref().or(in_effect.as_deref()), t)
            }
            _ => {}
        }
    }
    // A fork's copied entries are older than the fork itself: its header time is its start.
    // Otherwise the earliest time seen (v1 headers can be later than the first messages).
    let created = if forked_from.is_some() {
        header_time.or(created)
    } else {
        created
    }
    .unwrap_or(fallback_time);
    let updated = updated.unwrap_or(created).max(created);

    // omp's slot is rewritten in place (the current title); naming entries are newer than the
    // title a header got when it was written.
    let title = doc
        .title
        .as_ref()
        .and_then(|t| text_field(t, "title"))
        .or(named)
        .or_else(|| header.and_then(|h| text_field(h, "title")))
        .or_else(|| {
            messages
                .iter()
                .find(|m| m.role == Role::User && !m.content.trim().is_empty())
                .map(|m| m.content.clone())
        })
        .map(|t| truncate_title(&t, 100))
        .unwrap_or_default();

    let mut summary = SessionSummary::new(agent, &id, created, updated);
    summary.title = title;
    summary.cwd = doc.header_str("cwd").map(str::to_string);
    summary.forked_from = forked_from;
    let raw = want_raw.then(|| tree::raw(doc, &path).into());
    let mut session = Session {
        summary,
        messages,
        raw,
    };
    session.derive_summary_fields();
    if session.summary.model.is_none() {
        session.summary.model = model.or(in_effect);
    }
    session.summary.usage = usage;
    Ok(Built { session, compacted })
}

/// Map one `message` entry and append it, pairing tool results with their calls.
fn push_message(
    entry: &Value,
    m: &Value,
    model: Option<&str>,
    out: &mut Vec<Message>,
    calls: &mut HashMap<String, (usize, usize)>,
) {
    let time = m
        .get("timestamp")
        .and_then(parse_timestamp)
        .or_else(|| entry.get("timestamp").and_then(parse_timestamp));
    let content = m.get("content").unwrap_or(&Value::Null);
    let mut msg = match m.get("role").and_then(Value::as_str) {
        Some("user") => Message::new(Role::User, text_of(content)),
        Some("assistant") => {
            let mut msg = Message::new(Role::Assistant, text_of(content));
            let thinking: Vec<&str> = blocks(content, "thinking")
                .filter_map(|b| b.get("thinking").and_then(Value::as_str))
                .filter(|t| !t.is_empty())
                .collect();
            if !thinking.is_empty() {
                msg.thinking = Some(thinking.join("\n\n"));
            }
            for b in blocks(content, "toolCall") {
                let id = str_of(b, "id");
                calls.insert(id.clone(), (out.len(), msg.tool_calls.len()));
                msg.tool_calls.push(ToolCall {
                    tool_call_id: id,
                    tool_name: str_of(b, "name"),
                    input: b.get("arguments").cloned().unwrap_or(Value::Null),
                    output: None,
                    duration_ms: None,
                    output_at_result: false,
                });
            }
            msg.model = m
                .get("model")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .or(model)
                .map(str::to_string);
            if let Some(u) = m.get("usage") {
                msg.tokens = usage_tokens(u);
                msg.native_cost_usd = usage_cost(u);
            }
            msg
        }
        Some("toolResult") => {
            let text = text_of(content);
            let id = str_of(m, "toolCallId");
            let name = str_of(m, "toolName");
            let mut msg = Message::new(Role::Tool, text.clone());
            msg.tool_result = Some(ToolResult {
                tool_call_id: id.clone(),
                tool_name: name,
                output: Value::String(text.clone()),
            });
            if let Some(&(mi, ci)) = calls.get(&id) {
                if let Some(call) = out.get_mut(mi).and_then(|x| x.tool_calls.get_mut(ci)) {
                    call.output = Some(Value::String(text));
                    call.duration_ms = m
                        .get("details")
                        .and_then(|d| d.get("durationMs"))
                        .and_then(Value::as_f64);
                }
            }
            msg
        }
        Some("bashExecution") => {
            let command = str_of(m, "command");
            let output = str_of(m, "output");
            let mut msg = Message::new(Role::Tool, format!("$ {command}\n{output}"));
            msg.tool_result = Some(ToolResult {
                tool_call_id: str_of(entry, "id"),
                tool_name: "bash".to_string(),
                output: json!({
                    "command": command,
                    "output": output,
                    "exitCode": m.get("exitCode").cloned().unwrap_or(Value::Null),
                }),
            });
            msg
        }
        Some("system" | "custom" | "hookMessage")
            if m.get("display").and_then(Value::as_bool) != Some(false) =>
        {
            let text = text_of(content);
            if text.is_empty() {
                return;
            }
            Message::new(Role::System, text)
        }
        _ => return,
    };
    msg.timestamp = time;
    out.push(msg);
}

/// Add one billed call (an assistant message or an omp `model_usage` entry, made at `at`) to the
/// usage list.
fn add_billed(
    usage: &mut Vec<ModelUsage>,
    m: &Value,
    fallback_model: Option<&str>,
    at: Option<Timestamp>,
) {
    let Some(u) = m.get("usage") else { return };
    let tokens = usage_tokens(u);
    let cost = usage_cost(u);
    if tokens.is_none() && cost.is_none() {
        return;
    }
    let model = m
        .get("model")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .or(fallback_model)
        .unwrap_or("");
    add_usage_at(usage, model, &tokens.unwrap_or_default(), cost, at);
}

/// Token buckets of a Pi-family `usage` object; `None` when every count is zero.
pub fn usage_tokens(u: &Value) -> Option<Tokens> {
    let n = |k: &str| {
        u.get(k)
            .and_then(|v| v.as_u64().or_else(|| v.as_f64().map(|f| f.max(0.0) as u64)))
            .unwrap_or(0)
    };
    let output = n("output");
    let reasoning = n("reasoningTokens").min(output);
    let t = Tokens {
        input: n("input"),
        output: output - reasoning,
        cache_read: n("cacheRead"),
        cache_write: n("cacheWrite"),
        reasoning,
        ..Default::default()
    };
    (!t.is_zero()).then_some(t)
}

/// The agent's own cost (`usage.cost.total`), when it is a positive number.
pub fn usage_cost(u: &Value) -> Option<f64> {
    u.get("cost")?
        .get("total")?
        .as_f64()
        .filter(|c| c.is_finite() && *c > 0.0)
}

fn model_of_change(e: &Value) -> Option<String> {
    if let Some(m) = text_field(e, "modelId") {
        return Some(m);
    }
    // omp: one combined "provider/model" string; assistant messages carry the bare model.
    let combined = text_field(e, "model")?;
    Some(match combined.split_once('/') {
        Some((_, m)) if !m.is_empty() => m.to_string(),
        _ => combined,
    })
}

fn blocks<'a>(content: &'a Value, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |b| b.get("type").and_then(Value::as_str) == Some(kind))
}

/// The text of a content value: a string, or the `text` blocks of an array joined by newlines.
pub fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(_) => blocks(content, "text")
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn text_field(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A session id from a file name: `<ISO ts>_<id>.jsonl` (Pi, omp, OpenClaw forks) or `<id>.jsonl`.
pub fn id_from_file_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".jsonl").unwrap_or(&name);
    match stem.split_once('_') {
        Some((ts, id)) if looks_like_file_timestamp(ts) && !id.is_empty() => id.to_string(),
        _ => stem.to_string(),
    }
}

/// `2025-12-09T00-52-54-397Z`: an ISO time with ':' and '.' replaced, as the agents name files.
fn looks_like_file_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 11 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[10] == b'T'
}

/// A fork link as a session id: Pi (and Pi v1's `branchedFrom`) store the parent's file path, omp
/// the parent's session id.
pub fn fork_ref_to_id(v: &str) -> String {
    if v.contains(['/', '\\']) || v.ends_with(".jsonl") {
        let last = v.rsplit(['/', '\\']).next().unwrap_or(v);
        id_from_file_name(Path::new(last))
    } else {
        v.to_string()
    }
}

/// Session files (`*.jsonl`) directly in `root` and in its real subdirectories; what bears
/// such a name but is not a regular file is told to `ctx`.
pub fn session_files(ctx: &Context, root: &Path, keep: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = files_noted(ctx, root, keep);
    for d in subdirs(root) {
        out.extend(files_noted(ctx, &d, keep));
    }
    out
}

/// The newest header `version` of the family's format this reader was written for.
const KNOWN_VERSION: u64 = 3;

/// The `version` of the session header of `path` (after omp's title slot), compared with the
/// newest known.
pub fn header_version(path: &Path) -> Option<FormatVersion> {
    let v = tree::read_header(path)?.get("version")?.as_u64()?;
    Some(FormatVersion::numbered("version", v, KNOWN_VERSION))
}

/// Find the file of session `id` under `roots` without reading other sessions: first by file
/// name (`<ts>_<id>.jsonl` or `<id>.jsonl`), checked against its header; then, for files named
/// some other way, by reading headers only.
pub fn find_file(
    ctx: &Context,
    roots: &[PathBuf],
    id: &str,
    keep: &dyn Fn(&str) -> bool,
) -> Option<PathBuf> {
    let by_name =
        |n: &str| keep(n) && (n == format!("{id}.jsonl") || n.ends_with(&format!("_{id}.jsonl")));
    let header_id = |p: &Path| {
        tree::read_header(p).and_then(|h| h.get("id").and_then(Value::as_str).map(str::to_string))
    };
    let named: Vec<PathBuf> = roots
        .iter()
        .flat_map(|r| session_files(ctx, r, &by_name))
        .collect();
    // A name match whose header names another session (or has no header) is still the best
    // guess when no header anywhere matches.
    if let Some(p) = named.iter().find(|p| header_id(p).as_deref() == Some(id)) {
        return Some(p.clone());
    }
    let by_header = roots
        .iter()
        .flat_map(|r| session_files(ctx, r, keep))
        .find(|p| header_id(p).as_deref() == Some(id));
    by_header.or_else(|| named.into_iter().find(|p| header_id(p).is_none()))
}

/// The tools of Pi and omp that touch files (`Agent::file_tools`).
pub const FILE_TOOLS: FileTools = &[
    ("read", ToolKind::Read),
    ("write", ToolKind::Write),
    ("edit", ToolKind::Edit),
    ("bash", ToolKind::Shell),
];

/// OpenClaw's: Pi's, its `exec` and `apply_patch`, and the names its schema fixtures carry.
pub const OPENCLAW_FILE_TOOLS: FileTools = &[
    ("read", ToolKind::Read),
    ("write", ToolKind::Write),
    ("edit", ToolKind::Edit),
    ("edit_file", ToolKind::Edit),
    ("apply_patch", ToolKind::Patch),
    ("bash", ToolKind::Shell),
    ("exec", ToolKind::Shell),
    ("shell_exec", ToolKind::Shell),
    ("run_terminal", ToolKind::Shell),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_names_and_fork_links() {
        assert_eq!(
            id_from_file_name(Path::new(
                "/s/--x--/2025-12-09T00-52-54-397Z_d97339c6-6c10-4827-846b-9ff1d9c3dc37.jsonl"
            )),
            "d97339c6-6c10-4827-846b-9ff1d9c3dc37"
        );
        assert_eq!(
            id_from_file_name(Path::new("my_session.jsonl")),
            "my_session"
        );
        assert_eq!(
            fork_ref_to_id("/h/.pi/agent/sessions/--a--/2025-12-09T00-52-54-397Z_abc.jsonl"),
            "abc"
        );
        assert_eq!(fork_ref_to_id("019e19b4-eb48"), "019e19b4-eb48");
    }

    #[test]
    fn usage_buckets_move_reasoning_out_of_output() {
        let u = json!({"input":10,"output":50,"cacheRead":7,"cacheWrite":3,"reasoningTokens":20,
                       "cost":{"total":0.5}});
        assert_eq!(
            usage_tokens(&u).unwrap(),
            Tokens {
                input: 10,
                output: 30,
                cache_read: 7,
                cache_write: 3,
                reasoning: 20,
                ..Default::default()
            }
        );
        assert_eq!(usage_cost(&u), Some(0.5));
        let zero = json!({"input":0,"output":0,"cost":{"total":0}});
        assert_eq!(usage_tokens(&zero), None);
        assert_eq!(usage_cost(&zero), None);
    }

    #[test]
    fn omp_model_change_is_provider_slash_model() {
        assert_eq!(
            model_of_change(&json!({"model":"anthropic/claude-x"})).as_deref(),
            Some("claude-x")
        );
        assert_eq!(
            model_of_change(&json!({"provider":"p","modelId":"m"})).as_deref(),
            Some("m")
        );
    }
}
