//! Search from the index. Every token (and CJK character) of every session is kept with its
//! counts per field (`query::terms`), so:
//! - a query of single words (with OR, NOT and prefixes) is answered from those counts alone:
//!   which sessions match, how many times, their scores. Sessions are read only for the results
//!   returned (their snippets) and, for words side by side, for those that may make the cut;
//! - any other query (phrases, CJK) reads the sessions that hold every token or CJK character it
//!   needs and analyses them as the scan does.
//!
//! Either way the search engine's own ranking (`scan::rank`) scores them, so scores, snippets
//! and counts are the scan's.
use rayon::prelude::*;
use rusqlite::{params, Connection, OptionalExtension};
// Keys are the index's own row ids: Fx hashing, not SipHash (a word in every session looks up
// thousands of them).
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::codec;
use super::store::Fault;
use super::sync::Synced;
use crate::model::{Session, SessionSummary};
use crate::query::fields::FIELDS;
use crate::query::parse::{Expr, Leaf, Query};
use crate::query::prefilter::Prefilter;
use crate::query::terms::TermCount;
use crate::query::text::is_cjk;
use crate::search::scan::{rank, Examined, FileHit, ReadSession};
use crate::search::score::{adjacency_leaf, analyse, Matcher, Stats};
use crate::search::{take_in_order, Completed, PendingSummary};

/// The sources a search covers, in the scan's order (largest first, so that of two equal hits
/// on one session the same copy is kept): id and sessions held.
fn covered(sources: Vec<Synced>) -> Vec<(i64, usize)> {
    let size = |s: &Synced| s.source.stamps.iter().map(|t| t.size).sum::<u64>();
    let mut v: Vec<_> = sources
        .iter()
        .map(|s| (std::cmp::Reverse(size(s)), s.id, s.sessions))
        .collect();
    // Stable: sources of one size stay in the agents' order.
    v.sort_by_key(|&(size, _, _)| size);
    v.into_iter()
        .map(|(_, id, sessions)| (id, sessions))
        .collect()
}

/// Search the indexed documents of `sources` (already brought up to date).
pub fn search(
    conn: &Connection,
    sources: Vec<Synced>,
    q: &Query,
    pending: PendingSummary,
) -> Result<Vec<FileHit>, Fault> {
    let covered = covered(sources);
    let in_scope: HashSet<i64> = covered.iter().map(|&(id, _)| id).collect();
    let read = match one_word_leaves(q) {
        Some(words) => from_counts(conn, q, &words, &in_scope, pending)?,
        None => by_analysis(conn, q, &in_scope)?,
    };
    Ok(rank(q, examined(covered, read)))
}

/// Per source, its sessions read (in doc order), as ranking takes them.
fn examined(covered: Vec<(i64, usize)>, mut read: BySource) -> impl Iterator<Item = Examined> {
    covered.into_iter().map(move |(id, sessions)| Examined {
        sessions,
        read: read.remove(&id).unwrap_or_default(),
    })
}

