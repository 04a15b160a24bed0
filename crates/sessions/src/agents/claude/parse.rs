//! One pass over a Claude transcript (and its subagent files), in summary or full mode.
//!
//! Rules (native-formats.md §1 and the 2.1.197 addendum):
//! - One API response is written as one `assistant` line per content block, all sharing
//!   `message.id` and each repeating `usage`: the lines merge into one message and the usage is
//!   counted once, keeping the largest (streamed partials carry `output_tokens: 1`). Usage is
//!   deduplicated across the parent and its subagent files too (a side question replays the
//!   parent's responses): the main chain's copy wins over a sidechain's.
//! - `<synthetic>` assistant lines are locally made error notices: skipped.
//! - User lines that are not prompts (`isMeta`, `isCompactSummary`, slash-command envelopes,
//!   system reminders, task notifications) become `system` messages; `tool_result` blocks become
//!   `tool` messages paired with the call by `tool_use_id`.
//! - `input_tokens` excludes cache reads and writes; thinking tokens are inside `output_tokens`
//!   and are split out when the line reports them.
//! - Unknown line types and blocks are ignored, not errors.
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use crate::agents::adapter::Mode;
use crate::agents::transcript::Transcript;
use crate::error::{Error, Result};
use crate::model::{
    add_usage_at, parse_time_str, truncate_title, Message, Raw, Request, Role, Session,
    SessionSummary, Timestamp, Tokens, ToolCall, ToolResult,
};
use crate::read::jsonl::{for_each_line, parse_borrowed};
use crate::read::lenient::{LBool, LNum, LObj, LStr};

const TITLE_CHARS: usize = 100;

// ---------------------------------------------------------------------------------------------
// Line shapes: only the fields we use; everything else is skipped by the deserializer.

