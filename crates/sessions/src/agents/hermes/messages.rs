//! Message rows → messages, ordered by `id` (Hermes' own order; `timestamp` is not monotonic).
//! Assistant `tool_calls` JSON becomes tool calls, `tool` rows become tool results paired back to
//! their call, `reasoning` becomes thinking.
use std::collections::HashMap;

use rusqlite::{Connection, Row};
use serde_json::Value;

use crate::model::{from_epoch_guess, Message, Role, ToolCall, ToolResult};
use crate::read::sqlite::{cell_f64, cell_string, col_or_null};

use super::content::decode_content;
use super::summary::Schema;

const MESSAGE_COLUMNS: &[&str] = &[
    "session_id",
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "timestamp",
    "reasoning",
    "reasoning_content",
];

/// Visible messages of session `only`, or of every session, grouped by session id.
pub fn query(
    conn: &Connection,
    schema: &Schema,
    only: Option<&str>,
) -> rusqlite::Result<HashMap<String, Vec<Message>>> {
    let cols: Vec<String> = MESSAGE_COLUMNS
        .iter()
        .map(|c| format!("{} AS \"{c}\"", col_or_null(&schema.message_cols, "m", c)))
        .collect();
    let filter = if only.is_some() {
        "AND m.session_id = ?1"
    } else {
        ""
    };
    let sql = format!(
        "SELECT {} FROM messages m WHERE {} {filter} ORDER BY m.session_id, m.id",
        cols.join(", "),
        schema.visible("m"),
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = match only {
        Some(id) => stmt.query([id])?,
        None => stmt.query([])?,
    };
    let mut out: HashMap<String, Vec<Message>> = HashMap::new();
    while let Some(row) = rows.next()? {
        let sid = cell_string(row.get_ref("session_id")?).unwrap_or_default();
        let list = out.entry(sid).or_default();
        if let Some(m) = message(row, list)? {
            list.push(m);
        }
    }
    Ok(out)
}

fn text(row: &Row<'_>, name: &str) -> rusqlite::Result<Option<String>> {
    Ok(cell_string(row.get_ref(name)?).filter(|s| !s.is_empty()))
}

/// One row as a message; `earlier` are the session's messages so far (a tool row fills the
/// output of the call it answers).
fn message(row: &Row<'_>, earlier: &mut [Message]) -> rusqlite::Result<Option<Message>> {
    let role = match text(row, "role")?.as_deref() {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("system") => Role::System,
        Some("tool") => Role::Tool,
        _ => return Ok(None),
    };
    let content = text(row, "content")?
        .map(|c| decode_content(&c))
        .unwrap_or_default();
    let mut m = Message::new(role, content);
    m.timestamp = cell_f64(row.get_ref("timestamp")?).and_then(from_epoch_guess);
    m.thinking = text(row, "reasoning")?.or(text(row, "reasoning_content")?);
    if let Some(calls) = text(row, "tool_calls")? {
        m.tool_calls = tool_calls(&calls);
    }
    if role == Role::Tool {
        let id = text(row, "tool_call_id")?.unwrap_or_default();
        let call = earlier
            .iter_mut()
            .rev()
            .flat_map(|e| e.tool_calls.iter_mut())
            .find(|c| !id.is_empty() && c.tool_call_id == id);
        let name = match (text(row, "tool_name")?, &call) {
            (Some(n), _) => n,
            (None, Some(c)) => c.tool_name.clone(),
            (None, None) => String::new(),
        };
        let output = Value::String(m.content.clone());
        if let Some(c) = call {
            c.output = Some(output.clone());
        }
        m.tool_result = Some(ToolResult {
            tool_call_id: id,
            tool_name: name,
            output,
        });
    }
    Ok(Some(m))
}

/// `[{"id","call_id","type":"function","function":{"name","arguments":<JSON string>}}]`; the
/// arguments are parsed when they are JSON, kept as a string otherwise.
fn tool_calls(json: &str) -> Vec<ToolCall> {
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(json) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|c| {
            let f = c.get("function").unwrap_or(c);
            let name = f.get("name").and_then(Value::as_str)?.to_string();
            let id = ["id", "call_id"]
                .iter()
                .find_map(|k| c.get(*k).and_then(Value::as_str).filter(|s| !s.is_empty()))
                .unwrap_or("")
                .to_string();
            let input = match f.get("arguments") {
                Some(Value::String(s)) => {
                    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
                }
                Some(v) => v.clone(),
                None => Value::Null,
            };
            Some(ToolCall {
                tool_call_id: id,
                tool_name: name,
                input,
                output: None,
                duration_ms: None,
                output_at_result: false,
            })
        })
        .collect()
}
