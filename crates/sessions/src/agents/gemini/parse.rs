//! Gemini chat records → one `Session`.
//!
//! A chat file is a log of upserts, not a list of messages: a message is re-appended with the same
//! `id` whenever tokens or tool calls are added (the last copy wins, in first-seen order), `$set`
//! changes metadata (and `$set.messages` replaces every message), `$rewindTo` drops a message and
//! everything after it. The legacy whole-file `.json` document is the same metadata plus
//! `messages`, so both go through `Builder::apply_meta`.
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

use crate::agents::adapter::Mode;
use crate::error::{Error, Result};
use crate::model::{
    parse_timestamp, truncate_title, Message, Raw, Role, Session, SessionSummary, Timestamp,
    Tokens, ToolCall, ToolResult,
};
use crate::read::{fs::read_capped, jsonl};

/// Legacy documents are small; refuse absurd ones rather than allocate without bound.
const MAX_JSON_DOC: u64 = 512 * 1024 * 1024;

/// Parse a chat file (`.jsonl` record log or legacy `.json` document).
pub fn parse_file(path: &Path, mode: Mode) -> Result<Session> {
    let mut b = Builder::new(mode);
    if is_legacy_doc(path) {
        let bytes = read_capped(path, MAX_JSON_DOC).map_err(|e| Error::parse(path.display(), e))?;
        let doc: Value = jsonl::parse_line(&bytes)
            .ok_or_else(|| Error::parse(path.display(), "not a JSON document"))?;
        let Value::Object(obj) = &doc else {
            return Err(Error::parse(path.display(), "not a Gemini chat document"));
        };
        if !obj.contains_key("sessionId") && !obj.contains_key("messages") {
            return Err(crate::error::Error::not_a_session(path.display(), "gemini"));
        }
        b.apply_meta(obj);
        if mode.raw() {
            b.doc = Some(doc);
        }
    } else {
        jsonl::read_values(path, "gemini", "records", |rec, bytes| {
            let known = b.apply_record(rec);
            if b.mode.raw() {
                // The record's text, not its parsed tree: a quarter of the memory.
                b.raw.push(Raw::line(bytes));
            }
            known
        })?;
    }
    Ok(b.finish(path))
}

