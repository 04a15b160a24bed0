//! Agent transcripts `projects/<slug>/agent-transcripts/…/<id>.jsonl`: `{"role", "message":
//! {"content": [text | tool_use]}}` lines (Anthropic blocks), and since 2026.06 roleless
//! `{"type":"turn_ended"}` markers. No timestamps, ids, model, usage or tool results.
use std::path::Path;

use serde_json::Value;

use super::{clean_text, is_injected_context, strip_user_query};
use crate::error::{Error, Result};
use crate::model::{Message, Role, ToolCall};
use crate::read::jsonl::read_lines;

pub fn read(path: &Path) -> Result<(Vec<Message>, Vec<Value>)> {
    let mut messages = Vec::new();
    let mut raw = Vec::new();
    let mut records = 0usize;
    let stats = read_lines::<Value>(path, |line| {
        // The format's lines: `{"role", "message": {...}}` and typed markers.
        if line.get("message").is_some_and(Value::is_object)
            || line.get("type").is_some_and(Value::is_string)
        {
            records += 1;
        }
        if let Some(m) = message(&line) {
            messages.push(m);
        }
        raw.push(line);
        true
    })
    .map_err(|e| Error::parse(path.display(), e))?;
    if stats.parsed > 0 && records == 0 {
        return Err(crate::error::Error::not_a_session(path.display(), "cursor"));
    }
    if stats.parsed == 0 && stats.bad > 0 {
        return Err(Error::parse(
            path.display(),
            "no JSON line in the transcript",
        ));
    }
    Ok((messages, raw))
}

fn message(line: &Value) -> Option<Message> {
    let mut role = match line.get("role").and_then(Value::as_str)? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        _ => return None,
    };
    let content = line.pointer("/message/content").or(line.get("content"));
    let blocks: Vec<Value> = match content {
        Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "text": s})],
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    let mut text = Vec::new();
    let mut calls = Vec::new();
    for b in &blocks {
        let s = |k: &str| b.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match s("type").as_str() {
            "text" => text.extend(clean_text(&s("text"))),
            "tool_use" => calls.push(ToolCall {
                tool_call_id: s("id"),
                tool_name: s("name"),
                input: b.get("input").cloned().unwrap_or(Value::Null),
                output: None,
                duration_ms: None,
                output_at_result: false,
            }),
            _ => {}
        }
    }
    let mut content = text.join("\n");
    if role == Role::User {
        if is_injected_context(&content) {
            role = Role::System;
        } else {
            content = strip_user_query(&content);
        }
    }
    let mut m = Message::new(role, content);
    m.tool_calls = calls;
    Some(m)
}
