//! One pass over a Codex rollout, in summary or full mode.
//!
//! Rules (native-formats.md §2 and the 0.169 addendum):
//! - Messages come from `response_item` only (each is also echoed as an `event_msg`; reading both
//!   would double them). Developer/system messages and injected user context
//!   (`<environment_context>`, AGENTS.md, permission instructions) become `system` messages.
//! - Tool calls (`function_call`, `custom_tool_call`, `local_shell_call`, …) pair with their
//!   `*_output` by `call_id`; reasoning summaries become the next assistant message's thinking.
//! - The model is in `turn_context` (else `thread_settings_applied`, else `token_count.info`).
//! - Tokens: `token_count.info.total_token_usage` is cumulative and re-emitted unchanged on
//!   rate-limit refreshes, so usage is the sum of its advances: repeats are skipped, a total that
//!   goes backwards (resume/compaction reset) counts that event's `last_token_usage`. A forked or
//!   spawned thread starts from its parent's totals (and older ones replay the parent's events in
//!   a burst at start): the burst is skipped and the first counted event contributes only its own
//!   `last_token_usage`. Codex's `input_tokens` include cached (and cache-write) input and
//!   `output_tokens` include reasoning: they are split into our separate buckets.
//! - `thread_rolled_back {num_turns}` drops the last turns from the transcript (their tokens were
//!   spent and stay in the usage).
//! - Legacy rollouts (before the `{timestamp,type,payload}` envelope) hold items as bare lines.
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

use crate::agents::adapter::Mode;
use crate::agents::transcript::Transcript;
use crate::error::{Error, Result};
use crate::model::{
    add_usage_at, parse_time_str, truncate_title, Message, ModelUsage, Raw, Role, Session,
    SessionSummary, Timestamp, Tokens, ToolCall, ToolResult,
};
use crate::read::jsonl::{for_each_line, parse_borrowed, parse_line};
use crate::read::lenient::{LNum, LObj, LStr, LVec};

const TITLE_CHARS: usize = 100;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Line<'a> {
    #[serde(borrow)]
    timestamp: LStr<'a>,
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    payload: LObj<Payload<'a>>,
}

/// The union of the payload fields we use across line kinds.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(borrow)]
    model: LStr<'a>,
    #[serde(borrow)]
    forked_from_id: LStr<'a>,
    #[serde(borrow)]
    parent_thread_id: LStr<'a>,
    source: Option<Value>,
    /// `session_meta.git`: `{commit_hash, branch, repository_url}`.
    git: Option<Value>,
    history_base: Option<IgnoredAny>,
    #[serde(borrow)]
    role: LStr<'a>,
    #[serde(borrow)]
    content: LVec<Item<'a>>,
    #[serde(borrow)]
    summary: LVec<Item<'a>>,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    call_id: LStr<'a>,
    #[serde(borrow)]
    message: LStr<'a>,
    #[serde(borrow)]
    info: LObj<Info<'a>>,
    num_turns: LNum,
    #[serde(borrow)]
    thread_settings: LObj<Settings<'a>>,
    /// A tool call's output as its JSON text: a search read looks at it before building the
    /// line's tree.
    #[serde(borrow)]
    output: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Item<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    text: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Info<'a> {
    total_token_usage: LObj<Usage>,
    last_token_usage: LObj<Usage>,
    #[serde(borrow)]
    model: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Settings<'a> {
    #[serde(borrow)]
    model: LStr<'a>,
}

#[derive(Deserialize, Default, Clone, Copy, PartialEq)]
#[serde(default)]
struct Usage {
    input_tokens: LNum,
    cached_input_tokens: LNum,
    cache_write_input_tokens: LNum,
    output_tokens: LNum,
    reasoning_output_tokens: LNum,
    total_tokens: LNum,
}

/// Raw counts in Codex's own sense (input ⊇ cached, output ⊇ reasoning).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    input: u64,
    cached: u64,
    cache_write: u64,
    output: u64,
    reasoning: u64,
    total: u64,
}

impl Usage {
    fn counts(&self) -> Counts {
        Counts {
            input: self.input_tokens.count(),
            cached: self.cached_input_tokens.count(),
            cache_write: self.cache_write_input_tokens.count(),
            output: self.output_tokens.count(),
            reasoning: self.reasoning_output_tokens.count(),
            total: self.total_tokens.count(),
        }
    }
}