#[derive(Deserialize, Default)]
#[serde(default)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    timestamp: LStr<'a>,
    #[serde(borrow)]
    cwd: LStr<'a>,
    #[serde(rename = "gitBranch", borrow)]
    git_branch: LStr<'a>,
    #[serde(rename = "sessionId", borrow)]
    session_id: LStr<'a>,
    #[serde(rename = "agentId", borrow)]
    agent_id: LStr<'a>,
    #[serde(rename = "isMeta")]
    is_meta: LBool,
    #[serde(rename = "isCompactSummary")]
    is_compact_summary: LBool,
    #[serde(rename = "isApiErrorMessage")]
    is_api_error: LBool,
    #[serde(rename = "sourceToolUseID", borrow)]
    source_tool_use_id: LStr<'a>,
    #[serde(rename = "costUSD")]
    cost_usd: LNum,
    #[serde(rename = "customTitle", borrow)]
    custom_title: LStr<'a>,
    #[serde(rename = "aiTitle", borrow)]
    ai_title: LStr<'a>,
    #[serde(borrow)]
    summary: LStr<'a>,
    #[serde(rename = "forkedFrom")]
    forked_from: Option<Value>,
    #[serde(borrow)]
    origin: LObj<Origin<'a>>,
    #[serde(borrow)]
    message: LObj<ApiMessage<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Origin<'a> {
    #[serde(borrow)]
    kind: LStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiMessage<'a> {
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    model: LStr<'a>,
    usage: LObj<Usage>,
    #[serde(borrow)]
    content: Content<'a>,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Usage {
    input_tokens: LNum,
    output_tokens: LNum,
    cache_creation_input_tokens: LNum,
    cache_read_input_tokens: LNum,
    cache_creation: LObj<CacheCreation>,
    output_tokens_details: LObj<OutputDetails>,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct CacheCreation {
    ephemeral_5m_input_tokens: LNum,
    ephemeral_1h_input_tokens: LNum,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct OutputDetails {
    thinking_tokens: LNum,
}

impl Usage {
    /// Our buckets: cache writes from the total (or, when only the split is given, its sum — never
    /// both); thinking moved out of output.
    fn tokens(&self) -> Tokens {
        let cc = self.cache_creation.0.unwrap_or_default();
        let cache_write = match self.cache_creation_input_tokens.0 {
            Some(_) => self.cache_creation_input_tokens.count(),
            None => cc.ephemeral_5m_input_tokens.count() + cc.ephemeral_1h_input_tokens.count(),
        };
        let output = self.output_tokens.count();
        let thinking = self
            .output_tokens_details
            .0
            .map(|d| d.thinking_tokens.count())
            .unwrap_or(0)
            .min(output);
        Tokens {
            input: self.input_tokens.count(),
            output: output - thinking,
            cache_read: self.cache_read_input_tokens.count(),
            cache_write,
            reasoning: thinking,
            // The one-hour part of the writes (billed at 2x input rather than 1.25x).
            cache_write_1h: cc.ephemeral_1h_input_tokens.count().min(cache_write),
        }
    }
}

/// `message.content`: a string or an array of blocks.
#[derive(Default)]
enum Content<'a> {
    #[default]
    Absent,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: LStr<'a>,
    #[serde(borrow)]
    text: LStr<'a>,
    #[serde(borrow)]
    thinking: LStr<'a>,
    #[serde(borrow)]
    id: LStr<'a>,
    #[serde(borrow)]
    name: LStr<'a>,
    #[serde(borrow)]
    tool_use_id: LStr<'a>,
    /// A tool call's arguments and a tool result's content, kept as their JSON text: only
    /// full reads turn them into values.
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

/// A raw JSON fragment as a value (`None` when absent).
fn native(raw: Option<&RawValue>) -> Option<Value> {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of blocks")
            }
            fn visit_borrowed_str<E: de::Error>(
                self,
                v: &'de str,
            ) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                // Non-object elements keep their slot so indices match the native array.
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<LObj<Block<'de>>>()? {
                    blocks.push(b.0.unwrap_or_default());
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Content::Absent)
            }
            fn visit_unit<E: de::Error>(self) -> std::result::Result<Self::Value, E> {
                Ok(Content::Absent)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> std::result::Result<Self::Value, E> {
                Ok(Content::Absent)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> std::result::Result<Self::Value, E> {
                Ok(Content::Absent)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> std::result::Result<Self::Value, E> {
                Ok(Content::Absent)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> std::result::Result<Self::Value, E> {
                Ok(Content::Absent)
            }
        }
        d.deserialize_any(V)
    }
}

// ---------------------------------------------------------------------------------------------
// Session state across the parent file and its subagent files.

/// One API response: its usage counted once, on the first message that showed it.
struct Response {
    model: String,
    /// The time of the response's first line (ccusage counts a response once, at that line).
    at: Option<Timestamp>,
    tokens: Tokens,
    cost: Option<f64>,
    owner: (usize, usize), // (file number, message index)
    /// `message.id` hashed, for a replay of the response in another session (`Request::key`).
    key: u64,
    /// First seen in a subagent's lines.
    sidechain: bool,
    /// First seen in lines copied from another session.
    replayed: bool,
}

/// `Request::key` of a response id: never 0 (0 means "no id").
fn response_key(id: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(id.as_bytes()).max(1)
}

/// A usage line without a `message.id`: counted as it is, never merged.
struct LooseLine {
    model: String,
    at: Option<Timestamp>,
    tokens: Tokens,
    cost: Option<f64>,
    sidechain: bool,
    replayed: bool,
}

pub(super) struct Parsed {
    summary: SessionSummary,
    transcript: Transcript,
    raw: Option<Vec<Box<RawValue>>>,
}

#[derive(Default)]
struct State<'a> {
    mode: Mode,
    /// Search reads: tool outputs this says hold no needle are left out (`Message::elided`).
    needle_free: Option<&'a dyn Fn(&str) -> bool>,
    created: Option<Timestamp>,
    updated: Option<Timestamp>,
    cwd: Option<String>,
    /// The last branch a line recorded: a session that made or switched to a branch is found by it.
    git_branch: Option<String>,
    /// A sidechain listed on its own (an older layout's `agent-<id>.jsonl`): the session that
    /// started it, named by its lines' `sessionId`.
    parent: Option<String>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    summary_title: Option<String>,
    first_prompt: Option<String>,
    forked_from: Option<String>,
    responses: Vec<Response>,
    response_index: HashMap<String, usize>,
    /// Usage lines without a `message.id` (nothing to deduplicate on).
    loose: Vec<LooseLine>,
    raw: Vec<Box<RawValue>>,
}

