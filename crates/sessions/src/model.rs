//! The session model of the spec (section 3), plus the unpriced token buckets adapters fill in.
//! Serialised with the spec's camelCase names; dates as ISO 8601 with milliseconds, as JS writes them.
use chrono::{DateTime, Datelike, Timelike, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

pub type Timestamp = DateTime<Utc>;

/// The spec's `CostRecord`, extended with `cacheWriteTokens` where an agent reports cache writes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostRecord {
    pub total_usd: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_tokens: Option<u64>,
}

/// Token counts as separate buckets, before pricing. `input` excludes cached input, `output`
/// excludes reasoning: each bucket is billed at its own rate and is counted once.
/// `cache_write_1h` is not a bucket of its own: it is the part of `cache_write` written with a
/// one-hour TTL (billed higher than the default five minutes), where the agent reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
    pub cache_write_1h: u64,
}

impl Tokens {
    pub fn is_zero(&self) -> bool {
        *self == Tokens::default()
    }
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write + self.reasoning
    }
    /// The prompt of one request: everything the model read, cached or not.
    pub fn prompt(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }
    pub fn add(&mut self, other: &Tokens) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.reasoning += other.reasoning;
        self.cache_write_1h += other.cache_write_1h;
    }
    /// `self` less `other`, bucket by bucket (never below zero).
    pub fn minus(&self, other: &Tokens) -> Tokens {
        Tokens {
            input: self.input.saturating_sub(other.input),
            output: self.output.saturating_sub(other.output),
            cache_read: self.cache_read.saturating_sub(other.cache_read),
            cache_write: self.cache_write.saturating_sub(other.cache_write),
            reasoning: self.reasoning.saturating_sub(other.reasoning),
            cache_write_1h: self.cache_write_1h.saturating_sub(other.cache_write_1h),
        }
    }
}

/// Prompt sizes at which providers switch to long-context prices ("above 200k tokens": every
/// token of such a request costs more). Every tier threshold in the price table is one of these
/// (a test checks it), so summing requests per band keeps tiered pricing exact without keeping
/// each request.
pub const LONG_PROMPT_BANDS: [u64; 6] = [100_000, 128_000, 200_000, 256_000, 272_000, 512_000];

/// What one model consumed in a session, with the agent's own cost when it reports one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelUsage {
    pub model: String,
    pub tokens: Tokens,
    pub native_cost_usd: Option<f64>,
    /// `long_prompt[i]`: the part of `tokens` from requests whose prompt was larger than
    /// `LONG_PROMPT_BANDS[i]` but not larger than the next band. Filled by `add_usage`.
    pub long_prompt: [Tokens; LONG_PROMPT_BANDS.len()],
    /// The same usage split by when it was spent (`UsageSlice`), for cost per local day. Empty
    /// when nothing filled it (a `ModelUsage` built by hand): then all of it is untimed.
    pub slices: Vec<UsageSlice>,
}

/// Part of a model's usage: the requests of one quarter hour (UTC) that fall in one long-prompt
/// band. A quarter hour is the unit because every time zone in use is offset from UTC by a
/// whole number of quarter hours, so no local midnight falls inside one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageSlice {
    /// Quarter hours since the Unix epoch; `None` when the time is not known (a session-level
    /// total), which puts the slice on the session's first day.
    pub quarter: Option<i64>,
    /// Index into `LONG_PROMPT_BANDS` of every request here; `None`: below every band.
    pub band: Option<usize>,
    pub tokens: Tokens,
    pub native_cost_usd: Option<f64>,
}

impl UsageSlice {
    /// The first moment of the slice's quarter hour.
    pub fn start(&self) -> Option<Timestamp> {
        self.quarter
            .and_then(|q| DateTime::from_timestamp(q * QUARTER_SECS, 0))
    }
}

const QUARTER_SECS: i64 = 15 * 60;

