//! Copilot CLI event streams (`events.jsonl`, flat `<id>.jsonl`) → one `Session`.
//!
//! Events are `{type, data, id, timestamp, parentId}`. Messages come from `system.message`,
//! `user.message` (its `content`: `transformedContent` has injected reminders) and
//! `assistant.message`; tool calls from the `toolCallId`s of `assistant.message.toolRequests`
//! and `tool.execution_start` (one call per id, never both), results from
//! `tool.execution_complete` (a `tool` message, and the call's `output`). Notices (`session.info`,
//! `session.error`, `hook.*`, `abort`, …) and unknown types stay in `raw` only.
//!
//! Usage: a process segment ends with `session.shutdown`, whose `modelMetrics` hold the segment's
//! per-model totals (segments add up; a resumed session has several). A segment without them
//! (crashed, still running, or an old build) falls back to its `assistant.usage` events, else to
//! the per-message `outputTokens` (the same tokens: never both), plus compaction calls.
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

use crate::error::Result;
use crate::model::{
    add_total, add_usage_at, merge_usage, parse_timestamp, truncate_title, Message, ModelUsage,
    Raw, Role, Session, SessionSummary, Timestamp, Tokens, ToolCall, ToolResult,
};
use crate::read::jsonl;

use super::workspace::Workspace;
use crate::agents::adapter::Mode;

pub fn parse_events(path: &Path, mode: Mode, fallback_id: &str, ws: &Workspace) -> Result<Session> {
    let mut b = Builder::new(mode);
    jsonl::read_values(path, "copilot", "events", |ev, bytes| {
        // Every Copilot event has a `type`.
        let known = ev.get("type").is_some_and(Value::is_string);
        b.apply(ev);
        if b.mode.raw() {
            // The event's text, not its parsed tree: a quarter of the memory.
            b.raw.push(Raw::line(bytes));
        }
        known
    })?;
    Ok(b.finish(path, fallback_id, ws))
}

#[derive(Default)]
struct Segment {
    per_call: Vec<ModelUsage>,
    per_message: Vec<ModelUsage>,
    compaction: Vec<ModelUsage>,
}

struct Builder {
    mode: Mode,
    session_id: Option<String>,
    start: Option<Timestamp>,
    first: Option<Timestamp>,
    latest: Option<Timestamp>,
    cwd: Option<String>,
    /// The last branch a start or resume recorded.
    git_branch: Option<String>,
    model: Option<String>,
    messages: Vec<Message>,
    /// toolCallId → (message index, call index).
    calls: HashMap<String, (usize, usize)>,
    started: HashMap<String, Timestamp>,
    reasoning: Vec<String>,
    /// The assistant message of the current turn that orphan tool executions attach to.
    turn_assistant: Option<usize>,
    usage: Vec<ModelUsage>,
    segment: Segment,
    raw: Vec<Box<RawValue>>,
}

impl Builder {
    fn new(mode: Mode) -> Self {
        Builder {
            mode,
            session_id: None,
            start: None,
            first: None,
            latest: None,
            cwd: None,
            git_branch: None,
            model: None,
            messages: Vec::new(),
            calls: HashMap::new(),
            started: HashMap::new(),
            reasoning: Vec::new(),
            turn_assistant: None,
            usage: Vec::new(),
            segment: Segment::default(),
            raw: Vec::new(),
        }
    }

    fn apply(&mut self, ev: Value) {
        if let Value::Object(obj) = &ev {
            let ts = obj.get("timestamp").and_then(parse_timestamp);
            if let Some(t) = ts {
                self.first = Some(self.first.map_or(t, |f| f.min(t)));
                self.latest = Some(self.latest.map_or(t, |l| l.max(t)));
            }
            let empty = Map::new();
            let data = obj.get("data").and_then(Value::as_object).unwrap_or(&empty);
            let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
            self.event(kind, data, ts);
        }
    }

