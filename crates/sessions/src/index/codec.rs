//! The index's own compact encoding of what it stores: summaries (with the per-model usage that
//! pricing needs and JSON would drop) and the messages search reads. Exact round trips: dates to
//! the nanosecond, JSON values in their key order. A value that does not decode is an error, and
//! the caller treats the index as broken (it falls back to reading the store).
use chrono::DateTime;
use serde_json::Value;
use std::ops::Range;

use crate::agents::Fingerprint;
use crate::model::{
    CostRecord, Message, ModelUsage, Request, Role, SessionSummary, Timestamp, Tokens, ToolCall,
    ToolResult, UsageSlice,
};
use crate::query::fields::{searched_text, FIELDS};
use crate::query::terms::TermCount;

#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    /// Write with `f` over `out`, replacing what it held and keeping its allocation (for what is
    /// encoded millions of times, such as counts and stamps).
    pub fn over(out: &mut Vec<u8>, f: impl FnOnce(&mut Writer)) {
        let mut w = Writer(std::mem::take(out));
        w.0.clear();
        f(&mut w);
        *out = w.0;
    }

    pub fn put_u64(&mut self, v: u64) {
        self.u64(v)
    }
    pub fn put_i64(&mut self, v: i64) {
        self.i64(v)
    }
    fn u64(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }
    fn i64(&mut self, v: i64) {
        self.u64(((v << 1) ^ (v >> 63)) as u64);
    }
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt<T>(&mut self, v: Option<T>, put: impl FnOnce(&mut Self, T)) {
        match v {
            Some(v) => {
                self.0.push(1);
                put(self, v);
            }
            None => self.0.push(0),
        }
    }
    fn time(&mut self, t: &Timestamp) {
        self.i64(t.timestamp());
        self.u64(t.timestamp_subsec_nanos() as u64);
    }
    /// A tool's input or output, as its searched text (`fields::searched_text`).
    fn tool_value(&mut self, v: &Value) {
        match searched_text(v) {
            Value::String(s) => self.opt(Some(s.as_str()), Writer::str),
            _ => self.opt(None::<&str>, Writer::str),
        }
    }
    fn tokens(&mut self, t: &Tokens) {
        // Destructured so a field added to `Tokens` fails to compile here, not to round-trip.
        let Tokens {
            input,
            output,
            cache_read,
            cache_write,
            reasoning,
            cache_write_1h,
        } = *t;
        for v in [
            input,
            output,
            cache_read,
            cache_write,
            reasoning,
            cache_write_1h,
        ] {
            self.u64(v);
        }
    }
}

pub struct Reader<'a> {
    b: &'a [u8],
}

/// A truncated or foreign value.
#[derive(Debug)]
pub struct Corrupt;

type R<T> = std::result::Result<T, Corrupt>;

impl<'a> Reader<'a> {
    pub fn new(b: &'a [u8]) -> Reader<'a> {
        Reader { b }
    }
    fn byte(&mut self) -> R<u8> {
        let (&first, rest) = self.b.split_first().ok_or(Corrupt)?;
        self.b = rest;
        Ok(first)
    }
    fn u64(&mut self) -> R<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(Corrupt)
    }
    fn i64(&mut self) -> R<i64> {
        let u = self.u64()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }
    fn f64(&mut self) -> R<f64> {
        Ok(f64::from_le_bytes(self.fixed()?))
    }
    /// `N` bytes as they are (a number of fixed width).
    fn fixed<const N: usize>(&mut self) -> R<[u8; N]> {
        let (head, rest) = self.b.split_at_checked(N).ok_or(Corrupt)?;
        self.b = rest;
        head.try_into().map_err(|_| Corrupt)
    }
    fn str(&mut self) -> R<String> {
        Ok(self.str_ref()?.to_string())
    }
    /// A string, borrowed from the encoding.
    fn str_ref(&mut self) -> R<&'a str> {
        std::str::from_utf8(self.bytes()?).map_err(|_| Corrupt)
    }
    /// A string passed over (its bytes are not checked).
    fn skip_str(&mut self) -> R<()> {
        self.bytes().map(|_| ())
    }
    fn bytes(&mut self) -> R<&'a [u8]> {
        let n = self.u64()? as usize;
        let (head, rest) = self.b.split_at_checked(n).ok_or(Corrupt)?;
        self.b = rest;
        Ok(head)
    }
    /// A count, then that many values. Each value takes a byte at least, so a count past the
    /// bytes left is corrupt. Room is made for the count up front, up to a bound: a value can
    /// be much larger in memory than in bytes.
    fn many<T>(&mut self, mut get: impl FnMut(&mut Self) -> R<T>) -> R<Vec<T>> {
        let n = self.u64()?;
        if n > self.b.len() as u64 {
            return Err(Corrupt);
        }
        let mut v = Vec::with_capacity(n.min(1 << 12) as usize);
        for _ in 0..n {
            v.push(get(self)?);
        }
        Ok(v)
    }
    fn opt<T>(&mut self, get: impl FnOnce(&mut Self) -> R<T>) -> R<Option<T>> {
        match self.byte()? {
            0 => Ok(None),
            1 => get(self).map(Some),
            _ => Err(Corrupt),
        }
    }
    fn time(&mut self) -> R<Timestamp> {
        let secs = self.i64()?;
        let nanos = self.u64()? as u32;
        DateTime::from_timestamp(secs, nanos).ok_or(Corrupt)
    }
    fn tool_value(&mut self) -> R<Value> {
        Ok(self.opt(Reader::str)?.map_or(Value::Null, Value::String))
    }
    fn tokens(&mut self) -> R<Tokens> {
        Ok(Tokens {
            input: self.u64()?,
            output: self.u64()?,
            cache_read: self.u64()?,
            cache_write: self.u64()?,
            reasoning: self.u64()?,
            cache_write_1h: self.u64()?,
        })
    }
    fn done(&self) -> R<()> {
        if self.b.is_empty() {
            Ok(())
        } else {
            Err(Corrupt)
        }
    }
}

