//! Whole-file JSON sessions: `history-session-state/<id>.json` of early Copilot CLI builds
//! (`{sessionId, startTime, chatMessages: [OpenAI chat messages], timeline}`) and the spec's
//! `~/.config/github-copilot/sessions/<id>.json` ("an array of messages": `messages`, or the
//! array itself). Messages have no times of their own unless a `timestamp` is present.
use serde_json::{Map, Value};
use std::path::Path;

use crate::error::{Error, Result};
use crate::model::{
    parse_timestamp, truncate_title, Message, Role, Session, SessionSummary, ToolCall, ToolResult,
};
use crate::read::{fs::read_capped, jsonl};

use super::events::text;
use crate::agents::adapter::Mode;

const MAX_DOC: u64 = 512 * 1024 * 1024;

pub fn parse_doc(path: &Path, mode: Mode, fallback_id: &str) -> Result<Session> {
    let bytes = read_capped(path, MAX_DOC).map_err(|e| Error::parse(path.display(), e))?;
    let doc: Value = jsonl::parse_line(&bytes)
        .ok_or_else(|| Error::parse(path.display(), "not a JSON document"))?;
    let empty = Map::new();
    let (meta, list) = match &doc {
        Value::Array(a) => (&empty, a.as_slice()),
        Value::Object(o) => {
            let list = ["chatMessages", "messages"]
                .iter()
                .find_map(|k| o.get(*k).and_then(Value::as_array))
                .ok_or_else(|| Error::parse(path.display(), "no chatMessages or messages"))?;
            (o, list.as_slice())
        }
        _ => {
            return Err(Error::parse(
                path.display(),
                "not a Copilot session document",
            ))
        }
    };
    let mut messages: Vec<Message> = Vec::new();
    for m in list.iter().filter_map(Value::as_object) {
        if let Some(msg) = message(m, &mut messages) {
            messages.push(msg);
        }
    }
    let mtime = super::mtime(path);
    let start = ["startTime", "createdAt", "created_at"]
        .iter()
        .find_map(|k| meta.get(*k).and_then(parse_timestamp));
    let first = messages.iter().filter_map(|m| m.timestamp).min();
    let last = messages.iter().filter_map(|m| m.timestamp).max();
    let created = start.or(first).or(mtime).unwrap_or_default();
    // A start time says nothing about the last activity: the file's mtime is the better guess.
    let updated = last.or(mtime).unwrap_or(created).max(created);
    let id = meta
        .get("sessionId")
        .or_else(|| meta.get("id"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .unwrap_or(fallback_id);
    let mut s = SessionSummary::new("copilot", id, created, updated);
    s.title = super::events::title(&Default::default(), &messages);
    s.model = meta
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    if mode == Mode::Summary {
        for m in &mut messages {
            m.content = if m.role == Role::User {
                truncate_title(&m.content, 100)
            } else {
                String::new()
            };
            m.tool_calls.clear();
            m.tool_result = None;
        }
    }
    let mut session = Session {
        summary: s,
        messages,
        raw: mode.raw().then(|| doc.clone().into()),
    };
    let doc_model = session.summary.model.take();
    session.derive_summary_fields();
    if session.summary.model.is_none() {
        session.summary.model = doc_model;
    }
    Ok(session)
}

/// One OpenAI-style chat message; a `tool` reply also fills its call's `output`.
fn message(m: &Map<String, Value>, earlier: &mut [Message]) -> Option<Message> {
    let role = match m.get("role").and_then(Value::as_str)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" | "developer" => Role::System,
        "tool" | "function" => Role::Tool,
        _ => return None,
    };
    let content = text(m.get("content"));
    let mut msg = Message::new(
        role,
        if role == Role::Tool {
            String::new()
        } else {
            content.clone()
        },
    );
    msg.timestamp = m.get("timestamp").and_then(parse_timestamp);
    msg.model = m.get("model").and_then(Value::as_str).map(str::to_string);
    if let Some(Value::Array(calls)) = m.get("tool_calls") {
        for c in calls.iter().filter_map(Value::as_object) {
            let f = c.get("function").and_then(Value::as_object);
            let input = match f.and_then(|f| f.get("arguments")) {
                Some(Value::String(s)) => {
                    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
                }
                Some(v) => v.clone(),
                None => Value::Null,
            };
            msg.tool_calls.push(ToolCall {
                tool_call_id: str_of(c, "id"),
                tool_name: f.map(|f| str_of(f, "name")).unwrap_or_default(),
                input,
                output: None,
                duration_ms: None,
                output_at_result: false,
            });
        }
    }
    if role == Role::Tool {
        let id = str_of(m, "tool_call_id");
        let mut name = str_of(m, "name");
        let output = m.get("content").cloned().unwrap_or(Value::Null);
        let call = earlier
            .iter_mut()
            .rev()
            .flat_map(|e| e.tool_calls.iter_mut())
            .find(|c| {
                c.output.is_none()
                    && if id.is_empty() {
                        c.tool_name == name
                    } else {
                        c.tool_call_id == id
                    }
            });
        if let Some(c) = call {
            c.output = Some(output.clone());
            if name.is_empty() {
                name = c.tool_name.clone();
            }
        }
        msg.tool_result = Some(ToolResult {
            tool_call_id: id,
            tool_name: name,
            output,
        });
    }
    Some(msg)
}

fn str_of(m: &Map<String, Value>, k: &str) -> String {
    m.get(k)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}