impl Counts {
    fn all_ge(&self, o: &Counts) -> bool {
        self.input >= o.input
            && self.cached >= o.cached
            && self.cache_write >= o.cache_write
            && self.output >= o.output
            && self.reasoning >= o.reasoning
            && self.total >= o.total
    }
    fn minus(&self, o: &Counts) -> Counts {
        Counts {
            input: self.input - o.input,
            cached: self.cached - o.cached,
            cache_write: self.cache_write - o.cache_write,
            output: self.output - o.output,
            reasoning: self.reasoning - o.reasoning,
            total: self.total - o.total,
        }
    }
    /// Into separate buckets: uncached input, cache reads, cache writes, visible output, reasoning.
    fn tokens(&self) -> Tokens {
        let cached = self.cached.min(self.input);
        let cache_write = self.cache_write.min(self.input - cached);
        let reasoning = self.reasoning.min(self.output);
        Tokens {
            input: self.input - cached - cache_write,
            output: self.output - reasoning,
            cache_read: cached,
            cache_write,
            reasoning,
            ..Default::default()
        }
    }
}

pub(super) struct Parsed {
    summary: SessionSummary,
    transcript: Transcript,
    raw: Option<Vec<Box<RawValue>>>,
}

#[derive(Default)]
struct State {
    /// Lines that are Codex records (an envelope with a `type`, or a legacy header or item).
    records: usize,
    created: Option<Timestamp>,
    updated: Option<Timestamp>,
    meta_time: Option<Timestamp>,
    meta_seen: bool,
    cwd: Option<String>,
    git_branch: Option<String>,
    forked_from: Option<String>,
    /// The thread that spawned this one as a sub-agent.
    spawned_by: Option<String>,
    /// A forked or spawned thread (its totals start from the parent's).
    child: bool,
    model: Option<String>,
    first_prompt: Option<String>,
    transcript: Transcript,
    /// Index of each real prompt, for rollbacks.
    prompts: Vec<usize>,
    last_assistant: Option<usize>,
    pending_thinking: String,
    pending_tokens: Option<(Tokens, String)>,
    tools: HashMap<String, (usize, usize)>,
    prev_total: Option<Counts>,
    usage: Vec<ModelUsage>,
    raw: Vec<Box<RawValue>>,
    /// The decoded length of the tool output on the line being read, when a search read leaves
    /// it out (`left_out`).
    left_out: Option<u64>,
}

/// Read the rollout at `path` as session `id`, as deep as `mode` asks.
pub(super) fn read(path: &Path, id: &str, mode: Mode) -> Result<Parsed> {
    read_with(path, id, mode, None)
}

/// `Mode::Messages`, leaving out the tool outputs for which `needle_free` holds
/// (`Message::elided`): their lines are not parsed into a tree.
pub(super) fn read_for_search(
    path: &Path,
    id: &str,
    needle_free: &dyn Fn(&str) -> bool,
) -> Result<Parsed> {
    read_with(path, id, Mode::Messages, Some(needle_free))
}

/// The conversation alone (what the user typed and the assistant wrote), every text of it as
/// `read` gives it: only the lines that can hold it, or a rollback, are parsed. What else the
/// session holds (its summary, tool calls, thinking, usage) is partial.
pub(super) fn read_conversation(path: &Path, id: &str) -> Result<Parsed> {
    read_lines(
        path,
        id,
        Mode::Messages,
        Some(&|_| true),
        Some(conversation_line),
    )
}

fn read_with(
    path: &Path,
    id: &str,
    mode: Mode,
    needle_free: Option<&dyn Fn(&str) -> bool>,
) -> Result<Parsed> {
    read_lines(path, id, mode, needle_free, None)
}