/// `requests`: whether to keep the summary's `requests` (a source's summaries do; a searchable
/// doc's copy does not need them).
fn put_summary(w: &mut Writer, s: &SessionSummary, requests: bool) {
    for t in [&s.agent, &s.session_id, &s.unified_id, &s.title] {
        w.str(t);
    }
    w.time(&s.created_at);
    w.time(&s.updated_at);
    w.u64(s.turn_count);
    w.u64(s.message_count);
    w.opt(s.model.as_deref(), Writer::str);
    w.opt(s.cost.as_ref(), |w, c| {
        w.str(&serde_json::to_string(c).unwrap_or_default())
    });
    w.u64(s.tags.len() as u64);
    s.tags.iter().for_each(|t| w.str(t));
    w.opt(s.cwd.as_deref(), Writer::str);
    w.opt(s.forked_from.as_deref(), Writer::str);
    w.opt(s.relevance_score, Writer::f64);
    w.opt(s.snippet.as_deref(), Writer::str);
    w.opt(s.match_count, Writer::u64);
    w.u64(s.usage.len() as u64);
    for u in &s.usage {
        w.str(&u.model);
        w.tokens(&u.tokens);
        w.opt(u.native_cost_usd, Writer::f64);
        u.long_prompt.iter().for_each(|t| w.tokens(t));
        w.u64(u.slices.len() as u64);
        for sl in &u.slices {
            w.opt(sl.quarter, Writer::i64);
            w.opt(sl.band, |w, b| w.u64(b as u64));
            w.tokens(&sl.tokens);
            w.opt(sl.native_cost_usd, Writer::f64);
        }
    }
    w.u64(s.run_count);
    // Behind their length, so that a listing passes over them without decoding them.
    let mut section = Writer::default();
    if requests {
        put_requests(&mut section, &s.requests);
    }
    w.u64(section.0.len() as u64);
    w.0.extend_from_slice(&section.0);
}

fn put_requests(w: &mut Writer, requests: &[Request]) {
    w.u64(requests.len() as u64);
    let mut last_ms = 0i64;
    for q in requests {
        // Times as milliseconds from the previous request (the precision agents write), then
        // what is left of the second below the millisecond, for an exact round trip.
        let ms = q.at.timestamp_millis();
        w.i64(ms - last_ms);
        w.u64((q.at.timestamp_subsec_nanos() % 1_000_000) as u64);
        last_ms = ms;
        w.u64(q.model as u64);
        w.0.extend_from_slice(&q.key.to_le_bytes());
        w.tokens(&q.tokens);
        w.opt(q.native_cost_usd, Writer::f64);
        w.0.push(q.sidechain as u8 | (q.replayed as u8) << 1);
    }
}