/// One request of a session as the agent recorded it, for what needs each one on its own: 5-hour
/// billing blocks (their start and gaps follow exact times) and a response recorded in several
/// sessions (a resumed or forked transcript replays it), counted once across all of them.
/// Only agents whose lines carry per-request times fill these (Claude Code); they are never
/// serialised, and the index keeps them apart so that listing does not decode them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Request {
    pub at: Timestamp,
    /// Index into the session's `usage` of the request's model.
    pub model: usize,
    /// A hash of the response's id; 0 when it has none (never taken for a replay of another).
    pub key: u64,
    pub tokens: Tokens,
    pub native_cost_usd: Option<f64>,
    /// Recorded by a subagent (a sidechain): a copy in the main transcript is preferred.
    pub sidechain: bool,
    /// Copied from another session (a resumed or forked transcript's replay of its parent): the
    /// copy in the session that made the request is preferred.
    pub replayed: bool,
}

impl ModelUsage {
    /// `slices`, or for a usage that has none, the slices its totals make (all untimed).
    pub fn slices(&self) -> Vec<UsageSlice> {
        if !self.slices.is_empty() {
            return self.slices.clone();
        }
        let mut out = Vec::new();
        let mut rest = self.tokens;
        for (band, t) in self.long_prompt.iter().enumerate() {
            if !t.is_zero() {
                out.push(UsageSlice {
                    band: Some(band),
                    tokens: *t,
                    ..Default::default()
                });
                rest = rest.minus(t);
            }
        }
        out.push(UsageSlice {
            quarter: None,
            band: None,
            tokens: rest,
            native_cost_usd: self.native_cost_usd,
        });
        out
    }

    /// Before a slice is added: make slices of totals that have none (a usage built by hand), so
    /// that non-empty `slices` always cover the whole usage.
    fn cover_with_slices(&mut self) {
        if self.slices.is_empty() && (!self.tokens.is_zero() || self.native_cost_usd.is_some()) {
            self.slices = self.slices();
        }
    }

    /// Add slice `s` to the slice of the same quarter hour and band.
    fn add_slice(&mut self, s: &UsageSlice) {
        let same = |x: &UsageSlice| x.quarter == s.quarter && x.band == s.band;
        // Requests come mostly in time order: the matching slice is usually the last one.
        match self.slices.iter_mut().rev().find(|x| same(x)) {
            Some(x) => {
                x.tokens.add(&s.tokens);
                if let Some(c) = s.native_cost_usd {
                    *x.native_cost_usd.get_or_insert(0.0) += c;
                }
            }
            None => self.slices.push(s.clone()),
        }
    }
}

fn entry<'a>(usage: &'a mut Vec<ModelUsage>, model: &str) -> &'a mut ModelUsage {
    match usage.iter().position(|u| u.model == model) {
        Some(i) => &mut usage[i],
        None => {
            usage.push(ModelUsage {
                model: model.to_string(),
                ..Default::default()
            });
            usage.last_mut().expect("just pushed")
        }
    }
}

/// Add one request's `tokens` (and a native cost) for `model` to a per-model usage list. Call it
/// once per request (message), not with running totals: the prompt size of each call decides
/// whether long-context prices apply. A request with no time is counted on the session's first
/// day (`add_usage_at` with the request's time puts it on its own day).
pub fn add_usage(
    usage: &mut Vec<ModelUsage>,
    model: &str,
    tokens: &Tokens,
    native_cost: Option<f64>,
) {
    add_usage_at(usage, model, tokens, native_cost, None);
}

/// `add_usage` for a request made at `at`.
pub fn add_usage_at(
    usage: &mut Vec<ModelUsage>,
    model: &str,
    tokens: &Tokens,
    native_cost: Option<f64>,
    at: Option<Timestamp>,
) {
    let entry = entry(usage, model);
    entry.cover_with_slices();
    entry.tokens.add(tokens);
    let band = band_of(tokens);
    if let Some(band) = band {
        entry.long_prompt[band].add(tokens);
    }
    if let Some(c) = native_cost {
        *entry.native_cost_usd.get_or_insert(0.0) += c;
    }
    entry.add_slice(&UsageSlice {
        quarter: at.map(|t| t.timestamp().div_euclid(QUARTER_SECS)),
        band,
        tokens: *tokens,
        native_cost_usd: native_cost,
    });
}

