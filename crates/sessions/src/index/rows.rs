//! A session's rows in the index: its doc (summary, field lengths, segment), its body (messages
//! and vocabulary), and its counts in the term table, which is cut into segments. New sessions'
//! counts are inserted into the last segment in key order; a session read again moves only the
//! counts that changed, in its own segment.
use rusqlite::{params, Connection, OptionalExtension};
use std::cmp::Reverse;
use std::collections::binary_heap::{BinaryHeap, PeekMut};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::codec;
use super::delta::{delta, Reread};
use super::term_insert::insert_terms;
use crate::query::terms::{TermCount, Terms};

const INSERT_TERM: &str = "INSERT INTO term(seg, token, doc, counts) VALUES (?1, ?2, ?3, ?4)";

/// Counts a segment of the term table takes (about 25 MB of pages). Counts are inserted into
/// one segment, the last, until it is full: a pass touches only that segment's pages, which fit
/// in the page cache, so a build appends segment after segment instead of writing pages all
/// over one table again at every pass.
static SEGMENT_TERMS: AtomicUsize = AtomicUsize::new(1 << 20);

fn segment_terms() -> usize {
    SEGMENT_TERMS.load(Ordering::Relaxed)
}

/// Make segments of `n` counts from now on, in this process. They change where counts are kept,
/// never what a search answers: tests make them small, so that small homes span many.
#[doc(hidden)]
pub fn set_segment_terms(n: usize) {
    SEGMENT_TERMS.store(n.max(1), Ordering::Relaxed);
}

/// A new session's counts as its reader leaves them to the writer: every token in one buffer,
/// in order, so that the one thread that writes frees two allocations per session rather than
/// one per token (freeing those strings was a tenth of its time in a build), and merges runs
/// already sorted (every core sorts its own sessions).
pub(super) struct TermRun {
    tokens: String,
    /// Where each token ends in `tokens` (it starts where the one before ends), and its counts.
    ends: Vec<(usize, TermCount)>,
}

impl TermRun {
    pub(super) fn new(terms: Terms) -> TermRun {
        let mut sorted: Vec<(&String, &TermCount)> = terms.iter().collect();
        sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut tokens = String::with_capacity(sorted.iter().map(|(t, _)| t.len()).sum());
        let ends = sorted
            .into_iter()
            .map(|(t, c)| {
                tokens.push_str(t);
                (tokens.len(), *c)
            })
            .collect();
        TermRun { tokens, ends }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> (&str, &TermCount) {
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p].0);
        let (end, ref count) = self.ends[i];
        (&self.tokens[start..end], count)
    }

    /// The tokens, in order.
    pub(super) fn tokens(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i).0)
    }
}

/// Counts of new docs held until they are inserted, and the segment they go to (see
/// `SEGMENT_TERMS`).
pub(super) struct Segments {
    /// The segment new docs go to, and the counts it has (not those held).
    pub(super) seg: i64,
    filled: usize,
    /// The docs held, in the order they were added (which is their ids' order), with their counts.
    runs: Vec<(i64, TermRun)>,
}

/// The first eight bytes of a token, big-endian: ordered as the tokens are.
fn token_prefix(t: &str) -> u64 {
    let mut b = [0u8; 8];
    let n = t.len().min(8);
    b[..n].copy_from_slice(&t.as_bytes()[..n]);
    u64::from_be_bytes(b)
}

/// The next count of one run, ordered as the term table's keys (token, then doc: runs are held
/// in doc order; rows out of that order would land more slowly, never wrongly). The token's
/// first bytes as a number decide most comparisons.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Next<'a> {
    prefix: u64,
    token: &'a str,
    run: usize,
    entry: usize,
}

/// The counts of every run in the table's key order: a merge of the runs, each sorted.
struct Merge<'a> {
    runs: &'a [(i64, TermRun)],
    heap: BinaryHeap<Reverse<Next<'a>>>,
}