fn get_requests(r: &mut Reader) -> R<Vec<Request>> {
    let mut last_ms = 0i64;
    r.many(|r| {
        let ms = last_ms.checked_add(r.i64()?).ok_or(Corrupt)?;
        let sub_ms = r.u64()?;
        last_ms = ms;
        let at = DateTime::from_timestamp_millis(ms)
            .and_then(|t| t.checked_add_signed(chrono::Duration::nanoseconds(sub_ms as i64)))
            .ok_or(Corrupt)?;
        Ok(Request {
            at,
            model: r.u64()? as usize,
            key: u64::from_le_bytes(r.fixed()?),
            tokens: r.tokens()?,
            native_cost_usd: r.opt(Reader::f64)?,
            sidechain: false,
            replayed: false,
        })
        .and_then(|mut q| {
            let flags = r.byte()?;
            if flags > 3 {
                return Err(Corrupt);
            }
            (q.sidechain, q.replayed) = (flags & 1 != 0, flags & 2 != 0);
            Ok(q)
        })
    })
}

fn get_summary(r: &mut Reader, requests: bool) -> R<SessionSummary> {
    // Fields are read in the order they are written here (a struct literal evaluates in order);
    // the literal, unlike `SessionSummary::new`, does not make a unified id only to replace it.
    let mut s = SessionSummary {
        agent: r.str()?,
        session_id: r.str()?,
        unified_id: r.str()?,
        title: r.str()?,
        created_at: r.time()?,
        updated_at: r.time()?,
        turn_count: r.u64()?,
        message_count: r.u64()?,
        model: r.opt(Reader::str)?,
        cost: r.opt(|r| serde_json::from_str::<CostRecord>(r.str_ref()?).map_err(|_| Corrupt))?,
        tags: r.many(Reader::str)?,
        cwd: r.opt(Reader::str)?,
        forked_from: r.opt(Reader::str)?,
        relevance_score: r.opt(Reader::f64)?,
        snippet: r.opt(Reader::str)?,
        match_count: r.opt(Reader::u64)?,
        usage: Vec::new(),
        run_count: 0,
        requests: Vec::new(),
    };
    s.usage = r.many(|r| {
        let mut u = ModelUsage {
            model: r.str()?,
            tokens: r.tokens()?,
            native_cost_usd: r.opt(Reader::f64)?,
            ..Default::default()
        };
        for t in u.long_prompt.iter_mut() {
            *t = r.tokens()?;
        }
        u.slices = r.many(|r| {
            Ok(UsageSlice {
                quarter: r.opt(Reader::i64)?,
                band: r.opt(|r| r.u64().map(|b| b as usize))?,
                tokens: r.tokens()?,
                native_cost_usd: r.opt(Reader::f64)?,
            })
        })?;
        Ok(u)
    })?;
    s.run_count = r.u64()?;
    let section = r.bytes()?;
    if requests && !section.is_empty() {
        let mut q = Reader::new(section);
        s.requests = get_requests(&mut q)?;
        q.done()?;
    }
    Ok(s)
}

/// Summaries (a source's, as `list` reads them).
pub fn summaries(v: &[SessionSummary]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u64(v.len() as u64);
    v.iter().for_each(|s| put_summary(&mut w, s, true));
    w.0
}

/// A source's summaries; their `requests` only when `requests` is true.
pub fn decode_summaries(b: &[u8], requests: bool) -> R<Vec<SessionSummary>> {
    let mut r = Reader::new(b);
    let v = r.many(|r| get_summary(r, requests))?;
    r.done()?;
    Ok(v)
}

/// A summary without its `requests` (a searchable doc's).
pub fn summary(s: &SessionSummary) -> Vec<u8> {
    let mut w = Writer::default();
    put_summary(&mut w, s, false);
    w.0
}

pub fn decode_summary(b: &[u8]) -> R<SessionSummary> {
    let mut r = Reader::new(b);
    let s = get_summary(&mut r, false)?;
    r.done()?;
    Ok(s)
}

/// The head of a stored summary: its agent, session id (and so unified id) and dates, the rest
/// left at its defaults. What ranking a hit needs, at a fraction of the cost
/// of the whole: a broad search ranks thousands of hits to return a few.
pub fn decode_summary_head(b: &[u8]) -> R<SessionSummary> {
    let mut r = Reader::new(b);
    let (agent, session_id) = (r.str_ref()?, r.str_ref()?);
    r.skip_str()?; // unified id
    r.skip_str()?; // title
    let (created_at, updated_at) = (r.time()?, r.time()?);
    Ok(SessionSummary::new(
        agent, session_id, created_at, updated_at,
    ))
}