/// The long-prompt band of one request (index into `LONG_PROMPT_BANDS`), if any.
fn band_of(tokens: &Tokens) -> Option<usize> {
    let prompt = tokens.prompt();
    LONG_PROMPT_BANDS.iter().rposition(|b| prompt > *b)
}

/// Take back a request that `add_usage_at` added for `usage[model]` at `at` (a response that
/// another session also recorded, counted there instead).
pub fn remove_usage_at(
    usage: &mut [ModelUsage],
    model: usize,
    tokens: &Tokens,
    native_cost: Option<f64>,
    at: Option<Timestamp>,
) {
    let Some(e) = usage.get_mut(model) else {
        return;
    };
    let band = band_of(tokens);
    e.tokens = e.tokens.minus(tokens);
    if let Some(b) = band {
        e.long_prompt[b] = e.long_prompt[b].minus(tokens);
    }
    let take = |total: &mut Option<f64>| {
        if let (Some(c), Some(t)) = (native_cost, total.as_mut()) {
            *t -= c;
        }
    };
    take(&mut e.native_cost_usd);
    let quarter = at.map(|t| t.timestamp().div_euclid(QUARTER_SECS));
    let Some(i) = (e.slices.iter()).position(|x| x.quarter == quarter && x.band == band) else {
        return;
    };
    let x = &mut e.slices[i];
    x.tokens = x.tokens.minus(tokens);
    take(&mut x.native_cost_usd);
    if x.tokens.is_zero() && x.native_cost_usd.is_none_or(|c| c.abs() < 1e-12) {
        e.slices.remove(i);
    }
}

/// Add `u` (a model's usage already summed over requests, e.g. a subagent's or another file's)
/// to a usage list, keeping its long-prompt bands and its slices. Re-adding such a sum with
/// `add_usage` would band it by the size of all its prompts together and price ordinary requests
/// at long-context rates.
pub fn merge_usage(usage: &mut Vec<ModelUsage>, u: &ModelUsage) {
    let e = entry(usage, &u.model);
    e.cover_with_slices();
    e.tokens.add(&u.tokens);
    for (band, t) in e.long_prompt.iter_mut().zip(&u.long_prompt) {
        band.add(t);
    }
    if let Some(c) = u.native_cost_usd {
        *e.native_cost_usd.get_or_insert(0.0) += c;
    }
    for s in u.slices() {
        e.add_slice(&s);
    }
}

/// Add a model's total over an unknown number of requests (a session-level counter such as
/// Copilot's `modelMetrics` or Hermes' session columns). Prompt sizes are unknown, so no
/// long-prompt band is claimed: the total is priced at base rates.
pub fn add_total(
    usage: &mut Vec<ModelUsage>,
    model: &str,
    tokens: &Tokens,
    native_cost: Option<f64>,
) {
    merge_usage(
        usage,
        &ModelUsage {
            model: model.to_string(),
            tokens: *tokens,
            native_cost_usd: native_cost,
            ..Default::default()
        },
    );
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    System,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Tool => "tool",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_tokens: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub tool_call_id: String,
    pub tool_name: String,
    #[serde(serialize_with = "crate::js_order::value")]
    pub input: Value,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::js_order::option"
    )]
    pub output: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// `Mode::FullOutputsOnce`: `output` is left out and is the output of the tool message that
    /// answers this call (the last one with its id before another marked call with that id).
    /// `Session::link_call_outputs` puts it back.
    #[serde(skip)]
    pub output_at_result: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub tool_call_id: String,
    pub tool_name: String,
    #[serde(serialize_with = "crate::js_order::value")]
    pub output: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub role: Role,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "iso_opt")]
    pub timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_result: Option<ToolResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_usage: Option<TokenUsage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Beyond the spec: set on messages that came from a subagent transcript (its agent id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent: Option<String>,
    /// Unpriced usage, filled by adapters; the cost engine derives `token_usage` and `cost`.
    #[serde(skip)]
    pub tokens: Option<Tokens>,
    /// The agent's own cost for this message, when it records one.
    #[serde(skip)]
    pub native_cost_usd: Option<f64>,
    /// Bytes of searchable text a search read left out of this message because no needle was
    /// in them (`SearchSupport::load_for_search`): they count in the session's length, never as a hit.
    #[serde(skip)]
    pub elided: u64,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            timestamp: None,
            tool_calls: Vec::new(),
            tool_result: None,
            token_usage: None,
            cost: None,
            thinking: None,
            model: None,
            subagent: None,
            tokens: None,
            native_cost_usd: None,
            elided: 0,
        }
    }
}

