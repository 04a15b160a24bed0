//! The index's own compact encoding of what it stores: summaries (with the per-model usage that
//! pricing needs and JSON would drop), fingerprints and field lengths. Exact round trips: dates to
//! the nanosecond, JSON values in their key order. A value that does not decode is an error, and
//! the caller treats the index as broken (it falls back to reading the store).
use chrono::DateTime;

use crate::agents::Fingerprint;
use crate::model::{
    CostRecord, FileAction, ModelUsage, Request, SessionSummary, Timestamp, Tokens, Touch,
    UsageSlice,
};
use crate::query::fields::FIELDS;

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
    w.opt(s.git_branch.as_deref(), Writer::str);
    w.opt(s.project.as_deref(), Writer::str);
    w.opt(s.parent_id.as_deref(), Writer::str);
    w.opt(s.children, Writer::u64);
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
        git_branch: r.opt(Reader::str)?,
        project: r.opt(Reader::str)?,
        parent_id: r.opt(Reader::str)?,
        children: r.opt(Reader::u64)?,
        relevance_score: r.opt(Reader::f64)?,
        snippet: r.opt(Reader::str)?,
        match_count: r.opt(Reader::u64)?,
        archived: false,
        machine: None,
        user: None,
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

/// The head of a stored summary, read in place: which session it is and its dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeadRef<'a> {
    pub agent: &'a str,
    pub session_id: &'a str,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// The head of a stored summary without a copy of anything: what ranking a match needs before
/// it is known to be returned (a broad search ranks thousands of matches to return a few).
pub fn summary_head_ref(b: &[u8]) -> R<HeadRef<'_>> {
    let mut r = Reader::new(b);
    let (agent, session_id) = (r.str_ref()?, r.str_ref()?);
    r.skip_str()?; // unified id
    r.skip_str()?; // title
    let (created_at, updated_at) = (r.time()?, r.time()?);
    Ok(HeadRef {
        agent,
        session_id,
        created_at,
        updated_at,
    })
}

/// The head of a stored summary (`summary_head_ref`) as a summary: its agent, session id (and
/// so unified id) and dates, the rest left at its defaults.
pub fn decode_summary_head(b: &[u8]) -> R<SessionSummary> {
    let h = summary_head_ref(b)?;
    Ok(SessionSummary::new(
        h.agent,
        h.session_id,
        h.created_at,
        h.updated_at,
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

/// A session's touches (each path by its id in `touch_path`) and the lines of the requests
/// that led to them, packed: numbers as varints, times and message indexes as differences from
/// the touch before, times to the millisecond.
pub fn touches(v: &[(i64, &Touch)], requests: &[(u64, String)]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u64(v.len() as u64);
    let (mut last_ms, mut last_message) = (0i64, 0i64);
    for (path, t) in v {
        w.u64(*path as u64);
        w.0.push(t.action.code());
        let ms = t.at.map(|t| t.timestamp_millis());
        w.opt(ms, |w, ms| {
            w.i64(ms - last_ms);
            last_ms = ms;
        });
        w.i64(t.message_index as i64 - last_message);
        last_message = t.message_index as i64;
        // 0 for none, else the value plus one.
        for n in [t.added, t.removed] {
            w.u64(n.map_or(0, |n| n + 1));
        }
        // The request as how many messages before this one it is.
        w.u64(
            t.request_index
                .map_or(0, |r| t.message_index.wrapping_sub(r).wrapping_add(1)),
        );
    }
    w.u64(requests.len() as u64);
    let mut last = 0u64;
    for (i, text) in requests {
        w.u64(i.wrapping_sub(last));
        last = *i;
        w.str(text);
    }
    w.0
}

/// What `touches` packed: each touch with its path's id (its `path` left empty), and the
/// requests' lines.
pub type PackedTouches = (Vec<(i64, Touch)>, Vec<(u64, String)>);

pub fn decode_touches(b: &[u8]) -> R<PackedTouches> {
    let mut r = Reader::new(b);
    let (mut last_ms, mut last_message) = (0i64, 0i64);
    let v = r.many(|r| {
        let path = r.u64()? as i64;
        let action = FileAction::from_code(r.byte()? as i64).ok_or(Corrupt)?;
        let at = r.opt(|r| {
            last_ms = last_ms.checked_add(r.i64()?).ok_or(Corrupt)?;
            DateTime::from_timestamp_millis(last_ms).ok_or(Corrupt)
        })?;
        last_message = last_message.checked_add(r.i64()?).ok_or(Corrupt)?;
        let message_index = u64::try_from(last_message).map_err(|_| Corrupt)?;
        let mut n = || r.u64().map(|n| n.checked_sub(1));
        let (added, removed) = (n()?, n()?);
        let request_index = match r.u64()? {
            0 => None,
            back => Some(message_index.wrapping_add(1).wrapping_sub(back)),
        };
        let touch = Touch {
            path: String::new(),
            action,
            at,
            message_index,
            added,
            removed,
            request_index,
        };
        Ok((path, touch))
    })?;
    let mut last = 0u64;
    let requests = r.many(|r| {
        last = last.wrapping_add(r.u64()?);
        Ok((last, r.str()?))
    })?;
    r.done()?;
    Ok((v, requests))
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
        let r = summary_head_ref(&b).unwrap();
        assert_eq!(
            (r.agent, r.session_id, r.created_at, r.updated_at),
            ("claude", "abc-1", s.created_at, s.updated_at)
        );
        assert!(summary_head_ref(&b[..4]).is_err());
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
}