/// The fingerprints of a source's sessions (`agents::ManySessions`), in its order.
pub fn fingerprints(v: &[(String, Fingerprint)]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u64(v.len() as u64);
    for (id, f) in v {
        w.str(id);
        w.0.extend_from_slice(&f.to_le_bytes());
    }
    w.0
}

pub fn decode_fingerprints(b: &[u8]) -> R<Vec<(String, Fingerprint)>> {
    let mut r = Reader::new(b);
    let v = r.many(|r| Ok((r.str()?, Fingerprint::from_le_bytes(r.fixed()?))))?;
    r.done()?;
    Ok(v)
}

fn role_byte(r: Role) -> u8 {
    match r {
        Role::User => 0,
        Role::Assistant => 1,
        Role::System => 2,
        Role::Tool => 3,
    }
}

fn role_of(b: u8) -> R<Role> {
    Ok(match b {
        0 => Role::User,
        1 => Role::Assistant,
        2 => Role::System,
        3 => Role::Tool,
        _ => return Err(Corrupt),
    })
}

/// The messages as search reads them: what the scoring looks at (text, tools, roles, times,
/// models), not the usage the summary already holds. Tool inputs and outputs are kept as the
/// text search reads of them, not as JSON: decoded, they are that text, not what the tool got.
pub fn messages(v: &[Message]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u64(v.len() as u64);
    for m in v {
        put_message(&mut w, m);
    }
    w.0
}

fn put_message(w: &mut Writer, m: &Message) {
    w.0.push(role_byte(m.role));
    w.str(&m.content);
    w.opt(m.timestamp.as_ref(), Writer::time);
    w.opt(m.thinking.as_deref(), Writer::str);
    w.opt(m.model.as_deref(), Writer::str);
    w.opt(m.subagent.as_deref(), Writer::str);
    w.u64(m.elided);
    w.u64(m.tool_calls.len() as u64);
    for c in &m.tool_calls {
        w.str(&c.tool_call_id);
        w.str(&c.tool_name);
        w.tool_value(&c.input);
        w.opt(c.output.as_ref(), Writer::tool_value);
        w.opt(c.duration_ms, Writer::f64);
    }
    w.opt(m.tool_result.as_ref(), |w, r| {
        w.str(&r.tool_call_id);
        w.str(&r.tool_name);
        w.tool_value(&r.output);
    });
}

pub fn decode_messages(b: &[u8]) -> R<Vec<Message>> {
    let mut r = Reader::new(b);
    let out = r.many(get_message)?;
    r.done()?;
    Ok(out)
}

/// One message of `messages`' encoding, at `span` (from `outline_messages`).
pub fn decode_message(b: &[u8], span: Range<usize>) -> R<Message> {
    let mut r = Reader::new(b.get(span).ok_or(Corrupt)?);
    let m = get_message(&mut r)?;
    r.done()?;
    Ok(m)
}

/// Where a message is in `messages`' encoding, and the tool call ids it names: its calls', and
/// the one its tool result answers.
pub struct Outline<'a> {
    pub span: Range<usize>,
    pub calls: Vec<&'a str>,
    pub answers: Option<&'a str>,
}

/// Each message's outline, read without decoding the messages (a session read again is compared
/// with what is stored message by message, and only what changed is decoded). Walks the fields
/// `put_message` writes.
pub fn outline_messages(b: &[u8]) -> R<Vec<Outline<'_>>> {
    let mut r = Reader::new(b);
    let n = r.u64()?;
    let mut out = Vec::with_capacity(n.min(1 << 16) as usize);
    for _ in 0..n {
        let start = b.len() - r.b.len();
        role_of(r.byte()?)?;
        r.skip_str()?;
        r.opt(Reader::time)?;
        for _ in 0..3 {
            r.opt(Reader::skip_str)?; // thinking, model, subagent
        }
        r.u64()?; // elided
        let mut calls = Vec::new();
        for _ in 0..r.u64()? {
            calls.push(r.str_ref()?);
            r.skip_str()?; // name
            r.opt(Reader::skip_str)?; // input
            r.opt(|r| r.opt(Reader::skip_str))?; // output
            r.opt(Reader::f64)?; // duration
        }
        let answers = r.opt(|r| {
            let id = r.str_ref()?;
            r.skip_str()?; // name
            r.opt(Reader::skip_str)?; // output
            Ok(id)
        })?;
        out.push(Outline {
            span: start..b.len() - r.b.len(),
            calls,
            answers,
        });
    }
    r.done()?;
    Ok(out)
}