pub fn is_legacy_doc(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

#[derive(Default)]
struct Meta {
    session_id: Option<String>,
    start: Option<Timestamp>,
    last_updated: Option<Timestamp>,
    summary: Option<String>,
    directories: Vec<String>,
    /// `meta.model` of some legacy documents: used only when no message names a model.
    doc_model: Option<String>,
}

struct Builder {
    mode: Mode,
    meta: Meta,
    /// Message ids in first-seen order; `msgs` holds each id's normalised messages (last write).
    order: Vec<String>,
    msgs: HashMap<String, Vec<Message>>,
    /// Latest time any record mentions (rewound messages were activity too).
    latest: Option<Timestamp>,
    anonymous: usize,
    raw: Vec<Box<RawValue>>,
    /// A legacy `.json` document, kept whole for `raw`.
    doc: Option<Value>,
}

impl Builder {
    fn new(mode: Mode) -> Self {
        Builder {
            mode,
            meta: Meta::default(),
            order: Vec::new(),
            msgs: HashMap::new(),
            latest: None,
            anonymous: 0,
            raw: Vec::new(),
            doc: None,
        }
    }

    fn seen(&mut self, t: Option<Timestamp>) {
        if let Some(t) = t {
            self.latest = Some(self.latest.map_or(t, |l| l.max(t)));
        }
    }

    /// Apply one record; false when it is none of Gemini's (no `$set`, `$rewindTo`, `type`,
    /// or session metadata).
    fn apply_record(&mut self, rec: Value) -> bool {
        let Value::Object(obj) = &rec else {
            return false;
        };
        if let Some(Value::Object(set)) = obj.get("$set") {
            self.apply_meta(set);
        } else if let Some(target) = obj.get("$rewindTo") {
            self.rewind(target);
        } else if obj.get("type").is_some_and(Value::is_string) {
            self.upsert(obj);
        } else {
            // The first line: session metadata. Anything else unknown is only kept in `raw`.
            self.apply_meta(obj);
            return obj.contains_key("sessionId") || obj.contains_key("startTime");
        }
        true
    }

    fn apply_meta(&mut self, obj: &Map<String, Value>) {
        if let Some(id) = obj.get("sessionId").and_then(Value::as_str) {
            self.meta.session_id = Some(id.to_string());
        }
        if let Some(t) = obj.get("startTime").and_then(parse_timestamp) {
            self.meta.start = Some(t);
        }
        if let Some(t) = obj.get("lastUpdated").and_then(parse_timestamp) {
            self.meta.last_updated = Some(self.meta.last_updated.map_or(t, |l| l.max(t)));
        }
        if let Some(s) = obj.get("summary").and_then(Value::as_str) {
            self.meta.summary = Some(s.to_string());
        }
        if let Some(Value::Array(dirs)) = obj.get("directories") {
            self.meta.directories = dirs
                .iter()
                .filter_map(|d| d.as_str().map(str::to_string))
                .collect();
        }
        if let Some(m) = obj
            .get("meta")
            .and_then(|m| m.get("model"))
            .and_then(Value::as_str)
        {
            self.meta.doc_model = Some(m.to_string());
        }
        if let Some(Value::Array(messages)) = obj.get("messages") {
            // A full checkpoint: it replaces every message recorded so far.
            self.order.clear();
            self.msgs.clear();
            for m in messages {
                if let Value::Object(m) = m {
                    self.upsert(m);
                }
            }
        }
    }

    fn upsert(&mut self, obj: &Map<String, Value>) {
        let id = match obj.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                self.anonymous += 1;
                format!("\u{0}anonymous-{}", self.anonymous)
            }
        };
        self.seen(obj.get("timestamp").and_then(parse_timestamp));
        let mut messages = normalise(obj);
        if self.mode == Mode::Summary {
            messages.iter_mut().for_each(strip);
        }
        if self.msgs.insert(id.clone(), messages).is_none() {
            self.order.push(id);
        }
    }

    /// Drop the message `target` and everything after it; an unknown id clears everything (that is
    /// what Gemini's own loader does).
    fn rewind(&mut self, target: &Value) {
        let target = match target {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => return,
        };
        let cut = self.order.iter().position(|id| *id == target).unwrap_or(0);
        for id in self.order.drain(cut..) {
            self.msgs.remove(&id);
        }
    }

    fn finish(mut self, path: &Path) -> Session {
        let mut messages: Vec<Message> = Vec::new();
        for id in &self.order {
            if let Some(ms) = self.msgs.remove(id) {
                messages.extend(ms);
            }
        }
        if self.mode.messages() {
            pair_tool_responses(&mut messages);
        }
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let session_id = self.meta.session_id.clone().unwrap_or(stem);
        let mtime = super::mtime(path);
        let first_msg = messages.iter().find_map(|m| m.timestamp);
        let created = self
            .meta
            .start
            .or(first_msg)
            .or(self.latest)
            .or(mtime)
            .unwrap_or_default();
        let updated = [self.meta.last_updated, self.latest]
            .into_iter()
            .flatten()
            .max()
            .or(mtime)
            .unwrap_or(created)
            .max(created);
        let mut summary = SessionSummary::new("gemini", &session_id, created, updated);
        summary.title = match self
            .meta
            .summary
            .as_deref()
            .filter(|s| !s.trim().is_empty())
        {
            Some(s) => truncate_title(s, 100),
            None => messages
                .iter()
                .find(|m| m.role == Role::User && !m.content.trim().is_empty())
                .map(|m| truncate_title(&m.content, 100))
                .unwrap_or_default(),
        };
        summary.cwd = super::project_root(path).or_else(|| self.meta.directories.first().cloned());
        let raw = match self.mode.raw() {
            true if is_legacy_doc(path) => self.doc.take().map(Raw::Value),
            true => Some(Raw::Lines(std::mem::take(&mut self.raw))),
            false => None,
        };
        let mut session = Session {
            summary,
            messages,
            raw,
        };
        session.derive_summary_fields();
        if session.summary.model.is_none() {
            session.summary.model = self.meta.doc_model.take();
        }
        session
    }
}

