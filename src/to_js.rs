//! A session built as JS values directly, on the main thread: no JSON text in between (which
//! cost a copy of the whole session as Rust text, again as a JS string, then the parsed objects).
//! The session is taken apart as it goes, so each message and raw record is freed once built.
//! A long string that occurs several times (a tool's output is in the tool message, in its call,
//! in its result, and twice in the raw record) becomes one JS string: JS strings are immutable, so
//! sharing is invisible to the caller and the heap holds each text once. The session comes
//! loaded with each output once (`Mode::FullOutputsOnce`): a call gets its output when the tool
//! message answering it is built.
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::ptr;

use agent_mux_sessions::memory;
use agent_mux_sessions::model::{MarkedCalls, Raw, Session};
use napi::sys;
use serde_json::Value;

/// The keys whose ISO strings `index.js` revives as Dates (summaries, messages, report rows,
/// billing blocks).
const DATE_KEYS: &[&str] = &[
    "createdAt",
    "updatedAt",
    "timestamp",
    "firstActivity",
    "lastActivity",
    "startTime",
    "endTime",
    "actualEndTime",
];

/// Strings from this length on are shared when equal; shorter ones are cheaper to make again.
const SHARE_FROM: usize = 1024;

/// Give what was freed back to the system every this many messages or raw records, so the Rust
/// session shrinks in RSS while its JS copy grows (the allocator keeps freed memory otherwise).
const RELEASE_EVERY: usize = 128;

fn release_now_and_then(i: usize) {
    if i % RELEASE_EVERY == RELEASE_EVERY - 1 {
        memory::release_freed();
    }
}

pub struct Builder {
    env: sys::napi_env,
    /// The depth of the objects whose moments (`DATE_KEYS`, written as ISO strings) become JS
    /// Dates (1: the value's own keys, 2: those of the objects it holds), or none. Deeper
    /// objects are an agent's own JSON (tool input, raw records), kept as they are.
    dates_at: Option<usize>,
    /// How deep in objects the value being built is.
    depth: usize,
    /// (length, two independent 64-bit hashes) of a long string → its JS string. A false match
    /// needs a 128-bit collision between two strings of the same length.
    long: HashMap<(usize, u64, u64), sys::napi_value>,
}

fn check(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::from_reason(format!(
            "building the JS value failed (napi status {status})"
        )))
    }
}

impl Builder {
    pub fn new(env: sys::napi_env) -> Builder {
        Builder {
            env,
            dates_at: None,
            depth: 0,
            long: HashMap::new(),
        }
    }

    /// A builder that makes the model's moments JS Dates, as `index.js` revives them, in the
    /// objects at `depth` (1: a summary or a message itself, 2: the rows of a report).
    pub fn with_dates(env: sys::napi_env, depth: usize) -> Builder {
        Builder {
            dates_at: Some(depth),
            ..Builder::new(env)
        }
    }

    /// The whole session as `JSON.parse` of its JSON would give it.
    pub fn session(&mut self, session: Session) -> napi::Result<sys::napi_value> {
        let Session {
            summary,
            messages,
            raw,
        } = session;
        let to_value = |e: serde_json::Error| napi::Error::from_reason(e.to_string());
        let out = self.value(&serde_json::to_value(&summary).map_err(to_value)?)?;
        drop(summary);
        let list = self.array(messages.len())?;
        // Calls whose output was left at the tool message answering them (`output_at_result`)
        // get that message's output when it is built.
        let mut marked = MarkedCalls::default();
        for (i, mut m) in messages.into_iter().enumerate() {
            let answered = marked.step(i, &m);
            for c in m.tool_calls.iter_mut().filter(|c| c.output_at_result) {
                c.output = Some(Value::Null); // holds the key's place until linked
            }
            let v = serde_json::to_value(&m).map_err(to_value)?;
            drop(m);
            let js = self.value(&v)?;
            self.set_element(list, i, js)?;
            if let Some((cm, ci)) = answered {
                let message = self.element(list, cm)?;
                let call = self.property(message, "toolCalls")?;
                let call = self.element(call, ci)?;
                // Built again, not shared: `JSON.parse` would give the two their own objects.
                // The agent's own JSON: no moments of ours in it.
                let dates_at = self.dates_at.take();
                let output = self.value(&v["toolResult"]["output"])?;
                self.dates_at = dates_at;
                self.set(call, "output", output)?;
            }
            release_now_and_then(i);
        }
        self.set(out, "messages", list)?;
        // The agent's own records, as they were written.
        self.dates_at = None;
        match raw {
            None => {}
            Some(Raw::Value(v)) => {
                let js = self.value(&v)?;
                self.set(out, "raw", js)?;
            }
            Some(Raw::Lines(lines)) => {
                let list = self.array(lines.len())?;
                for (i, l) in lines.into_iter().enumerate() {
                    // Every line was JSON when it was read; one that is not comes out as a string,
                    // as the JSON writer's RawValue did.
                    let v = serde_json::from_str::<Value>(l.get())
                        .unwrap_or_else(|_| Value::String(l.get().to_string()));
                    drop(l);
                    let js = self.value(&v)?;
                    self.set_element(list, i, js)?;
                    release_now_and_then(i);
                }
                self.set(out, "raw", list)?;
            }
        }
        Ok(out)
    }

