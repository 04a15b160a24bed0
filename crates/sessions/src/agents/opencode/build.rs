//! OpenCode message data + parts → a message. Shared by the SQLite store (data in `message.data` /
//! `part.data`) and the legacy JSON tree (the same objects, with their ids inside).
//!
//! Tokens and cost are read at message level only: a message's `tokens`/`cost` are the sum of its
//! `step-finish` parts, and the session's `tokens_*`/`cost` columns the sum of its messages, so
//! reading more than one level would count the same tokens twice (native-formats.md §6 pitfall 1).
use serde_json::Value;

use crate::model::{parse_timestamp, Message, Role, Tokens, ToolCall};

pub fn role(data: &Value) -> Option<Role> {
    match data.get("role").and_then(Value::as_str)? {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "system" => Some(Role::System),
        _ => None,
    }
}

/// `modelID` (assistant, legacy) or `model.modelID` (user messages, newer assistant shapes).
pub fn model(data: &Value) -> Option<String> {
    data.get("modelID")
        .or_else(|| data.get("model").and_then(|m| m.get("modelID")))
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(str::to_string)
}

fn count(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_f64)
        .filter(|x| x.is_finite() && *x > 0.0)
        .map_or(0, |x| x as u64)
}

/// `tokens {input, output, reasoning, cache{read, write}}`: `input` excludes the cache and
/// `output` excludes reasoning, which are exactly our buckets. `None` when all are zero (a
/// streaming or aborted message).
pub fn tokens(data: &Value) -> Option<Tokens> {
    let t = data.get("tokens")?;
    let cache = t.get("cache");
    let tokens = Tokens {
        input: count(t.get("input")),
        output: count(t.get("output")),
        reasoning: count(t.get("reasoning")),
        cache_read: count(cache.and_then(|c| c.get("read"))),
        cache_write: count(cache.and_then(|c| c.get("write"))),
        ..Default::default()
    };
    (!tokens.is_zero()).then_some(tokens)
}

/// The provider-computed USD `cost` (a number; some fixture shapes hold an object, which is not a
/// cost). A zero cost on a message without tokens says nothing.
pub fn cost(data: &Value, tokens: Option<&Tokens>) -> Option<f64> {
    let c = data.get("cost")?.as_f64()?;
    (c > 0.0 || tokens.is_some()).then_some(c)
}

/// A message with only what summaries need (role, time, model, usage).
pub fn light(data: &Value, fallback_ms: Option<i64>) -> Option<Message> {
    let role = role(data)?;
    let mut m = Message::new(role, "");
    m.timestamp = data
        .get("time")
        .and_then(|t| t.get("created"))
        .and_then(parse_timestamp)
        .or_else(|| fallback_ms.and_then(chrono::DateTime::from_timestamp_millis));
    if role == Role::Assistant {
        m.model = model(data);
        m.tokens = tokens(data);
        m.native_cost_usd = cost(data, m.tokens.as_ref());
    }
    Some(m)
}

/// The full message: text parts as content, reasoning parts as thinking, tool parts as tool calls
/// with their output. Step, snapshot, patch, file and compaction parts stay in `raw` only.
pub fn full(data: &Value, parts: &[Value], fallback_ms: Option<i64>) -> Option<Message> {
    let mut m = light(data, fallback_ms)?;
    let mut text = Vec::new();
    let mut thinking = Vec::new();
    for p in parts {
        let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("");
        match s("type") {
            "text" if p.get("ignored").and_then(Value::as_bool) != Some(true) => {
                text.push(s("text").to_string())
            }
            "reasoning" if !s("text").is_empty() => thinking.push(s("text").to_string()),
            "tool" => m.tool_calls.push(tool_call(p)),
            _ => {}
        }
    }
    m.content = text.join("\n");
    if !thinking.is_empty() {
        m.thinking = Some(thinking.join("\n"));
    }
    Some(m)
}

/// `tool {callID, tool, state{status, input, output | error, time{start, end}}}`.
fn tool_call(p: &Value) -> ToolCall {
    let state = p.get("state");
    let get = |k: &str| state.and_then(|s| s.get(k));
    let time = |k: &str| get("time").and_then(|t| t.get(k)).and_then(Value::as_f64);
    let output = get("output")
        .or_else(|| get("error"))
        .filter(|v| !v.is_null())
        .cloned();
    ToolCall {
        tool_call_id: p
            .get("callID")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        tool_name: p
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        input: get("input").cloned().unwrap_or(Value::Null),
        output,
        duration_ms: match (time("start"), time("end")) {
            (Some(a), Some(b)) if b >= a => Some(b - a),
            _ => None,
        },
        output_at_result: false,
    }
}