/// The spec's `SessionSummary`, plus the search extensions `snippet` and `matchCount`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub agent: String,
    pub session_id: String,
    pub unified_id: String,
    pub title: String,
    #[serde(with = "iso")]
    pub created_at: Timestamp,
    #[serde(with = "iso")]
    pub updated_at: Timestamp,
    pub turn_count: u64,
    pub message_count: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CostRecord>,
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
    /// Beyond the spec: the git branch the session ran on (the last one recorded), where the
    /// agent records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    /// Beyond the spec: the project of `cwd`, the main working directory of its git repository
    /// (else `cwd` itself), as it was when the session was indexed (`read::project`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Beyond the spec: the session that started this one as a sub-agent (its unified id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// Beyond the spec: how many sub-agent sessions this one started, where a listing folded
    /// them in (their cost is in this summary's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub children: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relevance_score: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_count: Option<u64>,
    /// Beyond the spec: a kept session whose source is gone (served from amux's own copy).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
    /// Per-model usage for pricing; never serialised.
    #[serde(skip)]
    pub usage: Vec<ModelUsage>,
    /// Number of runs recorded for this session in the run index (filled by the cost engine).
    #[serde(skip)]
    pub run_count: u64,
    /// Each request on its own, where the agent records them (`Request`); the same usage as
    /// `usage`. Empty when not asked for (a listing from the index) or not recorded.
    #[serde(skip)]
    pub requests: Vec<Request>,
}

impl SessionSummary {
    /// A summary with the required fields; everything else empty.
    pub fn new(
        agent: &str,
        session_id: &str,
        created_at: Timestamp,
        updated_at: Timestamp,
    ) -> Self {
        SessionSummary {
            agent: agent.to_string(),
            session_id: session_id.to_string(),
            unified_id: crate::ids::unified_id(agent, session_id),
            title: String::new(),
            created_at,
            updated_at,
            turn_count: 0,
            message_count: 0,
            model: None,
            cost: None,
            tags: Vec::new(),
            cwd: None,
            forked_from: None,
            git_branch: None,
            project: None,
            parent_id: None,
            children: None,
            relevance_score: None,
            snippet: None,
            match_count: None,
            archived: false,
            usage: Vec::new(),
            run_count: 0,
            requests: Vec::new(),
        }
    }
}

/// The spec's `Session`: the summary's fields (flattened) plus the messages and the native records.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    #[serde(flatten)]
    pub summary: SessionSummary,
    pub messages: Vec<Message>,
    /// Native values keep JS key order so `get()` and the exports print them alike (js_order.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<Raw>,
}

/// `Session.raw`: the agent's native records. JSONL agents keep each line as its JSON text, which
/// costs about the size of the file; a parsed `Value` tree costs three to four times that, and a
/// 200 MB session must not. Serialises as the same JSON either way (lines as an array).
#[derive(Debug, Clone)]
pub enum Raw {
    /// A document an adapter assembled (SQLite rows, trees, single-document files).
    Value(Value),
    /// One native JSONL record per element, as text.
    Lines(Vec<Box<serde_json::value::RawValue>>),
}

