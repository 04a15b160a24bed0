//! Redaction applied to every text field of the model: a summary's title, cwd and snippet; each
//! message's content, thinking, tool calls' inputs and outputs and tool results (every string of
//! their JSON, keys included); and the native records of `raw`.
use std::collections::HashSet;
use std::fmt;
use std::sync::Mutex;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use super::{in_place, rules};
use crate::model::{Message, Raw, Session, SessionSummary};

/// A string shorter than this is scanned again rather than remembered.
const REMEMBERED: usize = 256;

/// Hashes (with lengths) of the long strings of a session's messages that held no secret: the
/// same text again (a tool's output is held in two messages and in `raw`) is not scanned twice. `find` gives the
/// same answer for the same string, so skipping one loses nothing.
#[derive(Default)]
pub(super) struct Clean(Mutex<HashSet<(u64, usize)>>);

impl Clean {
    fn key(s: &str) -> (u64, usize) {
        (xxhash_rust::xxh3::xxh3_64(s.as_bytes()), s.len())
    }

    /// Redact `s` in place, remembering it when it is long and held nothing.
    pub(super) fn in_place(&self, s: &mut String) -> bool {
        // A tool's output is also held twice in the messages (with its call and as a result).
        if self.seen(s) {
            return false;
        }
        let changed = in_place(s);
        if !changed && s.len() >= REMEMBERED {
            self.0.lock().expect("not poisoned").insert(Self::key(s));
        }
        changed
    }

    /// Whether `s` holds a secret, skipping a string the messages already found clean.
    pub(super) fn holds_secret(&self, s: &str) -> bool {
        !self.seen(s) && !rules().find(s).is_empty()
    }

    /// Whether `s` is a long string already found clean.
    fn seen(&self, s: &str) -> bool {
        s.len() >= REMEMBERED && self.0.lock().expect("not poisoned").contains(&Self::key(s))
    }
}

/// A summary's text fields: title, snippet, working directory and its project, branch, tags.
pub fn summary(s: &mut SessionSummary) {
    in_place(&mut s.title);
    for field in [
        &mut s.snippet,
        &mut s.cwd,
        &mut s.project,
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
    message_noting(m, &Clean::default());
}

fn message_noting(m: &mut Message, clean: &Clean) {
    clean.in_place(&mut m.content);
    if let Some(t) = &mut m.thinking {
        clean.in_place(t);
    }
    for c in &mut m.tool_calls {
        in_place(&mut c.tool_name);
        changed(&mut c.input, clean);
        if let Some(o) = &mut c.output {
            changed(o, clean);
        }
    }
    if let Some(r) = &mut m.tool_result {
        in_place(&mut r.tool_name);
        changed(&mut r.output, clean);
    }
}

/// A whole session: its summary, its messages (in parallel: a session can hold hundreds of MB
/// of text) and its native records.
pub fn session(s: &mut Session) {
    use rayon::prelude::*;
    summary(&mut s.summary);
    let clean = Clean::default();
    s.messages
        .par_iter_mut()
        .for_each(|m| message_noting(m, &clean));
    if let Some(r) = &mut s.raw {
        raw_after(r, &clean);
    }
}

/// Every string of a JSON value, and every key.
pub fn value(v: &mut Value) {
    changed(v, &Clean::default());
}

/// `value`, telling whether anything changed.
fn changed(v: &mut Value, clean: &Clean) -> bool {
    match v {
        Value::String(s) => clean.in_place(s),
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |c, item| changed(item, clean) | c),
        Value::Object(map) => {
            let keys_hold_secrets = map.keys().any(|k| !rules().find(k).is_empty());
            if !keys_hold_secrets {
                return map
                    .values_mut()
                    .fold(false, |c, item| changed(item, clean) | c);
            }
            let old = std::mem::take(map);
            for (mut k, mut item) in old {
                in_place(&mut k);
                changed(&mut item, clean);
                map.insert(k, item);
            }
            true
        }
        _ => false,
    }
}

/// The native records. A JSONL line is read once for its strings, without building it; only a
/// line one of whose strings (or keys) holds a secret is parsed and written again.
pub fn raw(r: &mut Raw) {
    raw_after(r, &Clean::default());
}

fn raw_after(r: &mut Raw, clean: &Clean) {
    use rayon::prelude::*;
    match r {
        Raw::Value(v) => {
            changed(v, clean);
        }
        Raw::Lines(lines) => lines.par_iter_mut().for_each(|line| {
            if let Some(new) = redacted_line(line, clean) {
                *line = new;
            }
        }),
    }
}

fn redacted_line(line: &RawValue, clean: &Clean) -> Option<Box<RawValue>> {
    let text = line.get();
    let mut de = serde_json::Deserializer::from_str(text);
    // A line that does not parse is left as it is, as before.
    let holds = Strings {
        clean,
        found: false,
    }
    .deserialize(&mut de)
    .ok()?;
    if !holds {
        return None;
    }
    let mut v: Value = serde_json::from_str(text).ok()?;
    if !changed(&mut v, clean) {
        return None;
    }
    serde_json::value::to_raw_value(&v).ok()
}

/// Walks a JSON text's strings and keys (unescaped, borrowed where they hold no escape) without
/// building a value: whether any holds a secret. Once one does, the rest is only read through.
#[derive(Clone, Copy)]
struct Strings<'a> {
    clean: &'a Clean,
    found: bool,
}

impl<'de> DeserializeSeed<'de> for Strings<'_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        if self.found {
            serde::de::IgnoredAny::deserialize(d).map(|_| true)
        } else {
            d.deserialize_any(self)
        }
    }
}

impl<'de> Visitor<'de> for Strings<'_> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_str<E>(self, s: &str) -> Result<bool, E> {
        Ok(self.clean.holds_secret(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<bool, A::Error> {
        while let Some(h) = seq.next_element_seed(self)? {
            self.found |= h;
        }
        Ok(self.found)
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<bool, A::Error> {
        while let Some(k) = map.next_key_seed(self)? {
            self.found |= k;
            self.found |= map.next_value_seed(self)?;
        }
        Ok(self.found)
    }
}
