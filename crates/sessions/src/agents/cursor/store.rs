//! The cursor-agent chat store `chats/<md5(workspace)>/<id>/store.db`: `meta` (key `0` = the agent
//! record, hex-encoded JSON in some versions, plain JSON in others) and content-addressed `blobs`
//! that are either JSON messages (Vercel AI SDK shape) or protobuf graph nodes, which are skipped.
use std::path::Path;

use rusqlite::Connection;
use serde_json::Value;

use super::{clean_text, is_injected_context, strip_user_query};
use crate::model::{parse_timestamp, Message, Role, ToolCall, ToolResult};
use crate::read::sqlite::{cell_string, has_table, open_read_only};

/// What one store.db holds.
#[derive(Default)]
pub struct Store {
    pub meta: Option<Value>,
    pub messages: Vec<Message>,
    pub raw_blobs: Vec<Value>,
}

/// Read meta and every JSON blob in insertion order, in one statement.
pub fn read(path: &Path) -> crate::error::Result<Store> {
    let conn = open_read_only(path)?;
    query(&conn).map_err(|e| crate::error::Error::parse(path.display(), e))
}

fn query(conn: &Connection) -> rusqlite::Result<Store> {
    let mut parts = Vec::new();
    if has_table(conn, "meta") {
        parts.push("SELECT 0 AS k, rowid AS n, key AS name, value AS v FROM meta");
    }
    if has_table(conn, "blobs") {
        parts.push("SELECT 1, rowid, id, data FROM blobs");
    }
    let mut store = Store::default();
    if parts.is_empty() {
        return Ok(store);
    }
    let sql = format!("{} ORDER BY 1, 2", parts.join(" UNION ALL "));
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let kind: i64 = row.get(0)?;
        let v = row.get_ref(3)?;
        if kind == 0 {
            let key = cell_string(row.get_ref(2)?).unwrap_or_default();
            if key == "0" || (store.meta.is_none() && key.is_empty()) {
                store.meta = cell_string(v).and_then(|s| decode_meta(&s));
            }
            continue;
        }
        let bytes = match v {
            rusqlite::types::ValueRef::Blob(b) | rusqlite::types::ValueRef::Text(b) => b,
            _ => continue,
        };
        let Some(json) = json_message(bytes) else {
            continue; // a protobuf node, or JSON that is not a message
        };
        add_message(&mut store.messages, &json);
        store.raw_blobs.push(json);
    }
    Ok(store)
}

/// Search: the needles in a store's raw text (every meta value and blob, JSON or not), read in
/// one pass without decoding messages. Hex-encoded meta is decoded first, as its bytes hide text.
pub fn byte_mask(path: &Path, filter: &crate::query::ByteFilter) -> crate::error::Result<u64> {
    let conn = open_read_only(path)?;
    byte_mask_of(&conn, filter).map_err(|e| crate::error::Error::parse(path.display(), e))
}

fn byte_mask_of(conn: &Connection, filter: &crate::query::ByteFilter) -> rusqlite::Result<u64> {
    let mut mask = 0;
    if has_table(conn, "meta") {
        let mut stmt = conn.prepare("SELECT value FROM meta")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            if let Some(v) = cell_string(row.get_ref(0)?) {
                mask |= match decode_meta(&v) {
                    Some(json) => filter.scan(json.to_string().as_bytes()),
                    None => filter.scan(v.as_bytes()),
                };
            }
        }
    }
    if has_table(conn, "blobs") {
        let mut stmt = conn.prepare("SELECT data FROM blobs")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            if filter.all_needles_seen(mask) {
                break;
            }
            if let rusqlite::types::ValueRef::Blob(b) | rusqlite::types::ValueRef::Text(b) =
                row.get_ref(0)?
            {
                mask |= filter.scan(b);
            }
        }
    }
    Ok(mask)
}

/// `meta['0']`: plain JSON, or the same JSON hex-encoded.
pub fn decode_meta(value: &str) -> Option<Value> {
    let v = value.trim();
    if v.starts_with('{') {
        return serde_json::from_str(v).ok();
    }
    if !v.len().is_multiple_of(2) || !v.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let bytes: Vec<u8> = (0..v.len())
        .step_by(2)
        .filter_map(|i| u8::from_str_radix(&v[i..i + 2], 16).ok())
        .collect();
    serde_json::from_slice(&bytes).ok()
}

/// A blob that is a JSON object with a `role`; everything else (protobuf) is `None`.
fn json_message(bytes: &[u8]) -> Option<Value> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace())?;
    if bytes[start] != b'{' {
        return None;
    }
    let v: Value = serde_json::from_slice(bytes).ok()?;
    v.get("role").and_then(Value::as_str)?;
    Some(v)
}

/// One AI-SDK message: `{role, content: string | parts[], createdAt?, providerOptions.cursor.modelName}`.
fn add_message(out: &mut Vec<Message>, v: &Value) {
    let mut role = match v["role"].as_str() {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("system") => Role::System,
        Some("tool") => Role::Tool,
        _ => return,
    };
    let timestamp = v.get("createdAt").and_then(parse_timestamp);
    let model = v
        .pointer("/providerOptions/cursor/modelName")
        .and_then(Value::as_str)
        .map(str::to_string);
    let parts: Vec<Value> = match &v["content"] {
        Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    };
    let mut text = Vec::new();
    let mut thinking = Vec::new();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    for p in &parts {
        let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match p["type"].as_str().unwrap_or("") {
            "text" => text.extend(clean_text(&s("text"))),
            "reasoning" if !s("text").is_empty() => thinking.push(s("text")),
            "tool-call" => calls.push(ToolCall {
                tool_call_id: s("toolCallId"),
                tool_name: s("toolName"),
                input: p
                    .get("args")
                    .or(p.get("input"))
                    .cloned()
                    .unwrap_or(Value::Null),
                output: None,
                duration_ms: None,
                output_at_result: false,
            }),
            "tool-result" => results.push(ToolResult {
                tool_call_id: s("toolCallId"),
                tool_name: s("toolName"),
                output: p
                    .get("result")
                    .or(p.get("output"))
                    .cloned()
                    .unwrap_or(Value::Null),
            }),
            _ => {} // images, redacted reasoning
        }
    }
    let mut content = text.join("\n");
    if role == Role::User {
        if is_injected_context(&content) {
            role = Role::System; // `<user_info>` context, not something the user typed
        } else {
            content = strip_user_query(&content);
        }
    }
    if role == Role::Tool {
        for r in results {
            super::pair_result(out, &r);
            let mut m = Message::new(Role::Tool, "");
            m.timestamp = timestamp;
            m.tool_result = Some(r);
            out.push(m);
        }
        return;
    }
    let mut m = Message::new(role, content);
    m.timestamp = timestamp;
    m.tool_calls = calls;
    if !thinking.is_empty() {
        m.thinking = Some(thinking.join("\n"));
    }
    if role == Role::Assistant {
        m.model = model;
    }
    out.push(m);
}