    fn event(&mut self, kind: &str, d: &Map<String, Value>, ts: Option<Timestamp>) {
        match kind {
            "session.start" => {
                self.session_id = str_of(d, "sessionId").or(self.session_id.take());
                self.start = d.get("startTime").and_then(parse_timestamp).or(self.start);
                self.set_cwd(d);
                self.set_model(str_of(d, "selectedModel"));
            }
            "session.resume" => {
                self.set_cwd(d);
                self.set_model(str_of(d, "selectedModel"));
            }
            "session.model_change" => self.set_model(str_of(d, "newModel")),
            "session.auto_mode_resolved" => self.set_model(str_of(d, "chosenModel")),
            "assistant.turn_start" => {
                self.turn_assistant = None;
                self.set_model(str_of(d, "model"));
            }
            "system.message" => {
                self.push(Role::System, text(d.get("content")), ts, d);
            }
            "user.message" => {
                self.turn_assistant = None;
                self.push(Role::User, text(d.get("content")), ts, d);
            }
            "assistant.reasoning" => {
                if let Some(t) = str_of(d, "content") {
                    self.reasoning.push(t);
                }
            }
            "assistant.message" => self.assistant(d, ts),
            "tool.execution_start" => self.tool_start(d, ts),
            "tool.execution_complete" => self.tool_complete(d, ts),
            "assistant.usage" => {
                let model = str_of(d, "model").or_else(|| self.model.clone());
                add_usage_at(
                    &mut self.segment.per_call,
                    model.as_deref().unwrap_or(""),
                    &usage_tokens(d),
                    None,
                    ts,
                );
            }
            "session.compaction_complete" => {
                if let Some(u) = d.get("compactionTokensUsed").and_then(Value::as_object) {
                    let model = str_of(u, "model").or_else(|| self.model.clone());
                    add_usage_at(
                        &mut self.segment.compaction,
                        model.as_deref().unwrap_or(""),
                        &usage_tokens(u),
                        None,
                        ts,
                    );
                }
            }
            "session.shutdown" => self.shutdown(d),
            _ => {}
        }
    }