/// The token and whether it is a prefix, of each leaf, when every leaf is one word and the
/// query cannot match a session that holds none of them.
fn one_word_leaves(q: &Query) -> Option<Vec<(&str, bool)>> {
    let words: Option<Vec<(&str, bool)>> = q
        .leaves
        .iter()
        .map(|l| match l {
            Leaf::Words { tokens, prefix } if tokens.len() == 1 => {
                Some((tokens[0].as_str(), *prefix))
            }
            _ => None,
        })
        .collect();
    words.filter(|_| !q.eval_ignoring_not(&|_| false))
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

/// Sessions of sources in scope, per source, in doc id order.
type BySource = HashMap<i64, Vec<ReadSession>>;

/// Statistics of every session holding one of the words, from the stored counts alone; the
/// summaries of those that match as much as `pending` asks.
fn from_counts(
    conn: &Connection,
    q: &Query,
    words: &[(&str, bool)],
    in_scope: &HashSet<i64>,
    pending: PendingSummary,
) -> Result<BySource, Fault> {
    struct Counted {
        source: i64,
        lengths: [u64; FIELDS],
        summary: Vec<u8>,
        per_leaf: Vec<TermCount>,
    }
    // Sized for one session per source in scope: a word in every session grew it a dozen times.
    let mut docs: HashMap<i64, Counted> =
        HashMap::with_capacity_and_hasher(in_scope.len(), Default::default());
    // Segment by segment (CROSS JOIN keeps that order): each is one range of the term table.
    let mut st = conn.prepare_cached(
        "SELECT t.doc, t.counts, d.source, d.lengths, d.summary FROM segment s
         CROSS JOIN term t ON t.seg = s.id AND t.token BETWEEN ?1 AND ?2
         CROSS JOIN doc d ON d.id = t.doc",
    )?;
    for (l, &(word, prefix)) in words.iter().enumerate() {
        let (first, last) = token_range(word, prefix);
        let mut rows = st.query(params![first, last])?;
        while let Some(r) = rows.next()? {
            let source: i64 = r.get(2)?;
            if !in_scope.contains(&source) {
                continue;
            }
            // Blobs read in place: one row per session holding the word.
            let counts =
                codec::decode_term_count(r.get_ref(1)?.as_blob()?).map_err(|_| corrupt())?;
            let doc = match docs.entry(r.get(0)?) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    let lengths =
                        codec::decode_lengths(r.get_ref(3)?.as_blob()?).map_err(|_| corrupt())?;
                    e.insert(Counted {
                        source,
                        lengths,
                        summary: r.get(4)?,
                        per_leaf: vec![TermCount::default(); words.len()],
                    })
                }
            };
            // A prefix sums the counts of every token it starts.
            let sum = &mut doc.per_leaf[l];
            for (a, b) in sum.tf.iter_mut().zip(counts.tf) {
                *a += b;
            }
            sum.body += counts.body;
        }
    }
    // Words side by side can be no more frequent than the rarer of them.
    let side_by_side = adjacency_leaf(q).is_some();
    let read: Vec<(i64, i64, ReadSession)> = docs
        .into_par_iter()
        .map(|(id, c)| {
            let stats = Stats {
                tf: c.per_leaf.iter().map(|t| t.tf).collect(),
                adjacent_tf: 0,
                lengths: c.lengths,
                snippet: None,
            };
            let hit = match (stats.matches(q), pending) {
                (false, _) => None,
                (true, PendingSummary::Whole) => Some(Box::new(decode_summary(&c.summary)?)),
                (true, PendingSummary::Head) => Some(Box::new(
                    codec::decode_summary_head(&c.summary).map_err(|_| corrupt())?,
                )),
            };
            let most = match side_by_side {
                true => c.per_leaf.iter().map(|t| t.body).min().unwrap_or(0),
                false => 0,
            };
            let read = ReadSession {
                stats,
                hit,
                later: Some((id as u64, most)),
            };
            Ok((id, c.source, read))
        })
        .collect::<Result<_, Fault>>()?;
    Ok(by_source(read))
}

/// Every session that may match (holding every token or CJK character the query needs,
/// ignoring its NOTs), read and analysed.
fn by_analysis(conn: &Connection, q: &Query, in_scope: &HashSet<i64>) -> Result<BySource, Fault> {
    let ids = candidates(conn, q, &q.expr)?;
    let blobs = stored(conn, ids, |source| in_scope.contains(&source))?;
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    let analysed: Vec<(i64, i64, ReadSession)> = blobs
        .par_iter()
        .map(|(id, source, summary, messages)| {
            let s = session(summary, messages)?;
            let st = analyse(&matcher, &s);
            let hit = st.matches(q).then(|| Box::new(s.summary));
            Ok((*id, *source, ReadSession::complete(st, hit)))
        })
        .collect::<Result<_, Fault>>()?;
    Ok(by_source(analysed))
}

/// Group `(doc id, source, session)` by source, in doc id order. The order is found on the ids
/// alone and each session moved once: sessions are large, and a word in every session makes
/// thousands of them.
fn by_source(read: Vec<(i64, i64, ReadSession)>) -> BySource {
    let mut order: Vec<(i64, usize)> = read.iter().enumerate().map(|(i, r)| (r.0, i)).collect();
    order.sort_unstable();
    let mut out = BySource::default();
    for (_, source, r) in take_in_order(read, order.into_iter().map(|(_, i)| i)) {
        out.entry(source).or_default().push(r);
    }
    out
}