/// `read_with`, passing over the lines for which `wanted` says no (they are counted as records,
/// not parsed).
fn read_lines(
    path: &Path,
    id: &str,
    mode: Mode,
    needle_free: Option<&dyn Fn(&str) -> bool>,
    wanted: Option<fn(&[u8]) -> bool>,
) -> Result<Parsed> {
    let full = mode.messages();
    let mut st = State {
        transcript: Transcript::new(full),
        ..Default::default()
    };
    let mut parsed = 0usize;
    let mut scratch = String::new();
    for_each_line(path, |bytes| {
        if wanted.is_some_and(|w| !w(bytes)) {
            parsed += 1;
            st.records += 1;
            return true;
        }
        if full {
            let Some(line) = parse_borrowed::<Line>(bytes, &mut scratch) else {
                return true;
            };
            parsed += 1;
            st.left_out = needle_free.and_then(|f| left_out(&line, f));
            // The line as a tree only where it is used: tool calls and their outputs (kept as
            // JSON, unless left out) and lines without an envelope (legacy rollouts). Messages,
            // reasoning and events are read from the borrowed struct alone.
            let tree = match &line.payload.0 {
                Some(p) => p.kind.as_str().is_some_and(is_tool_item) && st.left_out.is_none(),
                None => true,
            };
            let value = if tree {
                parse_line::<Value>(bytes)
            } else {
                None
            };
            let legacy = value.as_ref().and_then(|v| legacy_payload(&line, v));
            st.line(&line, legacy.as_ref(), value.as_ref());
            drop(line);
            drop(value);
            // The line's text, not the parsed tree: a quarter of the memory for `raw`.
            if mode.raw() {
                st.raw.push(Raw::line(bytes));
            }
        } else if let Some(line) = parse_borrowed::<Line>(bytes, &mut scratch) {
            parsed += 1;
            let legacy = if line.payload.0.is_none() {
                parse_borrowed::<Payload>(bytes, &mut String::new()).map(into_static_payload)
            } else {
                None
            };
            st.line(&line, legacy.as_ref(), None);
        }
        true
    })
    .map_err(|e| Error::parse(path.display(), e))?;
    if parsed == 0 {
        return Err(Error::parse(path.display(), "no readable JSON line"));
    }
    if st.records == 0 {
        return Err(crate::error::Error::not_a_session(path.display(), "codex"));
    }
    let summary = st.summary(path, id);
    Ok(Parsed {
        summary,
        transcript: std::mem::take(&mut st.transcript),
        raw: mode.raw().then(|| std::mem::take(&mut st.raw)),
    })
}

/// Search reads: the decoded length of a tool call's output that is a string with no needle in
/// it, judged on its raw JSON (as the Claude reader judges its results), for an output that
/// answers a call by id (a call without one keeps its own output, which search reads there).
/// `None`: read it.
fn left_out(line: &Line, needle_free: &dyn Fn(&str) -> bool) -> Option<u64> {
    let p = line.payload.0.as_ref()?;
    let output_item = line.kind.as_str() == Some("response_item")
        && p.kind.as_str().is_some_and(|k| k.ends_with("_call_output"));
    if !output_item || p.call_id.non_empty().is_none() {
        return None;
    }
    let raw = p.output?.get();
    let len = crate::read::json_str::decoded_len(raw)?;
    needle_free(raw).then_some(len as u64)
}

/// Whether a line may hold conversation text, or change which of it stays (a rollback): any
/// line but those whose envelope's head says they are a tool call or output, reasoning, an
/// event other than a rollback, a turn context or the session's header. A line whose head does
/// not read as that envelope is parsed.
fn conversation_line(line: &[u8]) -> bool {
    let Some((kind, payload)) = envelope_kinds(line) else {
        return true;
    };
    match kind {
        b"response_item" => {
            let item = std::str::from_utf8(payload).unwrap_or("");
            !(is_tool_item(item) || item == "reasoning")
        }
        b"event_msg" => payload == b"thread_rolled_back",
        b"turn_context" | b"session_meta" => false,
        _ => true,
    }
}

/// A line's `type` and its payload's `type`, read from the line's head alone (a tool output's
/// line is mostly its output): `None` when the head is not plainly that (a key or kind with an
/// escape, a nested value before them, `payload` before `type`).
fn envelope_kinds(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut h = Head { b: line, at: 0 };
    h.eat(b'{')?;
    let mut kind = None;
    loop {
        let key = h.plain_str()?;
        h.eat(b':')?;
        match key {
            b"type" => kind = Some(h.plain_str()?),
            b"payload" => {
                let kind = kind?;
                h.eat(b'{')?;
                loop {
                    let key = h.plain_str()?;
                    h.eat(b':')?;
                    if key == b"type" {
                        return Some((kind, h.plain_str()?));
                    }
                    h.skip_scalar()?;
                    h.eat(b',')?;
                }
            }
            _ => h.skip_scalar()?,
        }
        h.eat(b',')?;
    }
}