fn get_message(r: &mut Reader) -> R<Message> {
    let role = role_of(r.byte()?)?;
    let mut m = Message::new(role, r.str()?);
    m.timestamp = r.opt(Reader::time)?;
    m.thinking = r.opt(Reader::str)?;
    m.model = r.opt(Reader::str)?;
    m.subagent = r.opt(Reader::str)?;
    m.elided = r.u64()?;
    m.tool_calls = r.many(|r| {
        Ok(ToolCall {
            tool_call_id: r.str()?,
            tool_name: r.str()?,
            input: r.tool_value()?,
            output: r.opt(Reader::tool_value)?,
            duration_ms: r.opt(Reader::f64)?,
            output_at_result: false,
        })
    })?;
    m.tool_result = r.opt(|r| {
        Ok(ToolResult {
            tool_call_id: r.str()?,
            tool_name: r.str()?,
            output: r.tool_value()?,
        })
    })?;
    Ok(m)
}

/// A session's field lengths.
pub fn lengths(v: &[u64; FIELDS]) -> Vec<u8> {
    let mut w = Writer::default();
    v.iter().for_each(|&n| w.u64(n));
    w.0
}

pub fn decode_lengths(b: &[u8]) -> R<[u64; FIELDS]> {
    let mut r = Reader::new(b);
    let mut out = [0; FIELDS];
    for n in &mut out {
        *n = r.u64()?;
    }
    Ok(out)
}

/// One token's counts in one session.
pub fn term_count(c: &TermCount) -> Vec<u8> {
    let mut out = Vec::new();
    term_count_into(c, &mut out);
    out
}

/// `term_count` into a buffer of the caller's (a build encodes millions of them).
pub fn term_count_into(c: &TermCount, out: &mut Vec<u8>) {
    Writer::over(out, |w| {
        c.tf.iter().for_each(|&n| w.u64(n as u64));
        w.u64(c.body as u64);
    })
}

pub fn decode_term_count(b: &[u8]) -> R<TermCount> {
    let mut r = Reader::new(b);
    let mut c = TermCount::default();
    for n in &mut c.tf {
        *n = u32::try_from(r.u64()?).map_err(|_| Corrupt)?;
    }
    c.body = u32::try_from(r.u64()?).map_err(|_| Corrupt)?;
    Ok(c)
}

/// The tokens a session has term rows for (so that they can be deleted), compressed: tokens
/// and CJK characters never hold a newline.
pub fn vocabulary<'a>(tokens: impl Iterator<Item = &'a str>) -> Vec<u8> {
    let joined: Vec<&str> = tokens.collect();
    pack(joined.join("\n").as_bytes())
}

/// Compress what the index stores (messages, vocabularies). One-shot compression writes the
/// size into the frame, which `unpack` reads to allocate once.
pub fn pack(b: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(b, 1).unwrap_or_default()
}

/// Frames whose declared size is at most this are decompressed into one buffer of that size;
/// a larger claim (only a damaged index makes one) is decoded as a stream, growing as it goes.
const UNPACK_AT_ONCE: u64 = 256 << 20;

/// What `pack` packed. Its frames declare their size, so the common case is one allocation and
/// no stream machinery (a search unpacks every candidate session).
pub fn unpack(b: &[u8]) -> R<Vec<u8>> {
    match zstd::zstd_safe::get_frame_content_size(b) {
        Ok(Some(n)) if n <= UNPACK_AT_ONCE => zstd::bulk::decompress(b, n as usize),
        _ => zstd::stream::decode_all(b),
    }
    .map_err(|_| Corrupt)
}

