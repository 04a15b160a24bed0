//! The text the index picks candidates from: a session's title and every text search reads in
//! it (message content, thinking, tool names, every string and number of tool inputs and
//! outputs), folded as the matcher folds it, one field a line. Candidates only: the scoring
//! reads the stored messages themselves, so this may hold more than the scoring looks at.
use serde_json::Value;

use crate::model::Session;
use crate::query::text::fold_char_into;

pub fn searchable_text(s: &Session) -> String {
    let mut out = String::new();
    let mut field = |t: &str| {
        for c in t.chars() {
            fold_char_into(c, &mut out);
        }
        out.push('\n');
    };
    field(&s.summary.title);
    for m in &s.messages {
        field(&m.content);
        if let Some(t) = &m.thinking {
            field(t);
        }
        for c in &m.tool_calls {
            field(&c.tool_name);
            each_string(&c.input, &mut field);
            if let Some(o) = &c.output {
                each_string(o, &mut field);
            }
        }
        if let Some(r) = &m.tool_result {
            field(&r.tool_name);
            each_string(&r.output, &mut field);
        }
    }
    out
}

/// Every string and number of a JSON value (keys are structure, not text).
fn each_string(v: &Value, f: &mut dyn FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Number(n) => f(&n.to_string()),
        Value::Array(a) => a.iter().for_each(|v| each_string(v, f)),
        Value::Object(m) => m.values().for_each(|v| each_string(v, f)),
        _ => {}
    }
}