/// A cursor over the head of a JSON line (`envelope_kinds`).
struct Head<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Head<'a> {
    fn ws(&mut self) {
        while matches!(self.b.get(self.at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.b.get(self.at) == Some(&c)).then(|| self.at += 1)
    }

    /// A string without escapes: its bytes between the quotes.
    fn plain_str(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let rest = &self.b[self.at..];
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        if rest[end] != b'"' {
            return None;
        }
        self.at += end + 1;
        Some(&rest[..end])
    }

    /// A plain string, a number, `true`, `false` or `null`, passed over.
    fn skip_scalar(&mut self) -> Option<()> {
        self.ws();
        match self.b.get(self.at)? {
            b'"' => self.plain_str().map(drop),
            b'{' | b'[' => None,
            _ => {
                let rest = &self.b[self.at..];
                let end = rest.iter().position(|c| matches!(c, b',' | b'}'))?;
                self.at += end;
                Some(())
            }
        }
    }
}

/// A tool call or its output (`State::item` sends them to `tool_call` and `tool_output`): the
/// items whose input and output are kept as JSON.
fn is_tool_item(kind: &str) -> bool {
    kind.ends_with("_call") || kind.ends_with("_call_output")
}

/// A pre-envelope line is itself the item (or, first, the session header).
fn legacy_payload(line: &Line, value: &Value) -> Option<Payload<'static>> {
    if line.payload.0.is_some() || value.get("payload").is_some() {
        return None;
    }
    // A tree cannot lend its output as raw JSON, and the item is read from the tree anyway.
    if value.get("output").is_some() {
        let mut without = value.clone();
        without.as_object_mut()?.remove("output");
        return Payload::deserialize(&without).ok().map(into_static_payload);
    }
    Payload::deserialize(value).ok().map(into_static_payload)
}