    fn set_cwd(&mut self, d: &Map<String, Value>) {
        let context = d.get("context");
        let branch = context
            .and_then(|c| c.get("branch"))
            .and_then(Value::as_str);
        if let Some(b) = branch.filter(|b| !b.is_empty()) {
            self.git_branch = Some(b.to_string());
        }
        if self.cwd.is_none() {
            self.cwd = d
                .get("context")
                .and_then(|c| c.get("cwd"))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string);
        }
    }

    /// `auto` is a routing mode, not a model: the resolved model arrives in a later event.
    fn set_model(&mut self, m: Option<String>) {
        if let Some(m) = m.filter(|m| !m.is_empty() && m != "auto") {
            self.model = Some(m);
        }
    }

    fn push(
        &mut self,
        role: Role,
        content: String,
        ts: Option<Timestamp>,
        d: &Map<String, Value>,
    ) -> usize {
        let mut m = Message::new(role, content);
        m.timestamp = ts;
        m.subagent = str_of(d, "parentToolCallId");
        if self.mode == Mode::Summary {
            if role == Role::User {
                m.content = truncate_title(&m.content, 100);
            } else {
                m.content.clear();
            }
        }
        self.messages.push(m);
        self.messages.len() - 1
    }

    fn assistant(&mut self, d: &Map<String, Value>, ts: Option<Timestamp>) {
        let model = str_of(d, "model")
            .filter(|m| m != "auto")
            .or_else(|| self.model.clone());
        let i = self.push(Role::Assistant, text(d.get("content")), ts, d);
        let reasoning = std::mem::take(&mut self.reasoning);
        let m = &mut self.messages[i];
        m.model = model.clone();
        if self.mode.messages() {
            m.thinking = str_of(d, "reasoningText")
                .or_else(|| (!reasoning.is_empty()).then(|| reasoning.join("\n\n")));
        }
        if let Some(out) = d.get("outputTokens").and_then(Value::as_u64) {
            let t = Tokens {
                output: out,
                ..Tokens::default()
            };
            if !t.is_zero() {
                m.tokens = Some(t);
                add_usage_at(
                    &mut self.segment.per_message,
                    model.as_deref().unwrap_or(""),
                    &t,
                    None,
                    ts,
                );
            }
        }
        if let Some(Value::Array(reqs)) = d.get("toolRequests") {
            for r in reqs.iter().filter_map(Value::as_object) {
                let Some(id) = str_of(r, "toolCallId") else {
                    continue;
                };
                if self.calls.contains_key(&id) {
                    continue;
                }
                let call = ToolCall {
                    tool_call_id: id.clone(),
                    tool_name: str_of(r, "name").unwrap_or_default(),
                    input: self.keep(arguments(r.get("arguments"))),
                    output: None,
                    duration_ms: None,
                    output_at_result: false,
                };
                let m = &mut self.messages[i];
                m.tool_calls.push(call);
                self.calls.insert(id, (i, m.tool_calls.len() - 1));
            }
        }
        self.turn_assistant = Some(i);
    }

    fn tool_start(&mut self, d: &Map<String, Value>, ts: Option<Timestamp>) {
        let Some(id) = str_of(d, "toolCallId") else {
            return;
        };
        if let Some(t) = ts {
            self.started.insert(id.clone(), t);
        }
        let name = str_of(d, "toolName").unwrap_or_default();
        let input = self.keep(arguments(d.get("arguments")));
        if let Some(&(mi, ci)) = self.calls.get(&id) {
            // The execution event is authoritative for what actually ran.
            let call = &mut self.messages[mi].tool_calls[ci];
            if !name.is_empty() {
                call.tool_name = name;
            }
            if !input.is_null() {
                call.input = input;
            }
            return;
        }
        // A tool run no assistant message announced: it belongs to the current turn's reply, or
        // to a tool-only reply of its own.
        let mi = match self.turn_assistant {
            Some(mi) => mi,
            None => {
                let mi = self.push(Role::Assistant, String::new(), ts, d);
                self.messages[mi].model = str_of(d, "model").or_else(|| self.model.clone());
                self.turn_assistant = Some(mi);
                mi
            }
        };
        let m = &mut self.messages[mi];
        m.tool_calls.push(ToolCall {
            tool_call_id: id.clone(),
            tool_name: name,
            input,
            output: None,
            duration_ms: None,
            output_at_result: false,
        });
        self.calls.insert(id, (mi, m.tool_calls.len() - 1));
    }

    fn tool_complete(&mut self, d: &Map<String, Value>, ts: Option<Timestamp>) {
        let id = str_of(d, "toolCallId").unwrap_or_default();
        let output = self.keep(result(d));
        // The tool's own measure first; else the gap between start and completion.
        let duration = d
            .get("toolTelemetry")
            .and_then(|t| t.get("metrics"))
            .and_then(|m| m.get("durationMs"))
            .and_then(Value::as_f64)
            .or_else(|| {
                let (s, e) = (self.started.get(&id)?, ts?);
                Some((e - *s).num_milliseconds().max(0) as f64)
            });
        let mut name = str_of(d, "toolName").unwrap_or_default();
        if let Some(&(mi, ci)) = self.calls.get(&id) {
            let call = &mut self.messages[mi].tool_calls[ci];
            call.output = Some(output.clone());
            call.duration_ms = duration;
            if name.is_empty() {
                name = call.tool_name.clone();
            }
        }
        let i = self.push(Role::Tool, String::new(), ts, d);
        if self.mode.messages() {
            self.messages[i].tool_result = Some(ToolResult {
                tool_call_id: id,
                tool_name: name,
                output,
            });
        }
    }

    fn shutdown(&mut self, d: &Map<String, Value>) {
        let mut metrics = Vec::new();
        if let Some(Value::Object(models)) = d.get("modelMetrics") {
            for (model, m) in models {
                if let Some(u) = m.get("usage").and_then(Value::as_object) {
                    // Session totals per model: no prompt sizes, so no long-prompt band.
                    add_total(&mut metrics, model, &usage_tokens(u), None);
                }
            }
        }
        let segment = std::mem::take(&mut self.segment);
        if metrics.is_empty() {
            self.close_without_totals(segment);
        } else {
            for u in metrics {
                merge_usage(&mut self.usage, &u);
            }
        }
    }

    fn close_without_totals(&mut self, seg: Segment) {
        let calls = if seg.per_call.is_empty() {
            seg.per_message
        } else {
            seg.per_call
        };
        for u in calls.iter().chain(seg.compaction.iter()) {
            merge_usage(&mut self.usage, u);
        }
    }

    fn keep(&self, v: Value) -> Value {
        if self.mode.messages() {
            v
        } else {
            Value::Null
        }
    }

    fn finish(mut self, path: &Path, fallback_id: &str, ws: &Workspace) -> Session {
        let seg = std::mem::take(&mut self.segment);
        self.close_without_totals(seg);
        let mtime = super::mtime(path);
        let id = self
            .session_id
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| fallback_id.to_string());
        let created = self
            .start
            .or(self.first)
            .or(ws.created_at)
            .or(mtime)
            .unwrap_or_default();
        let updated = self
            .latest
            .or(ws.updated_at)
            .or(mtime)
            .unwrap_or(created)
            .max(created);
        let mut s = SessionSummary::new("copilot", &id, created, updated);
        s.title = title(ws, &self.messages);
        s.cwd = ws.cwd.clone().or(self.cwd.take());
        // The workspace file is rewritten as the session goes on: its branch is the latest.
        s.git_branch = ws.branch.clone().or(self.git_branch.take());
        s.usage = std::mem::take(&mut self.usage);
        s.usage.retain(|u| !u.tokens.is_zero());
        let raw = self
            .mode
            .raw()
            .then(|| Raw::Lines(std::mem::take(&mut self.raw)));
        let mut session = Session {
            summary: s,
            messages: self.messages,
            raw,
        };
        session.derive_summary_fields();
        session
    }
}