    /// A JSON value as a JS value. V8 lists integer-like keys first by itself, as after
    /// `JSON.parse`.
    pub fn value(&mut self, v: &Value) -> napi::Result<sys::napi_value> {
        let env = self.env;
        let mut out = ptr::null_mut();
        // SAFETY (every call below): `env` is the live env of the callback we run in, and `out`
        // a valid place for the result.
        match v {
            Value::Null => check(unsafe { sys::napi_get_null(env, &mut out) })?,
            Value::Bool(b) => check(unsafe { sys::napi_get_boolean(env, *b, &mut out) })?,
            Value::Number(n) => {
                let n = n.as_f64().unwrap_or(f64::NAN);
                check(unsafe { sys::napi_create_double(env, n, &mut out) })?
            }
            Value::String(s) => out = self.string(s)?,
            Value::Array(items) => {
                out = self.array(items.len())?;
                for (i, item) in items.iter().enumerate() {
                    let js = self.value(item)?;
                    self.set_element(out, i, js)?;
                }
            }
            Value::Object(map) => {
                check(unsafe { sys::napi_create_object(env, &mut out) })?;
                self.depth += 1;
                let dated = self.dates_at == Some(self.depth);
                for (k, item) in map {
                    let js = match item {
                        Value::String(iso) if dated && DATE_KEYS.contains(&k.as_str()) => {
                            self.date(iso)?
                        }
                        _ => self.value(item)?,
                    };
                    self.set(out, k, js)?;
                }
                self.depth -= 1;
            }
        }
        Ok(out)
    }

    /// An ISO 8601 moment as a JS Date (an invalid Date when it does not parse).
    fn date(&mut self, iso: &str) -> napi::Result<sys::napi_value> {
        let ms = chrono::DateTime::parse_from_rfc3339(iso)
            .map(|t| t.timestamp_millis() as f64)
            .unwrap_or(f64::NAN);
        let mut out = ptr::null_mut();
        // SAFETY: a live env and a valid place for the result.
        check(unsafe { sys::napi_create_date(self.env, ms, &mut out) })?;
        Ok(out)
    }

    fn string(&mut self, s: &str) -> napi::Result<sys::napi_value> {
        let key = (s.len() >= SHARE_FROM).then(|| {
            let mut a = DefaultHasher::new();
            s.hash(&mut a);
            let mut b = DefaultHasher::new();
            (0xa5u8, s).hash(&mut b);
            (s.len(), a.finish(), b.finish())
        });
        if let Some(js) = key.and_then(|k| self.long.get(&k)) {
            return Ok(*js);
        }
        let mut out = ptr::null_mut();
        // SAFETY: a live env, and a pointer and length that describe one UTF-8 str.
        check(unsafe {
            sys::napi_create_string_utf8(self.env, s.as_ptr().cast(), s.len() as isize, &mut out)
        })?;
        if let Some(k) = key {
            self.long.insert(k, out);
        }
        Ok(out)
    }

    fn array(&mut self, len: usize) -> napi::Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: a live env and a valid place for the result.
        check(unsafe { sys::napi_create_array_with_length(self.env, len, &mut out) })?;
        Ok(out)
    }

    fn property(&mut self, object: sys::napi_value, key: &str) -> napi::Result<sys::napi_value> {
        let name = self.string(key)?;
        let mut out = ptr::null_mut();
        // SAFETY: a live env, an object and a key made in this callback's scope.
        check(unsafe { sys::napi_get_property(self.env, object, name, &mut out) })?;
        Ok(out)
    }

    fn element(&mut self, array: sys::napi_value, i: usize) -> napi::Result<sys::napi_value> {
        let mut out = ptr::null_mut();
        // SAFETY: a live env and an array made in this callback's scope.
        check(unsafe { sys::napi_get_element(self.env, array, i as u32, &mut out) })?;
        Ok(out)
    }

    fn set_element(
        &mut self,
        array: sys::napi_value,
        i: usize,
        v: sys::napi_value,
    ) -> napi::Result<()> {
        // SAFETY: a live env and two values made in this callback's scope.
        check(unsafe { sys::napi_set_element(self.env, array, i as u32, v) })
    }

    /// Define `key` as an own data property, as `JSON.parse` does: plain assignment would run
    /// the `__proto__` setter for a record that has such a key.
    fn set(&mut self, object: sys::napi_value, key: &str, v: sys::napi_value) -> napi::Result<()> {
        let name = self.string(key)?;
        let desc = sys::napi_property_descriptor {
            utf8name: ptr::null(),
            name,
            method: None,
            getter: None,
            setter: None,
            value: v,
            attributes: sys::PropertyAttributes::writable
                | sys::PropertyAttributes::enumerable
                | sys::PropertyAttributes::configurable,
            data: ptr::null_mut(),
        };
        // SAFETY: a live env, an object and values made in this callback's scope, and one
        // descriptor that lives across the call.
        check(unsafe { sys::napi_define_properties(self.env, object, 1, &desc) })
    }
}