/// Legacy payloads are rare: an owned copy keeps the borrowing simple.
fn into_static_payload(p: Payload<'_>) -> Payload<'static> {
    fn s(v: LStr<'_>) -> LStr<'static> {
        LStr(v.0.map(|c| std::borrow::Cow::Owned(c.into_owned())))
    }
    fn items(v: LVec<Item<'_>>) -> LVec<Item<'static>> {
        LVec(
            v.0.into_iter()
                .map(|i| Item {
                    kind: s(i.kind),
                    text: s(i.text),
                })
                .collect(),
        )
    }
    Payload {
        kind: s(p.kind),
        id: s(p.id),
        timestamp: s(p.timestamp),
        cwd: s(p.cwd),
        model: s(p.model),
        forked_from_id: s(p.forked_from_id),
        parent_thread_id: s(p.parent_thread_id),
        source: p.source,
        git: p.git,
        history_base: p.history_base,
        role: s(p.role),
        content: items(p.content),
        summary: items(p.summary),
        name: s(p.name),
        call_id: s(p.call_id),
        message: s(p.message),
        // Pre-envelope lines are items and the session header: no events to carry over.
        info: LObj(None),
        num_turns: p.num_turns,
        thread_settings: LObj(None),
        // Legacy items are read from their tree.
        output: None,
    }
}

/// User text Codex injects (environment, instructions), not typed by the user.
fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    [
        "<environment_context",
        "<user_instructions",
        "<permissions instructions",
        "<turn_aborted",
        "<subagent_notification",
        "# AGENTS.md instructions",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

fn join_text(items: &[Item]) -> String {
    let texts: Vec<&str> = items
        .iter()
        .filter(|i| {
            matches!(
                i.kind.as_str(),
                Some("input_text" | "output_text" | "text" | "summary_text" | "reasoning_text")
            )
        })
        .filter_map(|i| i.text.as_str())
        .collect();
    texts.join("\n")
}

/// A tool output as text plus the value to report: strings stay strings, content arrays of text
/// become their joined text, older `{content, …}` objects their content.
fn tool_output(v: Option<&Value>) -> (String, Value) {
    match v {
        Some(Value::String(s)) => (s.clone(), Value::String(s.clone())),
        Some(Value::Array(items)) => {
            let texts: Vec<&str> = items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect();
            let text = texts.join("\n");
            if texts.len() == items.len() {
                (text.clone(), Value::String(text))
            } else {
                (text, Value::Array(items.clone()))
            }
        }
        Some(Value::Object(o)) => match o.get("content") {
            Some(c @ (Value::String(_) | Value::Array(_))) => tool_output(Some(c)),
            _ => (
                Value::Object(o.clone()).to_string(),
                Value::Object(o.clone()),
            ),
        },
        Some(Value::Null) | None => (String::new(), Value::Null),
        Some(other) => (other.to_string(), other.clone()),
    }
}

/// Input of a tool call: `function_call.arguments` is a JSON string; custom tools take raw text.
fn tool_input(payload: &Value) -> Value {
    if let Some(args) = payload.get("arguments") {
        return match args {
            Value::String(s) => serde_json::from_str(s).unwrap_or_else(|_| args.clone()),
            other => other.clone(),
        };
    }
    for key in ["input", "action", "query"] {
        if let Some(v) = payload.get(key) {
            return v.clone();
        }
    }
    Value::Null
}

impl State {
    fn full(&self) -> bool {
        self.transcript.full()
    }

    fn line(&mut self, line: &Line, legacy: Option<&Payload>, value: Option<&Value>) {
        let ts = line.timestamp.as_str().and_then(parse_time_str);
        if let Some(t) = ts {
            self.created = Some(self.created.map_or(t, |c| c.min(t)));
            self.updated = Some(self.updated.map_or(t, |u| u.max(t)));
        }
        let (kind, payload, native) = match (&line.payload.0, legacy) {
            (Some(p), _) => (line.kind.as_str(), p, value.and_then(|v| v.get("payload"))),
            (None, Some(p)) if p.kind.as_str().is_none() && p.id.as_str().is_some() => {
                (Some("session_meta"), p, value)
            }
            (None, Some(p)) if p.kind.as_str().is_some() => (Some("response_item"), p, value),
            _ => return,
        };
        if kind.is_some() {
            self.records += 1;
        }
        match kind {
            Some("session_meta") => self.session_meta(payload, ts),
            Some("turn_context") => {
                if let Some(m) = payload.model.non_empty() {
                    self.model = Some(m.to_string());
                }
                if self.cwd.is_none() {
                    self.cwd = payload.cwd.non_empty().map(str::to_string);
                }
            }
            Some("event_msg") => self.event(payload, ts),
            Some("response_item") => self.item(payload, native, ts),
            _ => {}
        }
    }

    fn session_meta(&mut self, p: &Payload, ts: Option<Timestamp>) {
        if self.meta_seen {
            return; // a replayed parent header
        }
        self.meta_seen = true;
        let started = p.timestamp.as_str().and_then(parse_time_str);
        self.meta_time = ts.or(started);
        if let Some(t) = started {
            self.created = Some(self.created.map_or(t, |c| c.min(t)));
        }
        self.cwd = p.cwd.non_empty().map(str::to_string).or(self.cwd.take());
        self.git_branch = (p.git.as_ref())
            .and_then(|g| g.get("branch"))
            .and_then(Value::as_str)
            .filter(|b| !b.is_empty())
            .map(str::to_string);
        if let Some(m) = p.model.non_empty() {
            self.model.get_or_insert_with(|| m.to_string());
        }
        let spawned_parent = p
            .source
            .as_ref()
            .and_then(|s| s.pointer("/subagent/thread_spawn/parent_thread_id"))
            .and_then(Value::as_str);
        if let Some(parent) = spawned_parent.filter(|p| !p.is_empty()) {
            self.spawned_by = Some(parent.to_string());
        }
        let is_subagent = p
            .source
            .as_ref()
            .is_some_and(|s| s.get("subagent").is_some());
        self.forked_from = p
            .forked_from_id
            .non_empty()
            .or(p.parent_thread_id.non_empty())
            .or(spawned_parent)
            .map(str::to_string);
        self.child = self.forked_from.is_some() || p.history_base.is_some() || is_subagent;
    }

    fn event(&mut self, p: &Payload, ts: Option<Timestamp>) {
        match p.kind.as_str() {
            Some("token_count") => self.token_count(p, ts),
            Some("thread_settings_applied") if self.model.is_none() => {
                let m = p
                    .thread_settings
                    .0
                    .as_ref()
                    .and_then(|s| s.model.non_empty());
                self.model = m.map(str::to_string);
            }
            Some("thread_rolled_back") => self.roll_back(p.num_turns.count() as usize),
            _ => {}
        }
    }

    fn token_count(&mut self, p: &Payload, ts: Option<Timestamp>) {
        let Some(info) = &p.info.0 else { return };
        if self.model.is_none() {
            self.model = info.model.non_empty().map(str::to_string);
        }
        let last = info.last_token_usage.0.map(|u| u.counts());
        let Some(total) = info.total_token_usage.0.map(|u| u.counts()) else {
            // Legacy builds without totals: each event is its own usage.
            if let Some(l) = last {
                self.add_tokens(l.tokens(), ts);
            }
            return;
        };
        let replayed = self.child
            && matches!((self.meta_time, ts), (Some(m), Some(t)) if (t - m).num_milliseconds() < 1000);
        let delta = match self.prev_total {
            _ if replayed => None,
            None if self.child => Some(last.unwrap_or(total)),
            None => Some(total),
            Some(prev) if prev == total => None,
            Some(prev) if total.all_ge(&prev) => Some(total.minus(&prev)),
            Some(_) => Some(last.unwrap_or(total)),
        };
        self.prev_total = Some(total);
        if let Some(d) = delta {
            self.add_tokens(d.tokens(), ts);
        }
    }

    fn add_tokens(&mut self, t: Tokens, at: Option<Timestamp>) {
        if t.is_zero() {
            return;
        }
        let model = self.model.clone().unwrap_or_default();
        add_usage_at(&mut self.usage, &model, &t, None, at);
        if !self.full() {
            return;
        }
        match self.last_assistant.and_then(|i| self.transcript.get_mut(i)) {
            Some(m) => m.tokens.get_or_insert_with(Tokens::default).add(&t),
            None => {
                let pending = self
                    .pending_tokens
                    .get_or_insert((Tokens::default(), model));
                pending.0.add(&t);
            }
        }
    }

    fn roll_back(&mut self, turns: usize) {
        if turns == 0 || turns > self.prompts.len() {
            return;
        }
        let keep = self.prompts.len() - turns;
        let cut = self.prompts[keep];
        self.prompts.truncate(keep);
        self.transcript.truncate(cut);
        self.tools.retain(|_, (m, _)| *m < cut);
        self.last_assistant = (0..cut)
            .rev()
            .find(|&i| self.transcript.role(i) == Some(Role::Assistant));
    }

    fn push(&mut self, mut m: Message) -> usize {
        if m.role == Role::Assistant {
            m.model = self.model.clone();
            if !self.pending_thinking.is_empty() {
                m.thinking = Some(std::mem::take(&mut self.pending_thinking));
            }
            if let Some((t, _)) = self.pending_tokens.take() {
                m.tokens = Some(t);
            }
        }
        let i = self.transcript.push(m);
        if self.transcript.role(i) == Some(Role::Assistant) {
            self.last_assistant = Some(i);
        }
        i
    }

    fn item(&mut self, p: &Payload, native: Option<&Value>, ts: Option<Timestamp>) {
        let full = self.full();
        let kind = p.kind.as_str().unwrap_or("");
        match kind {
            "message" => {
                let text = join_text(&p.content.0);
                let role = match p.role.as_str() {
                    Some("assistant") => Role::Assistant,
                    Some("user") if !is_injected(&text) => Role::User,
                    Some("user" | "developer" | "system") => Role::System,
                    _ => return,
                };
                if role == Role::User {
                    self.prompts.push(self.transcript.len());
                    if self.first_prompt.is_none() && !text.trim().is_empty() {
                        self.first_prompt = Some(truncate_title(&text, TITLE_CHARS));
                    }
                }
                let mut m = Message::new(role, if full { text } else { String::new() });
                m.timestamp = ts;
                self.push(m);
            }
            "agent_message" => {
                let text = p.message.as_str().unwrap_or("");
                let mut m = Message::new(Role::Assistant, if full { text } else { "" });
                m.timestamp = ts;
                self.push(m);
            }
            // Thinking text is only kept in full reads.
            "reasoning" if full => {
                let mut text = join_text(&p.summary.0);
                if text.is_empty() {
                    text = join_text(&p.content.0);
                }
                if !text.is_empty() {
                    if !self.pending_thinking.is_empty() {
                        self.pending_thinking.push_str("\n\n");
                    }
                    self.pending_thinking.push_str(&text);
                }
            }
            k if k.ends_with("_call_output") => self.tool_output(p, native, ts),
            k if k.ends_with("_call") => self.tool_call(p, native, ts),
            _ => {}
        }
    }

    fn tool_call(&mut self, p: &Payload, native: Option<&Value>, ts: Option<Timestamp>) {
        // Calls join the assistant message just written; otherwise they start one.
        let last = self.transcript.len().checked_sub(1);
        let idx = match last.filter(|&i| self.transcript.role(i) == Some(Role::Assistant)) {
            Some(i) => i,
            None => {
                let mut m = Message::new(Role::Assistant, String::new());
                m.timestamp = ts;
                self.push(m)
            }
        };
        if !self.full() {
            return;
        }
        let kind = p.kind.as_str().unwrap_or("");
        let id = p
            .call_id
            .non_empty()
            .or(p.id.non_empty())
            .unwrap_or("")
            .to_string();
        let name = p
            .name
            .non_empty()
            .map(str::to_string)
            .unwrap_or_else(|| kind.trim_end_matches("_call").to_string());
        let input = native.map(tool_input).unwrap_or(Value::Null);
        if let Some(m) = self.transcript.get_mut(idx) {
            m.tool_calls.push(ToolCall {
                tool_call_id: id.clone(),
                tool_name: name,
                input,
                output: None,
                duration_ms: None,
                output_at_result: false,
            });
            let ci = m.tool_calls.len() - 1;
            if !id.is_empty() {
                self.tools.insert(id, (idx, ci));
            }
        }
    }

    fn tool_output(&mut self, p: &Payload, native: Option<&Value>, ts: Option<Timestamp>) {
        let mut m = Message::new(Role::Tool, String::new());
        m.timestamp = ts;
        if self.full() {
            let id = p.call_id.as_str().unwrap_or("").to_string();
            let (text, output) = match self.left_out.take() {
                Some(len) => {
                    m.elided = len;
                    (String::new(), Value::String(String::new()))
                }
                None => tool_output(native.and_then(|n| n.get("output"))),
            };
            let mut name = String::new();
            if let Some(&(mi, ci)) = self.tools.get(&id) {
                if let Some(call) = self
                    .transcript
                    .get_mut(mi)
                    .and_then(|m| m.tool_calls.get_mut(ci))
                {
                    name = call.tool_name.clone();
                    call.output = Some(output.clone());
                }
            }
            m.content = text;
            m.tool_result = Some(ToolResult {
                tool_call_id: id,
                tool_name: name,
                output,
            });
        }
        self.push(m);
    }

    fn summary(&self, path: &Path, id: &str) -> SessionSummary {
        let fallback = crate::read::fs::mtime(path);
        let created = self.created.or(fallback).unwrap_or_default();
        let updated = self.updated.or(fallback).unwrap_or(created);
        let mut s = SessionSummary::new(super::NAME, id, created, updated);
        s.title = self.first_prompt.clone().unwrap_or_default();
        s.message_count = self.transcript.len() as u64;
        s.turn_count = self.transcript.turn_count();
        s.model = self
            .transcript
            .most_used_model()
            .or_else(|| self.model.clone());
        s.cwd = self.cwd.clone();
        s.git_branch = self.git_branch.clone();
        s.forked_from = self.forked_from.clone();
        s.parent_id = (self.spawned_by.as_deref()).map(|p| crate::ids::unified_id("codex", p));
        s.usage = self.usage.clone();
        s
    }
}

impl Parsed {
    pub(super) fn into_summary(self) -> SessionSummary {
        self.summary
    }

    pub(super) fn into_session(self) -> Session {
        Session {
            summary: self.summary,
            messages: self.transcript.into_messages(),
            raw: self.raw.map(Raw::Lines),
        }
    }
}
