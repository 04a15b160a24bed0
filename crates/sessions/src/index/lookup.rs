//! What a search asks of the index, and the one place that answers it: `TermLookup`, read from
//! one snapshot of the index brought up to date with the stores (`Snapshot`).
//!
//! Every token (and CJK character) of every session is kept with its counts per field
//! (`query::terms`), so a search finds the sessions that hold given terms, and how often, without
//! reading them; and each session's summary and messages are kept, for what the counts cannot
//! tell (snippets, phrases, words side by side). The search engine (`search::indexed`) turns these
//! into hits exactly as its scan would.
use rusqlite::{params, Connection, OptionalExtension};
// Keys are the index's own row ids: Fx hashing, not SipHash (a word in every session looks up
// thousands of them).
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::PathBuf;

use super::codec;
use super::removed_if_broken;
use super::store::Fault;
use super::sync::Synced;
use crate::model::{Session, SessionSummary};
use crate::query::fields::FIELDS;
use crate::query::terms::TermCount;

/// A session in the index (its row id there).
pub type DocId = i64;
/// A source in the index (its row id there).
pub type SourceId = i64;

/// The sessions that hold given terms, and what the index keeps of them: the seam between the
/// search engine and whatever stores the index.
pub trait TermLookup {
    /// The sources searched, in the order a scan examines them (largest first: of two equal
    /// hits on one session the same copy is kept), each with how many sessions it holds (0 when
    /// unreadable).
    fn sources(&self) -> &[(SourceId, usize)];

    /// Every session of the sources searched that holds one of `words` (a word, and whether it is
    /// a prefix standing for every token it starts), with its counts of each.
    fn count_words(&self, words: &[(&str, bool)]) -> Result<HashMap<DocId, WordCounts>, Fault>;

    /// The sessions, of any source, that hold `token` (or, with `prefix`, a token it starts).
    fn sessions_with(&self, token: &str, prefix: bool) -> Result<HashSet<DocId>, Fault>;

    /// The sessions `ids` as stored, in that order, leaving out those of sources not searched.
    fn stored(&self, ids: &[DocId]) -> Result<Vec<StoredDoc>, Fault>;
}

/// One session's counts of the words looked up (`TermLookup::count_words`).
pub struct WordCounts {
    pub source: SourceId,
    /// Bytes of searchable text per field.
    pub lengths: [u64; FIELDS],
    /// Per word, in the order asked (a prefix sums the counts of every token it starts).
    pub per_word: Vec<TermCount>,
    summary: Vec<u8>,
}

impl WordCounts {
    /// The session's summary as search reports it.
    pub fn summary(&self) -> Result<SessionSummary, Fault> {
        decode_summary(&self.summary)
    }

    /// Its ids and dates only (`SessionSummary::new`), read without the rest.
    pub fn summary_head(&self) -> Result<SessionSummary, Fault> {
        codec::decode_summary_head(&self.summary).map_err(|_| corrupt())
    }
}

/// A session as the index stores it (`TermLookup::stored`), still packed.
pub struct StoredDoc {
    pub id: DocId,
    pub source: SourceId,
    summary: Vec<u8>,
    messages: Vec<u8>,
}

impl StoredDoc {
    /// The session, for analysis: its summary as search reports it and its messages.
    pub fn session(&self) -> Result<Session, Fault> {
        let body = codec::unpack(&self.messages).map_err(|_| corrupt())?;
        Ok(Session {
            summary: decode_summary(&self.summary)?,
            messages: codec::decode_messages(&body).map_err(|_| corrupt())?,
            raw: None,
        })
    }
}

/// The index read for one search: a read transaction, so every lookup and every session read
/// for the search sees the same index whatever other processes write meanwhile. A lookup that
/// finds the index damaged removes it (`removed_if_broken`).
pub struct Snapshot {
    dir: PathBuf,
    conn: Connection,
    sources: Vec<(SourceId, usize)>,
    in_scope: HashSet<SourceId>,
}

/// The sources in the order a scan examines them: largest first, sources of one size in the
/// agents' order.
fn scan_order(synced: Vec<Synced>) -> Vec<(SourceId, usize)> {
    let size = |s: &Synced| s.source.stamps.iter().map(|t| t.size).sum::<u64>();
    let mut v: Vec<_> = synced
        .iter()
        .map(|s| (std::cmp::Reverse(size(s)), s.id, s.sessions))
        .collect();
    // Stable: sources of one size stay in the agents' order.
    v.sort_by_key(|&(size, _, _)| size);
    v.into_iter()
        .map(|(_, id, sessions)| (id, sessions))
        .collect()
}

impl TermLookup for Snapshot {
    fn sources(&self) -> &[(SourceId, usize)] {
        &self.sources
    }

    fn count_words(&self, words: &[(&str, bool)]) -> Result<HashMap<DocId, WordCounts>, Fault> {
        removed_if_broken(&self.dir, self.read_counts(words))
    }