/// Per-file state: the file's messages and the responses and tool calls still open in it.
struct FileState {
    number: usize,
    subagent: Option<String>,
    stem: String,
    transcript: Transcript,
    /// Assistant messages of the current turn by `message.id`, for merging split lines.
    open: HashMap<String, usize>,
    /// Tool calls by id: (message index, call index, call time).
    tools: HashMap<String, (usize, usize, Option<Timestamp>)>,
    seen_conversation: bool,
}

/// Read the session at `path` with its subagent files, as deep as `mode` asks.
pub(super) fn read(path: &Path, subagents: &[std::path::PathBuf], mode: Mode) -> Result<Parsed> {
    read_with(
        path,
        subagents,
        State {
            mode,
            ..Default::default()
        },
    )
}

/// `Mode::Messages`, leaving out tool outputs for which `needle_free` holds.
pub(super) fn read_for_search(
    path: &Path,
    subagents: &[std::path::PathBuf],
    needle_free: &dyn Fn(&str) -> bool,
) -> Result<Parsed> {
    let st = State {
        mode: Mode::Messages,
        needle_free: Some(needle_free),
        ..Default::default()
    };
    read_with(path, subagents, st)
}

fn read_with(path: &Path, subagents: &[std::path::PathBuf], mut st: State) -> Result<Parsed> {
    let full = st.mode.messages();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let main =
        read_file(&mut st, path, 0, None, &stem).map_err(|e| Error::parse(path.display(), e))?;
    if main.1 == 0 {
        return Err(crate::error::Error::not_a_session(
            path.display(),
            super::NAME,
        ));
    }
    let mut main = main.0;
    let mut subs = Vec::new();
    for (i, sub) in subagents.iter().enumerate() {
        let agent = sub
            .file_stem()
            .map(|s| s.to_string_lossy())
            .map(|s| s.strip_prefix("agent-").unwrap_or(&s).to_string());
        // A subagent file that cannot be read leaves the parent readable.
        if let Ok((f, _)) = read_file(&mut st, sub, i + 1, agent, &stem) {
            subs.push(f);
        }
    }
    // Usage goes on the first message of each response.
    if full {
        for r in &st.responses {
            let file = if r.owner.0 == 0 {
                Some(&mut main)
            } else {
                subs.iter_mut().find(|f| f.number == r.owner.0)
            };
            if let Some(m) = file.and_then(|f| f.transcript.get_mut(r.owner.1)) {
                m.tokens.get_or_insert_with(Tokens::default).add(&r.tokens);
                if let Some(c) = r.cost {
                    *m.native_cost_usd.get_or_insert(0.0) += c;
                }
            }
        }
    }
    let mut transcript = main.transcript;
    let subs_read = subs.len();
    for sub in subs {
        let at = insertion_point(&transcript, &sub.transcript);
        transcript.splice(at, sub.transcript);
    }
    let mut summary = st.summary(path, &stem, &transcript);
    // Its subagents' transcripts are read into it: they are its children.
    summary.children = (subs_read > 0).then_some(subs_read as u64);
    Ok(Parsed {
        summary,
        transcript,
        raw: st.mode.raw().then(|| std::mem::take(&mut st.raw)),
    })
}

/// Where a subagent's messages go: after the last parent message not later than its first one.
fn insertion_point(parent: &Transcript, sub: &Transcript) -> usize {
    let first = sub.messages.iter().find_map(|m| m.timestamp);
    match first {
        Some(t) => parent
            .messages
            .iter()
            .rposition(|m| m.timestamp.is_some_and(|pt| pt <= t))
            .map(|i| i + 1)
            .unwrap_or(0),
        None => parent.len(),
    }
}