impl Raw {
    /// One record's text as a raw JSON value. The text must be JSON (it parsed as such already);
    /// text that is not becomes a JSON string rather than an error.
    /// Invalid UTF-8 is repaired with replacement characters, as the line parsers do.
    pub fn line(bytes: &[u8]) -> Box<serde_json::value::RawValue> {
        let text = String::from_utf8_lossy(bytes);
        serde_json::value::RawValue::from_string(text.into_owned()).unwrap_or_else(|_| {
            let text = String::from_utf8_lossy(bytes);
            serde_json::value::to_raw_value(&text).expect("a string serialises")
        })
    }

    /// The records as a parsed tree (tests and small documents; costs the full parse).
    pub fn to_value(&self) -> Value {
        match self {
            Raw::Value(v) => v.clone(),
            Raw::Lines(lines) => Value::Array(
                lines
                    .iter()
                    .map(|l| serde_json::from_str(l.get()).unwrap_or(Value::Null))
                    .collect(),
            ),
        }
    }

    /// The assembled document, for adapters that add to it.
    pub fn as_value_mut(&mut self) -> Option<&mut Value> {
        match self {
            Raw::Value(v) => Some(v),
            Raw::Lines(_) => None,
        }
    }
}

impl From<Value> for Raw {
    fn from(v: Value) -> Self {
        Raw::Value(v)
    }
}

impl PartialEq for Raw {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Raw::Value(a), Raw::Value(b)) => a == b,
            (Raw::Lines(a), Raw::Lines(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.get() == y.get())
            }
            _ => self.to_value() == other.to_value(),
        }
    }
}

impl Serialize for Raw {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Raw::Value(v) => crate::js_order::JsOrder(v).serialize(s),
            Raw::Lines(lines) => s.collect_seq(lines.iter().map(|l| crate::js_order::RawLine(l))),
        }
    }
}

/// Which call a tool message's output belongs to, for calls marked `output_at_result`: the
/// last marked call with the result's id before it. Messages are taken in order, each call at
/// its (message, call) index. The one rule `Session::link_call_outputs` and the JS builder follow.
#[derive(Default)]
pub struct MarkedCalls(HashMap<String, (usize, usize)>);

impl MarkedCalls {
    /// Note the marked calls of message `mi`, then say which call its tool result answers.
    pub fn step(&mut self, mi: usize, m: &Message) -> Option<(usize, usize)> {
        for (ci, c) in m.tool_calls.iter().enumerate() {
            if c.output_at_result {
                self.0.insert(c.tool_call_id.clone(), (mi, ci));
            }
        }
        let r = m.tool_result.as_ref()?;
        self.0.get(&r.tool_call_id).copied()
    }
}

impl Session {
    /// Give each call marked `output_at_result` (`Mode::FullOutputsOnce`) a copy of the output of
    /// the tool message answering it (`MarkedCalls`), as `Mode::Full` reads it.
    pub fn link_call_outputs(&mut self) {
        let mut marked = MarkedCalls::default();
        for mi in 0..self.messages.len() {
            let Some((cm, ci)) = marked.step(mi, &self.messages[mi]) else {
                continue;
            };
            let output = self.messages[mi]
                .tool_result
                .as_ref()
                .map(|r| r.output.clone());
            self.messages[cm].tool_calls[ci].output = output;
        }
        for c in self.messages.iter_mut().flat_map(|m| &mut m.tool_calls) {
            c.output_at_result = false;
        }
    }