    fn sessions_with(&self, token: &str, prefix: bool) -> Result<HashSet<DocId>, Fault> {
        removed_if_broken(&self.dir, self.read_sessions_with(token, prefix))
    }

    fn stored(&self, ids: &[DocId]) -> Result<Vec<StoredDoc>, Fault> {
        removed_if_broken(&self.dir, self.read_stored(ids))
    }
}

impl Snapshot {
    /// The index `conn` (in `dir`), in a read transaction begun once `synced` were brought up to
    /// date.
    pub(super) fn new(dir: PathBuf, conn: Connection, synced: Vec<Synced>) -> Snapshot {
        let sources = scan_order(synced);
        let in_scope = sources.iter().map(|&(id, _)| id).collect();
        Snapshot {
            dir,
            conn,
            sources,
            in_scope,
        }
    }

    fn read_counts(&self, words: &[(&str, bool)]) -> Result<HashMap<DocId, WordCounts>, Fault> {
        // Sized for one session per source searched: a word in every session grew it a dozen
        // times.
        let mut docs: HashMap<DocId, WordCounts> =
            HashMap::with_capacity_and_hasher(self.in_scope.len(), Default::default());
        // Segment by segment (CROSS JOIN keeps that order): each is one range of the term table.
        let mut st = self.conn.prepare_cached(
            "SELECT t.doc, t.counts, d.source, d.lengths, d.summary FROM segment s
             CROSS JOIN term t ON t.seg = s.id AND t.token BETWEEN ?1 AND ?2
             CROSS JOIN doc d ON d.id = t.doc",
        )?;
        for (l, &(word, prefix)) in words.iter().enumerate() {
            let (first, last) = token_range(word, prefix);
            let mut rows = st.query(params![first, last])?;
            while let Some(r) = rows.next()? {
                let source: SourceId = r.get(2)?;
                if !self.in_scope.contains(&source) {
                    continue;
                }
                // Blobs read in place: one row per session holding the word.
                let counts =
                    codec::decode_term_count(r.get_ref(1)?.as_blob()?).map_err(|_| corrupt())?;
                let doc = match docs.entry(r.get(0)?) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        let lengths = codec::decode_lengths(r.get_ref(3)?.as_blob()?)
                            .map_err(|_| corrupt())?;
                        e.insert(WordCounts {
                            source,
                            lengths,
                            summary: r.get(4)?,
                            per_word: vec![TermCount::default(); words.len()],
                        })
                    }
                };
                // A prefix sums the counts of every token it starts.
                let sum = &mut doc.per_word[l];
                for (a, b) in sum.tf.iter_mut().zip(counts.tf) {
                    *a += b;
                }
                sum.body += counts.body;
            }
        }
        Ok(docs)
    }

    fn read_sessions_with(&self, token: &str, prefix: bool) -> Result<HashSet<DocId>, Fault> {
        let mut st = self.conn.prepare_cached(
            "SELECT t.doc FROM segment s
             CROSS JOIN term t ON t.seg = s.id AND t.token BETWEEN ?1 AND ?2",
        )?;
        let (first, last) = token_range(token, prefix);
        let rows = st.query_map(params![first, last], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn read_stored(&self, ids: &[DocId]) -> Result<Vec<StoredDoc>, Fault> {
        let mut read = self.conn.prepare_cached(
            "SELECT d.source, d.summary, b.messages FROM doc d JOIN body b ON b.id = d.id
             WHERE d.id = ?1",
        )?;
        let mut out = Vec::new();
        for &id in ids {
            let doc = read
                .query_row([id], |r| {
                    Ok(StoredDoc {
                        id,
                        source: r.get(0)?,
                        summary: r.get(1)?,
                        messages: r.get(2)?,
                    })
                })
                .optional()?;
            // The ids come from the index itself: one that is not there is damage.
            let doc = doc.ok_or_else(corrupt)?;
            if self.in_scope.contains(&doc.source) {
                out.push(doc);
            }
        }
        Ok(out)
    }
}

/// The tokens a word stands for, as an inclusive range: the word itself, or for a prefix every
/// token that starts with it (no token holds U+10FFFF).
fn token_range(word: &str, prefix: bool) -> (String, String) {
    let last = match prefix {
        true => format!("{word}\u{10FFFF}"),
        false => word.to_string(),
    };
    (word.to_string(), last)
}

/// A stored summary as search reports it.
fn decode_summary(blob: &[u8]) -> Result<SessionSummary, Fault> {
    let mut summary = codec::decode_summary(blob).map_err(|_| corrupt())?;
    summary.unified_id = crate::ids::unified_id(&summary.agent, &summary.session_id);
    Ok(summary)
}

fn corrupt() -> Fault {
    Fault::Broken("a stored document does not decode".into())
}