/// Read one file; returns its state and how many of its lines are Claude Code records (JSON
/// with a `type`).
fn read_file(
    st: &mut State,
    path: &Path,
    number: usize,
    subagent: Option<String>,
    stem: &str,
) -> std::io::Result<(FileState, usize)> {
    let mut f = FileState {
        number,
        subagent,
        stem: stem.to_string(),
        transcript: Transcript::new(st.mode.messages()),
        open: HashMap::new(),
        tools: HashMap::new(),
        seen_conversation: false,
    };
    let mut parsed = 0usize;
    let mut scratch = String::new();
    for_each_line(path, |bytes| {
        // Both modes read the line into borrowed fields; a full read also keeps the line's text
        // (a fraction of the memory of a parsed tree) for `raw`.
        let Some(line) = parse_borrowed::<Line>(bytes, &mut scratch) else {
            return true;
        };
        parsed += line.kind.as_str().is_some() as usize;
        st.line(&mut f, &line);
        if st.mode.raw() {
            st.raw.push(Raw::line(bytes));
        }
        true
    })?;
    Ok((f, parsed))
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// Text a user typed, as opposed to text the CLI injected on the user's behalf.
fn is_injected(text: &str) -> bool {
    let t = text.trim_start();
    [
        "<command-",
        "<local-command-",
        "<system-reminder>",
        "<task-notification>",
        "[Request interrupted by user",
        "Caveat: The messages below were generated",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// Text of a tool result's `content` (a string or blocks) and the value to report as its output.
fn tool_output(content: Option<Value>) -> (String, Value) {
    match content {
        Some(Value::String(s)) => (s.clone(), Value::String(s)),
        Some(Value::Array(blocks)) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            let text = texts.join("\n");
            let all_text = texts.len() == blocks.len();
            let out = if all_text {
                Value::String(text.clone())
            } else {
                Value::Array(blocks)
            };
            (text, out)
        }
        Some(other) if !other.is_null() => (other.to_string(), other),
        _ => (String::new(), Value::String(String::new())),
    }
}

fn append(target: &mut String, text: &str, sep: &str) {
    if text.is_empty() {
        return;
    }
    if !target.is_empty() {
        target.push_str(sep);
    }
    target.push_str(text);
}

impl State<'_> {
    fn line(&mut self, f: &mut FileState, line: &Line) {
        let ts = line.timestamp.as_str().and_then(parse_time_str);
        if let Some(t) = ts {
            self.created = Some(self.created.map_or(t, |c| c.min(t)));
            self.updated = Some(self.updated.map_or(t, |u| u.max(t)));
        }
        if self.cwd.is_none() {
            self.cwd = line.cwd.non_empty().map(str::to_string);
        }
        if let Some(b) = line.git_branch.non_empty() {
            if self.git_branch.as_deref() != Some(b) {
                self.git_branch = Some(b.to_string());
            }
        }
        if f.number == 0 {
            self.metadata(f, line);
            if self.parent.is_none() && f.stem.starts_with("agent-") {
                let sid = line.session_id.as_str().filter(|sid| is_uuid(sid));
                self.parent = sid.map(str::to_string);
            }
        }
        match line.kind.as_str() {
            Some("assistant") => self.assistant(f, line, ts),
            Some("user") => self.user(f, line, ts),
            _ => {}
        }
    }

    /// Titles and fork links (parent file only).
    fn metadata(&mut self, f: &mut FileState, line: &Line) {
        match line.kind.as_str() {
            Some("custom-title") => {
                if let Some(t) = line.custom_title.non_empty() {
                    self.custom_title = Some(t.to_string());
                }
            }
            Some("ai-title") => {
                if let Some(t) = line.ai_title.non_empty() {
                    self.ai_title = Some(t.to_string());
                }
            }
            Some("summary") => {
                if let Some(t) = line.summary.non_empty() {
                    self.summary_title = Some(t.to_string());
                }
            }
            _ => {}
        }
        if self.forked_from.is_none() {
            let named = match &line.forked_from {
                Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                Some(Value::Object(o)) => o
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                _ => None,
            };
            if named.is_some() {
                self.forked_from = named;
            }
        }
        // Older `--resume`/`--fork-session` files start by replaying the parent with the parent's
        // `sessionId`: the first conversation line then names where this session came from.
        if matches!(line.kind.as_str(), Some("user" | "assistant")) && !f.seen_conversation {
            f.seen_conversation = true;
            if let Some(sid) = line.session_id.as_str() {
                if self.forked_from.is_none() && is_uuid(&f.stem) && is_uuid(sid) && sid != f.stem {
                    self.forked_from = Some(sid.to_string());
                }
            }
        }
    }

    fn new_message(
        &self,
        f: &FileState,
        line: &Line,
        role: Role,
        ts: Option<Timestamp>,
    ) -> Message {
        let mut m = Message::new(role, String::new());
        m.timestamp = ts;
        m.subagent = f
            .subagent
            .clone()
            .or_else(|| line.agent_id.non_empty().map(str::to_string));
        m
    }

    fn assistant(&mut self, f: &mut FileState, line: &Line, ts: Option<Timestamp>) {
        let Some(msg) = &line.message.0 else { return };
        let model = msg.model.non_empty();
        if model == Some("<synthetic>") {
            return;
        }
        let id = msg.id.non_empty();
        // Inline sidechain lines of another agent never merge into the main agent's response.
        let open_key = id.map(|id| format!("{}\u{0}{id}", line.agent_id.as_str().unwrap_or("")));
        let idx = match open_key.as_ref().and_then(|k| f.open.get(k)) {
            Some(&i) => i,
            None => {
                let mut m = self.new_message(f, line, Role::Assistant, ts);
                m.model = model.map(str::to_string);
                let i = f.transcript.push(m);
                if let Some(k) = open_key {
                    f.open.insert(k, i);
                }
                i
            }
        };
        if self.mode.messages() {
            self.assistant_blocks(f, idx, msg, ts);
        }
        if line.is_api_error.0 {
            return; // error notices carry zero or fake usage
        }
        let tokens = msg.usage.0.map(|u| u.tokens());
        let cost = line.cost_usd.0.filter(|c| c.is_finite() && *c >= 0.0);
        if tokens.is_none() && cost.is_none() {
            return;
        }
        let tokens = tokens.unwrap_or_default();
        let sidechain = f.number > 0 || line.agent_id.non_empty().is_some();
        // A line copied from the parent session: it names the parent, or says it was forked.
        let replayed = f.number == 0
            && (line.forked_from.is_some()
                || line
                    .session_id
                    .as_str()
                    .is_some_and(|sid| is_uuid(sid) && is_uuid(&f.stem) && sid != f.stem));
        match id {
            Some(id) => {
                let r = match self.response_index.get(id) {
                    Some(&r) => &mut self.responses[r],
                    None => {
                        self.response_index
                            .insert(id.to_string(), self.responses.len());
                        self.responses.push(Response {
                            model: model.unwrap_or_default().to_string(),
                            at: ts,
                            tokens: Tokens::default(),
                            cost: None,
                            owner: (f.number, idx),
                            key: response_key(id),
                            sidechain,
                            replayed,
                        });
                        self.responses.last_mut().expect("just pushed")
                    }
                };
                // The main chain's copy over a sidechain's (a side question replays the main
                // conversation with more cache reads), else the most complete (streamed
                // partials carry fewer tokens), as ccusage keeps them.
                let better = match (r.sidechain, sidechain) {
                    (true, false) => true,
                    (false, true) => false,
                    _ => tokens.total() > r.tokens.total(),
                };
                if better {
                    r.tokens = tokens;
                    r.sidechain = sidechain;
                }
                if let Some(c) = cost {
                    r.cost = Some(r.cost.map_or(c, |old| old.max(c)));
                }
                if r.model.is_empty() {
                    r.model = model.unwrap_or_default().to_string();
                }
            }
            None => {
                self.loose.push(LooseLine {
                    model: model.unwrap_or_default().to_string(),
                    at: ts,
                    tokens,
                    cost,
                    sidechain,
                    replayed,
                });
                if let Some(m) = f.transcript.get_mut(idx) {
                    m.tokens.get_or_insert_with(Tokens::default).add(&tokens);
                    if let Some(c) = cost {
                        *m.native_cost_usd.get_or_insert(0.0) += c;
                    }
                }
            }
        }
    }

    fn assistant_blocks(
        &mut self,
        f: &mut FileState,
        idx: usize,
        msg: &ApiMessage,
        ts: Option<Timestamp>,
    ) {
        let mut results = Vec::new();
        let Some(m) = f.transcript.get_mut(idx) else {
            return;
        };
        match &msg.content {
            Content::Text(t) => append(&mut m.content, t, "\n\n"),
            Content::Blocks(blocks) => {
                for b in blocks {
                    match b.kind.as_str() {
                        Some("text") => {
                            append(&mut m.content, b.text.as_str().unwrap_or(""), "\n\n")
                        }
                        Some("thinking") => {
                            let t = b.thinking.as_str().unwrap_or("");
                            if !t.is_empty() {
                                append(m.thinking.get_or_insert_with(String::new), t, "\n\n");
                            }
                        }
                        Some("tool_use" | "server_tool_use" | "mcp_tool_use") => {
                            let id = b.id.as_str().unwrap_or("").to_string();
                            m.tool_calls.push(ToolCall {
                                tool_call_id: id.clone(),
                                tool_name: b.name.as_str().unwrap_or("").to_string(),
                                input: native(b.input).unwrap_or(Value::Null),
                                output: None,
                                duration_ms: None,
                                output_at_result: false,
                            });
                            if !id.is_empty() {
                                f.tools.insert(id, (idx, m.tool_calls.len() - 1, ts));
                            }
                        }
                        Some(k) if k.ends_with("_tool_result") => {
                            // Server tools (web search/fetch) answer inside the assistant message.
                            if let Some(id) = b.tool_use_id.non_empty() {
                                let out = native(b.content);
                                results.push((id.to_string(), out.unwrap_or(Value::Null)));
                            }
                        }
                        _ => {}
                    }
                }
            }
            Content::Absent => {}
        }
        for (id, out) in results {
            if let Some(&(mi, ci, _)) = f.tools.get(&id) {
                if let Some(call) = f
                    .transcript
                    .get_mut(mi)
                    .and_then(|m| m.tool_calls.get_mut(ci))
                {
                    call.output = Some(out);
                }
            }
        }
    }

    fn user(&mut self, f: &mut FileState, line: &Line, ts: Option<Timestamp>) {
        let Some(msg) = &line.message.0 else { return };
        match &msg.content {
            Content::Text(t) => self.user_text(f, line, t, ts),
            Content::Blocks(blocks) => {
                let mut texts: Vec<&str> = Vec::new();
                let mut has_input = false;
                for b in blocks {
                    match b.kind.as_str() {
                        Some("tool_result") => {
                            self.tool_result(f, line, b, ts);
                        }
                        Some("text") => {
                            has_input = true;
                            texts.push(b.text.as_str().unwrap_or(""));
                        }
                        Some("image" | "document") => has_input = true,
                        _ => {}
                    }
                }
                if has_input {
                    let text = texts.join("\n");
                    self.user_text(f, line, &text, ts);
                }
            }
            Content::Absent => {}
        }
    }

    fn user_text(&mut self, f: &mut FileState, line: &Line, text: &str, ts: Option<Timestamp>) {
        let injected = line.is_meta.0
            || line.is_compact_summary.0
            || is_injected(text)
            || line
                .origin
                .0
                .as_ref()
                .and_then(|o| o.kind.as_str())
                .is_some_and(|k| k == "task-notification");
        let role = if injected { Role::System } else { Role::User };
        if role == Role::User {
            f.open.clear(); // a new prompt closes the previous turn's responses
            if f.number == 0 && self.first_prompt.is_none() && !text.trim().is_empty() {
                self.first_prompt = Some(truncate_title(text, TITLE_CHARS));
            }
        }
        let mut m = self.new_message(f, line, role, ts);
        if self.mode.messages() {
            m.content = text.to_string();
        }
        f.transcript.push(m);
    }

    fn tool_result(
        &mut self,
        f: &mut FileState,
        line: &Line,
        block: &Block,
        ts: Option<Timestamp>,
    ) {
        let mut m = self.new_message(f, line, Role::Tool, ts);
        if self.mode.messages() {
            let id = block
                .tool_use_id
                .non_empty()
                .or(line.source_tool_use_id.non_empty())
                .unwrap_or("")
                .to_string();
            // Content and output are the same text, which search reads once (score.rs).
            let (text, output) = match self.left_out(block.content) {
                Some(len) => {
                    m.elided = len;
                    (String::new(), Value::String(String::new()))
                }
                None => tool_output(native(block.content)),
            };
            let call = f.tools.get(&id).copied();
            let mut name = String::new();
            if let Some((mi, ci, call_ts)) = call {
                if let Some(c) = f
                    .transcript
                    .get_mut(mi)
                    .and_then(|m| m.tool_calls.get_mut(ci))
                {
                    name = c.tool_name.clone();
                    if self.mode.call_outputs() {
                        // A copy for get; search reads the output once, on this tool message.
                        c.output = Some(output.clone());
                    } else {
                        c.output_at_result = true;
                    }
                    if let (Some(a), Some(b)) = (call_ts, ts) {
                        let ms = (b - a).num_milliseconds();
                        if ms >= 0 {
                            c.duration_ms = Some(ms as f64);
                        }
                    }
                }
            }
            m.content = text;
            m.tool_result = Some(ToolResult {
                tool_call_id: id,
                tool_name: name,
                output,
            });
        }
        f.transcript.push(m);
    }

    /// Search reads: the decoded length of a tool output that is a string with no needle in
    /// it, judged on its raw JSON (the prefilter reads escapes as well as text), so it is
    /// neither decoded nor kept. `None`: keep it (a needle may be in it, it is not a string, or
    /// its escapes are not counted exactly).
    fn left_out(&self, content: Option<&RawValue>) -> Option<u64> {
        let needle_free = self.needle_free?;
        let raw = content?.get();
        let len = crate::read::json_str::decoded_len(raw)?;
        needle_free(raw).then_some(len as u64)
    }

    fn summary(&self, path: &Path, stem: &str, transcript: &Transcript) -> SessionSummary {
        let fallback = crate::read::fs::mtime(path);
        let created = self.created.or(fallback).unwrap_or_default();
        let updated = self.updated.or(fallback).unwrap_or(created);
        let mut s = SessionSummary::new(super::NAME, stem, created, updated);
        s.title = self
            .custom_title
            .as_deref()
            .or(self.ai_title.as_deref())
            .or(self.summary_title.as_deref())
            .map(|t| truncate_title(t, TITLE_CHARS))
            .or_else(|| self.first_prompt.clone())
            .unwrap_or_default();
        s.message_count = transcript.len() as u64;
        s.turn_count = transcript.turn_count();
        s.model = transcript.most_used_model();
        s.cwd = self.cwd.clone();
        s.git_branch = self.git_branch.clone();
        s.forked_from = self.forked_from.clone();
        s.parent_id = (self.parent.as_deref()).map(|p| crate::ids::unified_id(super::NAME, p));
        let responses = self.responses.iter().map(|r| {
            let flags = (r.sidechain, r.replayed);
            (&r.model, r.at, &r.tokens, r.cost, r.key, flags)
        });
        let loose = (self.loose.iter()).map(|l| {
            (
                &l.model,
                l.at,
                &l.tokens,
                l.cost,
                0,
                (l.sidechain, l.replayed),
            )
        });
        for (model, at, tokens, cost, key, (sidechain, replayed)) in responses.chain(loose) {
            add_usage_at(&mut s.usage, model, tokens, cost, at);
            // A request without a time has no place in time-based reports beyond its session's
            // usage (which puts it on the session's first day).
            if let Some(at) = at {
                s.requests.push(Request {
                    at,
                    model: s.usage.iter().position(|u| &u.model == model).unwrap_or(0),
                    key,
                    tokens: *tokens,
                    native_cost_usd: cost,
                    sidechain,
                    replayed,
                });
            }
        }
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