    /// The same JSON as `serde_json::to_string(&session)`, written while the session is taken
    /// apart: each message and each raw record is freed once written, so a large session does not
    /// sit in memory whole beside its whole JSON text (`get_mem`; the binding now builds JS values).
    pub fn into_json(self) -> serde_json::Result<String> {
        let Session {
            summary,
            messages,
            raw,
        } = self;
        let mut out = serde_json::to_string(&summary)?;
        out.pop(); // the summary object's closing brace
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str("\"messages\":[");
        for (i, m) in messages.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(&m)?);
        }
        out.push(']');
        match raw {
            None => {}
            Some(Raw::Value(v)) => {
                out.push_str(",\"raw\":");
                out.push_str(&serde_json::to_string(&crate::js_order::JsOrder(&v))?);
            }
            Some(Raw::Lines(lines)) => {
                out.push_str(",\"raw\":[");
                for (i, l) in lines.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(&crate::js_order::RawLine(&l))?);
                }
                out.push(']');
            }
        }
        out.push('}');
        Ok(out)
    }

    /// Fill the summary's counts, model, dates and usage from the messages, keeping what the adapter
    /// already set. Adapters call this once after parsing.
    pub fn derive_summary_fields(&mut self) {
        let s = &mut self.summary;
        s.message_count = self.messages.len() as u64;
        s.turn_count = count_turns(self.messages.iter().map(|m| m.role));
        if s.model.is_none() {
            s.model = most_used_model(&self.messages);
        }
        if s.usage.is_empty() {
            for m in &self.messages {
                if m.tokens.is_some() || m.native_cost_usd.is_some() {
                    let model = m.model.as_deref().or(s.model.as_deref()).unwrap_or("");
                    let tokens = m.tokens.unwrap_or_default();
                    add_usage_at(&mut s.usage, model, &tokens, m.native_cost_usd, m.timestamp);
                }
            }
        }
    }
}

/// A turn is a user message answered by at least one assistant message.
pub fn count_turns(roles: impl Iterator<Item = Role>) -> u64 {
    let mut turns = 0;
    let mut waiting_for_answer = false;
    for role in roles {
        match role {
            Role::User => waiting_for_answer = true,
            Role::Assistant if waiting_for_answer => {
                turns += 1;
                waiting_for_answer = false;
            }
            _ => {}
        }
    }
    turns
}

/// The model named on the most messages (ties: the one seen first).
pub fn most_used_model(messages: &[Message]) -> Option<String> {
    most_named(messages.iter().filter_map(|m| m.model.as_deref()))
}

/// The non-empty name given most often (ties: the one seen first): every reader's "model of the
/// session" rule, over whatever holds its messages' models.
pub fn most_named<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for name in names.into_iter().filter(|n| !n.is_empty()) {
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some(c) => c.1 += 1,
            None => counts.push((name, 1)),
        }
    }
    let best = counts.iter().map(|c| c.1).max()?;
    counts
        .into_iter()
        .find(|c| c.1 == best)
        .map(|c| c.0.to_string())
}

/// Cut a title to `max` characters on a character boundary, on one line.
pub fn truncate_title(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(max) {
        Some((i, _)) => one_line[..i].to_string(),
        None => one_line,
    }
}

/// Dates as JS `Date.prototype.toISOString` writes them.
pub fn to_iso(t: &Timestamp) -> String {
    // Written digit by digit: `format` interprets its pattern anew for every date, and a list
    // writes two dates per session. Years past four digits and leap seconds keep chrono's spelling.
    let millis = t.timestamp_subsec_millis();
    if !(0..=9999).contains(&t.year()) || millis > 999 {
        return t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    }
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let fields = [
        (0, 4, t.year() as u32),
        (5, 2, t.month()),
        (8, 2, t.day()),
        (11, 2, t.hour()),
        (14, 2, t.minute()),
        (17, 2, t.second()),
        (20, 3, millis),
    ];
    for (at, width, mut value) in fields {
        for digit in out[at..at + width].iter_mut().rev() {
            *digit = b'0' + (value % 10) as u8;
            value /= 10;
        }
    }
    out.iter().map(|&b| b as char).collect()
}

/// Parse an ISO 8601 / RFC 3339 string, or epoch seconds/milliseconds given as a number.
pub fn parse_timestamp(v: &Value) -> Option<Timestamp> {
    match v {
        Value::String(s) => parse_time_str(s),
        Value::Number(n) => n.as_f64().and_then(from_epoch_guess),
        _ => None,
    }
}

pub fn parse_time_str(s: &str) -> Option<Timestamp> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(t.with_timezone(&Utc));
    }
    // Naive forms seen in the wild ("2025-01-02 03:04:05", "2025-01-02T03:04:05.123") are UTC.
    for fmt in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"] {
        if let Ok(n) = chrono::NaiveDateTime::parse_from_str(s, fmt) {
            return Some(n.and_utc());
        }
    }
    s.parse::<f64>().ok().and_then(from_epoch_guess)
}