/// Docs that hold what `e` needs, ignoring NOTs.
fn candidates(conn: &Connection, q: &Query, e: &Expr) -> Result<HashSet<i64>, Fault> {
    Ok(match e {
        Expr::Leaf(l) => {
            let (words, prefix): (Vec<String>, bool) = match &q.leaves[*l] {
                Leaf::Words { tokens, prefix } => (tokens.clone(), *prefix),
                Leaf::Substring(s) => (
                    s.chars().filter(|&c| is_cjk(c)).map(String::from).collect(),
                    false,
                ),
            };
            let last = words.len().saturating_sub(1);
            in_all(
                words
                    .iter()
                    .enumerate()
                    .map(|(i, w)| docs_with(conn, w, prefix && i == last)),
            )?
        }
        Expr::And(v) => in_all(v.iter().map(|e| candidates(conn, q, e)))?,
        Expr::Or(v) => {
            let mut out = HashSet::default();
            for e in v {
                out.extend(candidates(conn, q, e)?);
            }
            out
        }
        Expr::Not(a, _) => candidates(conn, q, a)?,
    })
}

fn docs_with(conn: &Connection, token: &str, prefix: bool) -> Result<HashSet<i64>, Fault> {
    let mut st = conn.prepare_cached(
        "SELECT t.doc FROM segment s
         CROSS JOIN term t ON t.seg = s.id AND t.token BETWEEN ?1 AND ?2",
    )?;
    let (first, last) = token_range(token, prefix);
    let rows = st.query_map(params![first, last], |r| r.get(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The docs in every one of `sets` (none when there is no set).
fn in_all(sets: impl Iterator<Item = Result<HashSet<i64>, Fault>>) -> Result<HashSet<i64>, Fault> {
    let mut out: Option<HashSet<i64>> = None;
    for set in sets {
        let set = set?;
        out = Some(match out {
            None => set,
            Some(o) => o.intersection(&set).copied().collect(),
        });
    }
    Ok(out.unwrap_or_default())
}

/// The docs `keys` (hits left pending by `from_counts`) completed.
pub fn complete(conn: &Connection, q: &Query, keys: &[u64]) -> Result<Vec<Completed>, Fault> {
    let blobs = stored(conn, keys.iter().map(|&k| k as i64), |_| true)?;
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    blobs
        .par_iter()
        .map(|(_, _, summary, messages)| {
            let s = session(summary, messages)?;
            let st = analyse(&matcher, &s);
            Ok(Completed {
                adjacent: st.adjacent_tf,
                snippet: st.snippet,
                summary: s.summary,
            })
        })
        .collect()
}

/// Id, source, summary and compressed messages of each doc whose source `keep` takes, in the
/// order given; a doc that is not there is damage (the ids come from the index itself).
type Stored = (i64, i64, Vec<u8>, Vec<u8>);

fn stored(
    conn: &Connection,
    ids: impl IntoIterator<Item = i64>,
    keep: impl Fn(i64) -> bool,
) -> Result<Vec<Stored>, Fault> {
    let mut read = conn.prepare_cached(
        "SELECT d.source, d.summary, b.messages FROM doc d JOIN body b ON b.id = d.id
         WHERE d.id = ?1",
    )?;
    let mut out = Vec::new();
    for id in ids {
        let row: Option<Stored> = read
            .query_row([id], |r| Ok((id, r.get(0)?, r.get(1)?, r.get(2)?)))
            .optional()?;
        let row = row.ok_or_else(corrupt)?;
        if keep(row.1) {
            out.push(row);
        }
    }
    Ok(out)
}

/// A stored summary as search reports it.
fn decode_summary(blob: &[u8]) -> Result<SessionSummary, Fault> {
    let mut summary = codec::decode_summary(blob).map_err(|_| corrupt())?;
    summary.unified_id = crate::ids::unified_id(&summary.agent, &summary.session_id);
    Ok(summary)
}

/// A stored session, for analysis.
fn session(summary: &[u8], messages: &[u8]) -> Result<Session, Fault> {
    let body = codec::unpack(messages).map_err(|_| corrupt())?;
    Ok(Session {
        summary: decode_summary(summary)?,
        messages: codec::decode_messages(&body).map_err(|_| corrupt())?,
        raw: None,
    })
}

fn corrupt() -> Fault {
    Fault::Broken("a stored document does not decode".into())
}