/// `workspace.yaml`'s `name` (user-given or generated), else the first user prompt.
pub fn title(ws: &Workspace, messages: &[Message]) -> String {
    match ws.name.as_deref().filter(|n| !n.trim().is_empty()) {
        Some(n) => truncate_title(n, 100),
        None => messages
            .iter()
            .find(|m| m.role == Role::User && !m.content.trim().is_empty())
            .map(|m| truncate_title(&m.content, 100))
            .unwrap_or_default(),
    }
}

/// Copilot's usage fields → our buckets. `inputTokens` counts the whole prompt, cache reads and
/// writes included (real totals satisfy input ≥ read + write with a small remainder); where a
/// record does not, the fields are taken as already separate. `outputTokens` includes
/// `reasoningTokens` likewise.
fn usage_tokens(u: &Map<String, Value>) -> Tokens {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let (input, read, write) = (
        n("inputTokens"),
        n("cacheReadTokens"),
        n("cacheWriteTokens"),
    );
    let (output, reasoning) = (n("outputTokens"), n("reasoningTokens"));
    let uncached = if input >= read + write {
        input - read - write
    } else if input >= read {
        input - read
    } else {
        input
    };
    Tokens {
        input: uncached,
        output: if output >= reasoning {
            output - reasoning
        } else {
            output
        },
        cache_read: read,
        cache_write: write,
        reasoning,
        ..Default::default()
    }
}

/// `arguments` is an object, or (some builds) the same object as a JSON string.
fn arguments(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// What a tool returned: `result.content` (older builds wrote `result` as a bare string); a failed
/// call's `error` when there is no result.
fn result(d: &Map<String, Value>) -> Value {
    match d.get("result") {
        Some(Value::Object(r)) => match r.get("content") {
            Some(c) if !c.is_null() => c.clone(),
            _ => r
                .get("detailedContent")
                .cloned()
                .unwrap_or_else(|| Value::Object(r.clone())),
        },
        Some(v) if !v.is_null() => v.clone(),
        _ => d.get("error").cloned().unwrap_or(Value::Null),
    }
}

/// A content field: a string, or parts that are strings or `{text}` (both formats write these).
pub(super) fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn str_of(m: &Map<String, Value>, k: &str) -> Option<String> {
    m.get(k).and_then(Value::as_str).map(str::to_string)
}
