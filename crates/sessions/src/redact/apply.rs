//! Redaction applied to every text field of the model: a summary's title, cwd and snippet; each
//! message's content, thinking, tool calls' inputs and outputs and tool results (every string of
//! their JSON, keys included); and the native records of `raw`.
use serde_json::value::RawValue;
use serde_json::Value;

use super::{in_place, rules};
use crate::model::{Message, Raw, Session, SessionSummary};

/// A summary's text fields: title, snippet, working directory, branch, tags.
pub fn summary(s: &mut SessionSummary) {
    in_place(&mut s.title);
    for field in [
        &mut s.snippet,
        &mut s.cwd,
        &mut s.git_branch,
        &mut s.forked_from,
    ]
    .into_iter()
    .flatten()
    {
        in_place(field);
    }
    for t in &mut s.tags {
        in_place(t);
    }
}

/// A message's content, thinking, tool calls and tool result.
pub fn message(m: &mut Message) {
    in_place(&mut m.content);
    if let Some(t) = &mut m.thinking {
        in_place(t);
    }
    for c in &mut m.tool_calls {
        in_place(&mut c.tool_name);
        value(&mut c.input);
        if let Some(o) = &mut c.output {
            value(o);
        }
    }
    if let Some(r) = &mut m.tool_result {
        in_place(&mut r.tool_name);
        value(&mut r.output);
    }
}

/// A whole session: its summary, its messages (in parallel: a session can hold hundreds of MB
/// of text) and its native records.
pub fn session(s: &mut Session) {
    use rayon::prelude::*;
    summary(&mut s.summary);
    s.messages.par_iter_mut().for_each(message);
    if let Some(r) = &mut s.raw {
        raw(r);
    }
}

/// Every string of a JSON value, and every key.
pub fn value(v: &mut Value) {
    changed(v);
}

/// `value`, telling whether anything changed.
fn changed(v: &mut Value) -> bool {
    match v {
        Value::String(s) => in_place(s),
        Value::Array(items) => items.iter_mut().fold(false, |c, item| changed(item) | c),
        Value::Object(map) => {
            let keys_hold_secrets = map.keys().any(|k| !rules().find(k).is_empty());
            if !keys_hold_secrets {
                return map.values_mut().fold(false, |c, item| changed(item) | c);
            }
            let old = std::mem::take(map);
            for (mut k, mut item) in old {
                in_place(&mut k);
                changed(&mut item);
                map.insert(k, item);
            }
            true
        }
        _ => false,
    }
}

/// The native records. A JSONL line is parsed only when its text wakes a rule (a secret's
/// keyword is in it, escaped or not), and written again only when a string in it changed.
pub fn raw(r: &mut Raw) {
    use rayon::prelude::*;
    match r {
        Raw::Value(v) => value(v),
        Raw::Lines(lines) => lines.par_iter_mut().for_each(|line| {
            if let Some(new) = redacted_line(line) {
                *line = new;
            }
        }),
    }
}

fn redacted_line(line: &RawValue) -> Option<Box<RawValue>> {
    let text = line.get();
    // No keyword in the escaped text: none in its strings (keywords hold no character JSON
    // escapes, and no agent writes `\u` escapes for ASCII letters).
    if !rules().wakes(text) {
        return None;
    }
    let mut v: Value = serde_json::from_str(text).ok()?;
    if !changed(&mut v) {
        return None;
    }
    serde_json::value::to_raw_value(&v).ok()
}