/// One record → the messages it stands for: a user prompt, an assistant reply followed by one
/// `tool` message per tool result it carries, or tool results sent back as a `user` record.
/// `info`/`error`/`warning` are UI notices, not conversation: they stay in `raw` only.
fn normalise(obj: &Map<String, Value>) -> Vec<Message> {
    let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
    let ts = obj.get("timestamp").and_then(parse_timestamp);
    // Current records carry `content`; some legacy documents carry genai `parts` instead.
    let content = obj.get("content").or_else(|| obj.get("parts"));
    match kind {
        "user" => {
            let parts = content.map(as_parts).unwrap_or_default();
            let responses: Vec<&Map<String, Value>> = parts
                .iter()
                .filter_map(|p| p.get("functionResponse").and_then(Value::as_object))
                .collect();
            let text = obj
                .get("displayContent")
                .map(text_of)
                .filter(|t| !t.trim().is_empty())
                .unwrap_or_else(|| content.map(text_of).unwrap_or_default());
            if !responses.is_empty() && text.trim().is_empty() {
                return responses
                    .into_iter()
                    .map(|fr| tool_message(fr, ts))
                    .collect();
            }
            let mut m = Message::new(Role::User, text);
            m.timestamp = ts;
            vec![m]
        }
        "gemini" | "model" | "assistant" => assistant(obj, content, ts),
        _ => Vec::new(),
    }
}

fn assistant(
    obj: &Map<String, Value>,
    content: Option<&Value>,
    ts: Option<Timestamp>,
) -> Vec<Message> {
    let parts = content.map(as_parts).unwrap_or_default();
    let mut m = Message::new(Role::Assistant, visible_text(&parts));
    m.timestamp = ts;
    m.model = obj
        .get("model")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    m.thinking = thinking(obj.get("thoughts"), &parts);
    m.tokens = obj.get("tokens").and_then(tokens);
    let mut results = Vec::new();
    if let Some(Value::Array(calls)) = obj.get("toolCalls") {
        for call in calls.iter().filter_map(Value::as_object) {
            let id = str_field(call, "id");
            let name = str_field(call, "name");
            let output = call.get("result").and_then(|r| tool_output(r, call));
            if let Some(out) = &output {
                let mut t = Message::new(Role::Tool, String::new());
                t.timestamp = call.get("timestamp").and_then(parse_timestamp).or(ts);
                t.tool_result = Some(ToolResult {
                    tool_call_id: id.clone(),
                    tool_name: name.clone(),
                    output: out.clone(),
                });
                results.push(t);
            }
            m.tool_calls.push(ToolCall {
                tool_call_id: id,
                tool_name: name,
                input: call.get("args").cloned().unwrap_or(Value::Null),
                output,
                duration_ms: None,
                output_at_result: false,
            });
        }
    }
    let mut out = vec![m];
    out.extend(results);
    out
}

/// Gemini's own token fields → our buckets: `input` includes `cached`, `output` excludes
/// `thoughts`, and `tool` (tool-use prompt tokens) is extra prompt input.
fn tokens(v: &Value) -> Option<Tokens> {
    let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("cached");
    let t = Tokens {
        input: n("input").saturating_sub(cached) + n("tool"),
        output: n("output"),
        cache_read: cached,
        cache_write: 0,
        reasoning: n("thoughts"),
        ..Default::default()
    };
    (!t.is_zero()).then_some(t)
}