pub fn decode_vocabulary(b: &[u8]) -> R<Vec<String>> {
    let text = unpack(b)?;
    let text = String::from_utf8(text).map_err(|_| Corrupt)?;
    Ok(text
        .split('\n')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_head_holds_the_ids_and_dates_of_the_whole() {
        let t = |s: i64| DateTime::from_timestamp(s, 5_000_000).unwrap();
        let mut s = SessionSummary::new("claude", "abc-1", t(1_700_000_000), t(1_700_000_900));
        s.title = "a title".into();
        s.cwd = Some("/w".into());
        s.tags = vec!["x".into()];
        s.turn_count = 3;
        let b = summary(&s);
        let head = decode_summary_head(&b).unwrap();
        let whole = decode_summary(&b).unwrap();
        assert_eq!(whole, s);
        assert_eq!(
            (&head.agent, &head.session_id, &head.unified_id),
            (&s.agent, &s.session_id, &s.unified_id)
        );
        assert_eq!(
            (head.created_at, head.updated_at),
            (s.created_at, s.updated_at)
        );
        assert_eq!(
            (head.title.as_str(), head.cwd, head.turn_count),
            ("", None, 0)
        );
        assert!(decode_summary_head(&b[..4]).is_err());
    }

    #[test]
    fn requests_round_trip_and_are_decoded_only_when_asked_for() {
        let t = |ms: i64, ns: i64| {
            DateTime::from_timestamp_millis(ms).unwrap() + chrono::Duration::nanoseconds(ns)
        };
        let mut s = SessionSummary::new("claude", "a", t(1_700_000_000_000, 0), t(0, 0));
        let tokens = Tokens {
            input: 3,
            output: 1 << 40,
            cache_write_1h: 9,
            ..Default::default()
        };
        for (at, key, cost, sidechain, replayed) in [
            (t(1_700_000_000_123, 456), 7, None, false, true),
            // Earlier than the one before it, with a full 64-bit key.
            (t(1_600_000_000_000, 0), u64::MAX, Some(0.25), true, false),
        ] {
            s.requests.push(Request {
                at,
                model: 1,
                key,
                tokens,
                native_cost_usd: cost,
                sidechain,
                replayed,
            });
        }
        let b = summaries(std::slice::from_ref(&s));
        assert_eq!(decode_summaries(&b, true).unwrap(), vec![s.clone()]);
        let listed = decode_summaries(&b, false).unwrap();
        assert!(listed[0].requests.is_empty());
        assert_eq!(listed[0].session_id, "a");
        // A doc's summary never carries them.
        assert!(decode_summary(&summary(&s)).unwrap().requests.is_empty());
        assert!(decode_summaries(&b[..b.len() - 1], true).is_err());
    }

    #[test]
    fn an_outline_finds_each_message_and_the_call_ids_it_names() {
        use crate::model::Role;
        use serde_json::json;
        let mut call = Message::new(Role::Assistant, "running");
        call.thinking = Some("why".into());
        call.model = Some("m".into());
        call.timestamp = DateTime::from_timestamp(1_700_000_000, 5);
        for (id, output) in [("c1", Some(json!("ok"))), ("c2", None)] {
            call.tool_calls.push(ToolCall {
                tool_call_id: id.into(),
                tool_name: "shell".into(),
                input: json!({"command": "ls", "n": 3}),
                output,
                duration_ms: Some(1.5),
                output_at_result: false,
            });
        }
        let mut answer = Message::new(Role::Tool, "ok");
        answer.subagent = Some("sub".into());
        answer.elided = 7;
        answer.tool_result = Some(ToolResult {
            tool_call_id: "c1".into(),
            tool_name: "shell".into(),
            output: json!(null),
        });
        let v = vec![Message::new(Role::User, "hi"), call, answer];
        let b = messages(&v);
        let outline = outline_messages(&b).unwrap();
        let whole = decode_messages(&b).unwrap();
        assert_eq!(outline.len(), 3);
        for (o, m) in outline.iter().zip(&whole) {
            assert_eq!(&decode_message(&b, o.span.clone()).unwrap(), m);
        }
        assert_eq!(outline[1].calls, ["c1", "c2"]);
        assert_eq!(
            outline.iter().map(|o| o.answers).collect::<Vec<_>>(),
            [None, None, Some("c1")]
        );
        assert_eq!(outline[2].span.end, b.len());
        assert!(
            outline_messages(&b[..b.len() - 1]).is_err(),
            "a cut encoding"
        );
    }

    #[test]
    fn unpack_reads_sized_frames_unsized_streams_and_refuses_garbage() {
        let text = "a message that repeats, a message that repeats. ".repeat(2000);
        let sized = pack(text.as_bytes());
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(&sized).unwrap(),
            Some(text.len() as u64),
            "the fast path needs the size in the frame"
        );
        assert_eq!(unpack(&sized).unwrap(), text.as_bytes());
        // A stream's frame does not declare its size: decoded as a stream.
        let unsized_ = zstd::stream::encode_all(text.as_bytes(), 1).unwrap();
        assert_eq!(
            zstd::zstd_safe::get_frame_content_size(&unsized_).unwrap(),
            None
        );
        assert_eq!(unpack(&unsized_).unwrap(), text.as_bytes());
        assert!(unpack(b"not a zstd frame").is_err());
        assert!(unpack(&sized[..sized.len() / 2]).is_err(), "a cut frame");
    }
}