impl<'a> Merge<'a> {
    fn new(runs: &'a [(i64, TermRun)]) -> Merge<'a> {
        let heap = (0..runs.len())
            .filter_map(|run| Merge::at(runs, run, 0))
            .collect();
        Merge { runs, heap }
    }

    fn at(runs: &'a [(i64, TermRun)], run: usize, entry: usize) -> Option<Reverse<Next<'a>>> {
        let r = &runs[run].1;
        (entry < r.len()).then(|| {
            let token = r.get(entry).0;
            Reverse(Next {
                prefix: token_prefix(token),
                token,
                run,
                entry,
            })
        })
    }
}

impl<'a> Iterator for Merge<'a> {
    type Item = (&'a str, i64, &'a TermCount);

    fn next(&mut self) -> Option<Self::Item> {
        let mut top = self.heap.peek_mut()?;
        let (token, run, entry) = (top.0.token, top.0.run, top.0.entry);
        let (doc, r) = &self.runs[run];
        let counts = &r.ends[entry].1;
        // The run's next count takes its place (one sift), or the run is done.
        match Merge::at(self.runs, run, entry + 1) {
            Some(next) => *top = next,
            None => {
                PeekMut::pop(top);
            }
        }
        Some((token, *doc, counts))
    }
}

impl Segments {
    /// Counts go on into the last segment while it has room.
    pub(super) fn open(tx: &Connection) -> rusqlite::Result<Segments> {
        let last: Option<(i64, i64)> = tx
            .query_row(
                "SELECT id, terms FROM segment ORDER BY id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let (seg, filled) = match last {
            Some((id, terms)) if (terms as usize) < segment_terms() => (id, terms as usize),
            Some((id, _)) => (id + 1, 0),
            None => (1, 0),
        };
        Ok(Segments {
            seg,
            filled,
            runs: Vec::new(),
        })
    }

    /// Hold the counts of a new doc, whose id is larger than those held.
    pub(super) fn add(&mut self, doc: i64, terms: TermRun) {
        self.runs.push((doc, terms));
    }

    /// How many counts wait to be inserted.
    fn waiting(&self) -> usize {
        self.runs.iter().map(|(_, r)| r.len()).sum()
    }

    /// Is the segment full with what is held?
    pub(super) fn full(&self) -> bool {
        self.filled + self.waiting() >= segment_terms()
    }

    /// Insert the held counts in key order (token, then doc), so the insert walks the segment
    /// once; a full segment is followed by a new one.
    pub(super) fn flush(&mut self, tx: &Connection) -> rusqlite::Result<()> {
        let waiting = self.waiting();
        if waiting == 0 {
            return Ok(());
        }
        // A build inserts millions of rows: `insert_terms` does it many to a statement.
        insert_terms(tx, self.seg, Merge::new(&self.runs))?;
        tx.execute(
            "INSERT INTO segment(id, terms) VALUES (?1, ?2)
             ON CONFLICT(id) DO UPDATE SET terms = terms + excluded.terms",
            params![self.seg, waiting as i64],
        )?;
        self.filled += waiting;
        self.runs.clear();
        if self.filled >= segment_terms() {
            (self.seg, self.filled) = (self.seg + 1, 0);
        }
        Ok(())
    }
}

pub(super) fn drop_documents(tx: &Connection, source: i64) -> rusqlite::Result<()> {
    for (doc, _) in documents(tx, source)? {
        drop_document(tx, doc)?;
    }
    Ok(())
}

/// The docs of a source: id and session id.
pub(super) fn documents(tx: &Connection, source: i64) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut st = tx.prepare_cached("SELECT id, summary FROM doc WHERE source = ?1")?;
    let rows = st.query_map([source], |r| {
        Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, summary) = row?;
        let summary = codec::decode_summary(&summary).map_err(|_| damaged())?;
        out.push((id, summary.session_id));
    }
    Ok(out)
}

/// The segment that holds a doc's counts, and the tokens it has counts for.
fn vocabulary(tx: &Connection, doc: i64) -> rusqlite::Result<(i64, Vec<String>)> {
    let (seg, blob): (i64, Vec<u8>) = tx.query_row(
        "SELECT d.seg, b.vocabulary FROM doc d JOIN body b ON b.id = d.id WHERE d.id = ?1",
        [doc],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    // A vocabulary that does not decode would leave its terms behind: the index is damaged.
    let tokens = codec::decode_vocabulary(&blob).map_err(|_| damaged())?;
    Ok((seg, tokens))
}

const DELETE_TERM: &str = "DELETE FROM term WHERE seg = ?1 AND token = ?2 AND doc = ?3";

pub(super) fn drop_document(tx: &Connection, doc: i64) -> rusqlite::Result<()> {
    let mut term = tx.prepare_cached(DELETE_TERM)?;
    let (seg, tokens) = vocabulary(tx, doc)?;
    for t in tokens {
        term.execute(params![seg, t, doc])?;
    }
    tx.execute("DELETE FROM body WHERE id = ?1", [doc])?;
    tx.execute("DELETE FROM doc WHERE id = ?1", [doc])?;
    Ok(())
}

/// Store a session read again over its doc. Only the counts the delta moves are read and
/// written: a session that grew by a message changes few of its tokens' counts, and those stay
/// in the doc's segment.
pub(super) fn update_document(
    tx: &Connection,
    doc: i64,
    summary: &[u8],
    now: &Reread,
) -> rusqlite::Result<()> {
    let (seg, old_lengths, old_summary, old_messages): (i64, Vec<u8>, Vec<u8>, Vec<u8>) = tx
        .query_row(
            "SELECT d.seg, d.lengths, d.summary, b.messages FROM doc d JOIN body b ON b.id = d.id
             WHERE d.id = ?1",
            [doc],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
    let old_title = codec::decode_summary(&old_summary)
        .map_err(|_| damaged())?
        .title;
    let d = delta(&old_messages, &old_title, now).map_err(|_| damaged())?;
    let stored = codec::decode_lengths(&old_lengths).map_err(|_| damaged())?;
    // Taking away more than is stored: the index does not hold what it read.
    let lengths = d.lengths(&stored).ok_or_else(damaged)?;
    let (added, removed) = move_counts(tx, seg, doc, d.sub.terms, d.add.terms)?;
    if !added.is_empty() || !removed.is_empty() {
        let (_, mut tokens) = vocabulary(tx, doc)?;
        let removed: std::collections::HashSet<String> = removed.into_iter().collect();
        tokens.retain(|t| !removed.contains(t));
        tokens.extend(added);
        tx.execute(
            "UPDATE body SET vocabulary = ?2 WHERE id = ?1",
            params![doc, codec::vocabulary(tokens.iter().map(String::as_str))],
        )?;
    }
    if d.messages_changed {
        tx.execute(
            "UPDATE body SET messages = ?2 WHERE id = ?1",
            params![doc, now.packed],
        )?;
    }
    let lengths = codec::lengths(&lengths);
    if summary != old_summary || lengths != old_lengths {
        tx.execute(
            "UPDATE doc SET summary = ?2, lengths = ?3 WHERE id = ?1",
            params![doc, summary, lengths],
        )?;
    }
    Ok(())
}

/// Move a doc's stored counts by `add - sub`, token by token, in key order; returns the tokens
/// that got their first count and those that lost their last.
fn move_counts(
    tx: &Connection,
    seg: i64,
    doc: i64,
    mut sub: Terms,
    add: Terms,
) -> rusqlite::Result<(Vec<String>, Vec<String>)> {
    let zero = TermCount::default();
    let mut moves: Vec<(String, TermCount, TermCount)> = add
        .into_iter()
        .map(|(t, a)| {
            let s = sub.remove(&t).unwrap_or_default();
            (t, a, s)
        })
        .collect();
    moves.extend(sub.into_iter().map(|(t, s)| (t, zero, s)));
    moves.retain(|(_, a, s)| a != s);
    moves.sort_unstable_by(|x, y| x.0.cmp(&y.0));
    let mut read =
        tx.prepare_cached("SELECT counts FROM term WHERE seg = ?1 AND token = ?2 AND doc = ?3")?;
    let mut delete = tx.prepare_cached(DELETE_TERM)?;
    let mut update = tx
        .prepare_cached("UPDATE term SET counts = ?4 WHERE seg = ?1 AND token = ?2 AND doc = ?3")?;
    let mut insert = tx.prepare_cached(INSERT_TERM)?;
    let (mut added, mut removed) = (Vec::new(), Vec::new());
    for (t, a, s) in moves {
        let have: Option<Vec<u8>> = read
            .query_row(params![seg, t, doc], |r| r.get(0))
            .optional()?;
        let before = match &have {
            Some(b) => codec::decode_term_count(b).map_err(|_| damaged())?,
            None => zero,
        };
        // Taking away more than is stored: the index does not hold what it read.
        let now = before.adjusted(&a, &s).ok_or_else(damaged)?;
        match (have.is_some(), now == zero) {
            (true, true) => {
                delete.execute(params![seg, t, doc])?;
                removed.push(t);
            }
            (true, false) => {
                update.execute(params![seg, t, doc, codec::term_count(&now)])?;
            }
            (false, false) => {
                insert.execute(params![seg, t, doc, codec::term_count(&now)])?;
                added.push(t);
            }
            (false, true) => {}
        }
    }
    Ok((added, removed))
}

/// The error SQLite gives a damaged database, so that the index is rebuilt.
pub(super) fn damaged() -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tokens that agree on their first bytes, end at or around the eighth byte, or hold
    /// characters of several bytes that the eighth byte cuts.
    const TOKENS: &[&str] = &[
        "a",
        "ab",
        "abcdefg",
        "abcdefgh",
        "abcdefgh0",
        "abcdefgh00",
        "abcdefgha",
        "abcdefghb",
        "abcdefgi",
        "abcdefg\u{e9}",
        "abcdefg\u{e9}x",
        "abcdef\u{6f22}",
        "abcdef\u{6f22}\u{5b57}",
        "\u{4e2d}",
        "z",
        "zzzzzzzzzzzzzzzzzzzz",
        "zzzzzzzz",
        "b\u{df}",
        "0",
        "",
    ];

    fn run(tokens: &[&str]) -> TermRun {
        let mut terms = Terms::default();
        for (i, t) in tokens.iter().enumerate() {
            terms.entry_ref(*t).or_default().body = i as u32 + 1;
        }
        TermRun::new(terms)
    }

    #[test]
    fn held_counts_come_out_in_the_tables_key_order() {
        // Three docs: every token, every other one, the tokens in reverse.
        let every_other: Vec<&str> = TOKENS.iter().copied().step_by(2).collect();
        let reversed: Vec<&str> = TOKENS.iter().rev().copied().collect();
        let runs: Vec<(i64, TermRun)> = [(7, TOKENS.to_vec()), (9, every_other), (12, reversed)]
            .into_iter()
            .map(|(doc, tokens)| (doc, run(&tokens)))
            .collect();
        let got: Vec<(&str, i64, u32)> = Merge::new(&runs)
            .map(|(t, doc, c)| (t, doc, c.body))
            .collect();
        let mut want: Vec<(&str, i64, u32)> = Vec::new();
        for (doc, run) in &runs {
            want.extend((0..run.len()).map(|i| {
                let (token, counts) = run.get(i);
                (token, *doc, counts.body)
            }));
        }
        want.sort();
        assert_eq!(got, want);
        assert_eq!(got.len(), TOKENS.len() * 2 + TOKENS.len().div_ceil(2));
        // Each doc's counts came through with its tokens.
        let body = |doc: i64, t: &str| got.iter().find(|g| g.0 == t && g.1 == doc).map(|g| g.2);
        assert_eq!(body(7, "abcdefgh00"), Some(6));
        assert_eq!(body(9, "abcdefgh0"), Some(3));
        assert_eq!(body(12, "abcdefgh00"), Some(TOKENS.len() as u32 - 5));
        assert_eq!(body(9, "abcdefgh00"), None);
        // No run, or empty runs: nothing.
        assert_eq!(Merge::new(&[]).count(), 0);
        assert_eq!(Merge::new(&[(1, run(&[])), (2, run(&[]))]).count(), 0);
    }
}