/// Epoch seconds, milliseconds or microseconds, told apart by magnitude.
pub fn from_epoch_guess(x: f64) -> Option<Timestamp> {
    if !x.is_finite() || x <= 0.0 {
        return None;
    }
    let ms = if x < 1e11 {
        x * 1000.0
    } else if x < 1e14 {
        x
    } else {
        x / 1000.0
    };
    DateTime::from_timestamp_millis(ms as i64)
}

mod iso {
    use super::*;
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(t: &Timestamp, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&to_iso(t))
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
        let s = String::deserialize(d)?;
        parse_time_str(&s).ok_or_else(|| serde::de::Error::custom("bad date"))
    }
}

mod iso_opt {
    use super::*;
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(t: &Option<Timestamp>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&to_iso(t)),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        let s = Option::<String>::deserialize(d)?;
        Ok(s.and_then(|s| parse_time_str(&s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates_are_written_as_chrono_formats_them() {
        let cases = [
            "2026-01-02T03:04:05.678Z",
            "1970-01-01T00:00:00Z",
            "0000-03-01T00:00:00.001Z",
            "9999-12-31T23:59:59.999Z",
            "1999-12-31T23:59:59.5Z",
            "2024-02-29T12:30:45.090Z",
        ];
        let mut times: Vec<Timestamp> = cases.iter().map(|c| parse_time_str(c).unwrap()).collect();
        times.extend([
            DateTime::from_timestamp_millis(253_402_300_800_000).unwrap(), // year 10000
            DateTime::from_timestamp_millis(-62_198_755_200_000).unwrap(), // year -1
            DateTime::from_timestamp(1_483_228_799, 1_500_000_000).unwrap(), // a leap second
        ]);
        for t in &times {
            assert_eq!(to_iso(t), t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string());
        }
        assert_eq!(to_iso(&times[0]), cases[0]);
        assert_eq!(to_iso(&times[4]), "1999-12-31T23:59:59.500Z");
    }

    #[test]
    fn into_json_writes_what_serde_writes() {
        let t = parse_time_str("2026-01-02T03:04:05.678Z").unwrap();
        let mut summary = SessionSummary::new("claude", "s1", t, t);
        summary.title = "a \"quoted\" title".into();
        summary.model = Some("m".into());
        let mut m = Message::new(Role::Assistant, "hi\n");
        m.tool_calls.push(ToolCall {
            tool_call_id: "c".into(),
            tool_name: "Bash".into(),
            input: serde_json::json!({"command": "ls"}),
            output: Some(serde_json::json!("out")),
            duration_ms: Some(2.0),
            output_at_result: false,
        });
        let lines = vec![
            Raw::line(br#"{"type":"user", "x":[1, 2]}"#),
            Raw::line(b"\xff"),
        ];
        for (raw, messages) in [
            (
                Some(Raw::Lines(lines)),
                vec![Message::new(Role::User, "q"), m.clone()],
            ),
            (Some(Raw::Value(serde_json::json!({"k": [1]}))), vec![m]),
            (None, Vec::new()),
        ] {
            let s = Session {
                summary: summary.clone(),
                messages,
                raw,
            };
            let expected = serde_json::to_string(&s).unwrap();
            assert_eq!(s.into_json().unwrap(), expected);
        }
    }

    #[test]
    fn turns_count_answered_prompts() {
        use Role::*;
        assert_eq!(
            count_turns([User, Assistant, Tool, Assistant, User].into_iter()),
            1
        );
        assert_eq!(
            count_turns([User, User, Assistant, User, Assistant].into_iter()),
            2
        );
        assert_eq!(count_turns([Assistant, System].into_iter()), 0);
    }

    #[test]
    fn timestamps_in_all_forms() {
        let a = parse_time_str("2025-01-02T03:04:05.678Z").unwrap();
        assert_eq!(to_iso(&a), "2025-01-02T03:04:05.678Z");
        let b = from_epoch_guess(1735787045678.0).unwrap();
        assert_eq!(a, b);
        let c = from_epoch_guess(1735787045.678).unwrap();
        assert_eq!(to_iso(&c), "2025-01-02T03:04:05.678Z");
        assert_eq!(
            to_iso(&parse_time_str("2025-01-02 03:04:05").unwrap()),
            "2025-01-02T03:04:05.000Z"
        );
        assert!(parse_time_str("yesterday").is_none());
    }

    #[test]
    fn title_truncation_is_char_safe() {
        assert_eq!(truncate_title("大别山 is\n here", 4), "大别山 ");
        assert_eq!(truncate_title("short", 100), "short");
    }

    #[test]
    fn summary_serialises_with_spec_names() {
        let t = parse_time_str("2025-01-02T03:04:05Z").unwrap();
        let s = SessionSummary::new("claude", "abc", t, t);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["unifiedId"], "claude:abc");
        assert_eq!(v["createdAt"], "2025-01-02T03:04:05.000Z");
        assert_eq!(v["tags"], serde_json::json!([]));
        assert!(v.get("model").is_none());
        assert!(v.get("usage").is_none());
    }

    #[test]
    fn merged_sums_keep_their_bands_and_totals_claim_none() {
        let small = Tokens {
            input: 90_000,
            ..Default::default()
        };
        let big = Tokens {
            input: 150_000,
            cache_read: 60_000,
            ..Default::default()
        };
        // Two ordinary requests (90k each): no band, even though their sum is 180k.
        let mut sub = Vec::new();
        add_usage(&mut sub, "m", &small, None);
        add_usage(&mut sub, "m", &small, Some(0.5));
        assert!(sub[0].long_prompt.iter().all(Tokens::is_zero));
        let mut main = Vec::new();
        add_usage(&mut main, "m", &big, None); // 210k: the 200k band (index 2)
        merge_usage(&mut main, &sub[0]);
        assert_eq!(main.len(), 1);
        assert_eq!(main[0].tokens.input, 330_000);
        assert_eq!(main[0].long_prompt[2], big);
        assert_eq!(
            main[0].long_prompt.iter().filter(|t| !t.is_zero()).count(),
            1
        );
        assert_eq!(main[0].native_cost_usd, Some(0.5));
        // A 300k session total of unknown requests: counted, in no band.
        add_total(
            &mut main,
            "n",
            &Tokens {
                input: 300_000,
                ..Default::default()
            },
            None,
        );
        assert_eq!(main[1].tokens.input, 300_000);
        assert!(main[1].long_prompt.iter().all(Tokens::is_zero));
    }
}

/// Beyond the spec: what a tool call did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileAction {
    Edit,
    Write,
    Read,
    Delete,
    /// A shell command run in this directory, or naming this file.
    Command,
}

impl FileAction {
    pub const ALL: [FileAction; 5] = [
        FileAction::Edit,
        FileAction::Write,
        FileAction::Read,
        FileAction::Delete,
        FileAction::Command,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FileAction::Edit => "edit",
            FileAction::Write => "write",
            FileAction::Read => "read",
            FileAction::Delete => "delete",
            FileAction::Command => "command",
        }
    }

    pub fn parse(s: &str) -> Option<FileAction> {
        FileAction::ALL.into_iter().find(|a| a.as_str() == s)
    }

    /// The number the index stores.
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(c: i64) -> Option<FileAction> {
        FileAction::ALL.get(usize::try_from(c).ok()?).copied()
    }
}

/// Beyond the spec: one file a session's tool call touched. `path` is absolute (against the
/// session's cwd) and normalised; `added`/`removed`: the lines an edit changed, where the agent
/// records what it changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Touch {
    pub path: String,
    pub action: FileAction,
    #[serde(default, with = "iso_opt")]
    pub at: Option<Timestamp>,
    pub message_index: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<u64>,
    /// The index of the user's message that led to the call (the last one before it), if any.
    #[serde(skip)]
    pub request_index: Option<u64>,
}