/// A tool call's inline result (`[{functionResponse: {response: {output}}}]`): the `output`, else the
/// whole response (errors come as `{error}`), else what the UI displayed.
fn tool_output(result: &Value, call: &Map<String, Value>) -> Option<Value> {
    let parts = as_parts(result);
    let response = parts
        .iter()
        .find_map(|p| p.get("functionResponse").and_then(|f| f.get("response")));
    match response {
        Some(r) => Some(r.get("output").cloned().unwrap_or_else(|| r.clone())),
        None => match result {
            Value::Null => None,
            Value::Array(a) if a.is_empty() => call.get("resultDisplay").cloned(),
            Value::Array(_) | Value::Object(_) => Some(result.clone()),
            other => Some(other.clone()),
        },
    }
}

fn tool_message(fr: &Map<String, Value>, ts: Option<Timestamp>) -> Message {
    let output = fr
        .get("response")
        .map(|r| r.get("output").cloned().unwrap_or_else(|| r.clone()))
        .unwrap_or(Value::Null);
    let mut t = Message::new(Role::Tool, String::new());
    t.timestamp = ts;
    t.tool_result = Some(ToolResult {
        tool_call_id: str_field(fr, "id"),
        tool_name: str_field(fr, "name"),
        output,
    });
    t
}

/// Tool results that came back as separate `user` records fill the matching call's `output`.
fn pair_tool_responses(messages: &mut [Message]) {
    for i in 0..messages.len() {
        let Some(r) = messages[i].tool_result.clone() else {
            continue;
        };
        if let Some(call) = messages[..i]
            .iter_mut()
            .rev()
            .flat_map(|m| m.tool_calls.iter_mut())
            .find(|c| c.tool_call_id == r.tool_call_id && !r.tool_call_id.is_empty())
        {
            if call.output.is_none() {
                call.output = Some(r.output);
            }
        }
    }
}

fn thinking(thoughts: Option<&Value>, parts: &[Map<String, Value>]) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(Value::Array(ts)) = thoughts {
        for t in ts {
            let subject = t.get("subject").and_then(Value::as_str).unwrap_or("");
            let desc = t.get("description").and_then(Value::as_str).unwrap_or("");
            let line = match (subject.is_empty(), desc.is_empty()) {
                (false, false) => format!("{subject}: {desc}"),
                (false, true) => subject.to_string(),
                (true, false) => desc.to_string(),
                (true, true) => continue,
            };
            out.push(line);
        }
    }
    out.extend(
        parts
            .iter()
            .filter(|p| p.get("thought").and_then(Value::as_bool) == Some(true))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .map(str::to_string),
    );
    (!out.is_empty()).then(|| out.join("\n\n"))
}

/// `PartListUnion`: a string, one part, or a list of parts (strings allowed inside).
fn as_parts(v: &Value) -> Vec<Map<String, Value>> {
    match v {
        Value::String(s) => vec![text_part(s)],
        Value::Object(o) => vec![o.clone()],
        Value::Array(a) => a
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(text_part(s)),
                Value::Object(o) => Some(o.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn text_part(s: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("text".into(), Value::String(s.to_string()));
    m
}

/// Text of the parts a reader sees (thought parts are thinking, not content).
fn visible_text(parts: &[Map<String, Value>]) -> String {
    parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

fn text_of(v: &Value) -> String {
    visible_text(&as_parts(v))
}

fn str_field(m: &Map<String, Value>, k: &str) -> String {
    match m.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// A summary keeps only what it is computed from: roles, times, models, tokens and the user's
/// words cut to a title's length.
fn strip(m: &mut Message) {
    if m.role == Role::User {
        m.content = truncate_title(&m.content, 100);
    } else {
        m.content.clear();
    }
    m.tool_calls.clear();
    m.tool_result = None;
    m.thinking = None;
}
