//! Finding hits from the index (`TermLookup`), so that a search reads no source:
//! - a query of single words (with OR, NOT and prefixes) is answered from the stored counts
//!   alone: which sessions match, how many times, their scores. Sessions are read only for the
//!   results returned (their snippets) and, for words side by side, for those that may make the
//!   cut (`HitSource::complete_pending`);
//! - any other query (phrases, CJK) reads the sessions that hold every token or CJK character it
//!   needs and analyses them as the scan does.
//!
//! Either way the ranking the scan ends in (`rank`) scores them, so scores, snippets and counts
//! are the scan's.
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::hits::{CompletedHit, Hit, HitSource, PendingSummary};
use super::rank::{rank, take_in_order, Examined, ReadSession};
use super::score::{adjacency_leaf, analyse, Matcher, Stats};
use crate::query::parse::{Expr, Leaf, Query};
use crate::query::prefilter::Prefilter;
use crate::query::text::is_cjk;
use crate::storage::{DocId, Fault, SourceId, TermLookup};

/// The index's sessions, looked up by the terms they hold.
pub struct Indexed<'a> {
    pub lookup: &'a dyn TermLookup,
}

impl HitSource for Indexed<'_> {
    fn hits(&self, q: &Query, summary: PendingSummary) -> Result<Vec<Hit>, Fault> {
        let read = match one_word_leaves(q) {
            Some(words) => from_counts(self.lookup, q, &words, summary)?,
            None => by_analysis(self.lookup, q)?,
        };
        Ok(rank(q, examined(self.lookup.sources(), read)))
    }

    /// The sessions of hits left pending by `from_counts`, read and analysed.
    fn complete_pending(&self, q: &Query, keys: &[u64]) -> Result<Vec<CompletedHit>, Fault> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<DocId> = keys.iter().map(|&k| k as DocId).collect();
        let docs = self.lookup.stored(&ids)?;
        let pf = Prefilter::new(q);
        let matcher = Matcher::new(q, &pf);
        docs.par_iter()
            .map(|d| {
                let s = d.session()?;
                let st = analyse(&matcher, &s);
                Ok(CompletedHit {
                    adjacent: st.adjacent_tf,
                    snippet: st.snippet,
                    summary: s.summary,
                })
            })
            .collect()
    }
}

/// Per source searched, its sessions read (in doc order), as ranking takes them.
fn examined<'a>(
    sources: &'a [(SourceId, usize)],
    mut read: BySource,
) -> impl Iterator<Item = Examined> + 'a {
    sources.iter().map(move |&(id, sessions)| Examined {
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

/// Sessions of the sources searched, per source, in doc id order.
type BySource = HashMap<SourceId, Vec<ReadSession>>;

/// Statistics of every session holding one of the words, from the stored counts alone; the
/// summaries of those that match as much as `summary` asks.
fn from_counts(
    lookup: &dyn TermLookup,
    q: &Query,
    words: &[(&str, bool)],
    summary: PendingSummary,
) -> Result<BySource, Fault> {
    let docs = lookup.count_words(words)?;
    // Words side by side can be no more frequent than the rarer of them.
    let side_by_side = adjacency_leaf(q).is_some();
    let read: Vec<(DocId, SourceId, ReadSession)> = docs
        .into_par_iter()
        .map(|(id, c)| {
            let stats = Stats {
                tf: c.per_word.iter().map(|t| t.tf).collect(),
                adjacent_tf: 0,
                lengths: c.lengths,
                snippet: None,
            };
            let hit = match (stats.matches(q), summary) {
                (false, _) => None,
                (true, PendingSummary::Whole) => Some(Box::new(c.summary()?)),
                (true, PendingSummary::Head) => Some(Box::new(c.summary_head()?)),
            };
            let most = match side_by_side {
                true => c.per_word.iter().map(|t| t.body).min().unwrap_or(0),
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
fn by_analysis(lookup: &dyn TermLookup, q: &Query) -> Result<BySource, Fault> {
    let ids: Vec<DocId> = candidates(lookup, q, &q.expr)?.into_iter().collect();
    let docs = lookup.stored(&ids)?;
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    let analysed: Vec<(DocId, SourceId, ReadSession)> = docs
        .par_iter()
        .map(|d| {
            let s = d.session()?;
            let st = analyse(&matcher, &s);
            let hit = st.matches(q).then(|| Box::new(s.summary));
            Ok((d.id, d.source, ReadSession::analysed(st, hit)))
        })
        .collect::<Result<_, Fault>>()?;
    Ok(by_source(analysed))
}

/// Group `(doc id, source, session)` by source, in doc id order. The order is found on the ids
/// alone and each session moved once: sessions are large, and a word in every session makes
/// thousands of them.
fn by_source(read: Vec<(DocId, SourceId, ReadSession)>) -> BySource {
    let mut order: Vec<(DocId, usize)> = read.iter().enumerate().map(|(i, r)| (r.0, i)).collect();
    order.sort_unstable();
    let mut out = BySource::default();
    for (_, source, r) in take_in_order(read, order.into_iter().map(|(_, i)| i)) {
        out.entry(source).or_default().push(r);
    }
    out
}

/// Sessions that hold what `e` needs, ignoring NOTs.
fn candidates(lookup: &dyn TermLookup, q: &Query, e: &Expr) -> Result<HashSet<DocId>, Fault> {
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
                    .map(|(i, w)| lookup.sessions_with(w, prefix && i == last)),
            )?
        }
        Expr::And(v) => in_all(v.iter().map(|e| candidates(lookup, q, e)))?,
        Expr::Or(v) => {
            let mut out = HashSet::default();
            for e in v {
                out.extend(candidates(lookup, q, e)?);
            }
            out
        }
        Expr::Not(a, _) => candidates(lookup, q, a)?,
    })
}

/// The sessions in every one of `sets` (none when there is no set).
fn in_all(
    sets: impl Iterator<Item = Result<HashSet<DocId>, Fault>>,
) -> Result<HashSet<DocId>, Fault> {
    let mut out: Option<HashSet<DocId>> = None;
    for set in sets {
        let set = set?;
        out = Some(match out {
            None => set,
            Some(o) => o.intersection(&set).copied().collect(),
        });
    }
    Ok(out.unwrap_or_default())
}
