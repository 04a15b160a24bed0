//! Finding hits from the index (`TermLookup`), so that a search reads no source but for its
//! results: the index tells, from its postings, which sessions may match and how often each leaf
//! occurs in each field, phrases, CJK text and words side by side included. The sessions it
//! cannot tell (see `index::postings::lookup`) are read and analysed as the scan does; the
//! results returned are read for their snippets (`HitSource::complete_pending`).
//!
//! Sources another process changed and has not indexed yet are scanned. Either way the ranking
//! the scan ends in (`rank`) scores them, so scores, snippets and counts are the scan's.
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use super::hits::{CompletedHit, Hit, HitSource, PendingSummary};
use super::rank::{rank, take_in_order, Examined, ReadSession};
use super::scan;
use super::score::{analyse, Matcher, Stats};
use crate::context::Context;
use crate::query::parse::Query;
use crate::query::prefilter::Prefilter;
use crate::storage::{DocId, Fault, FoundDoc, Searched, SourceId, TermLookup};

/// The index's sessions, looked up by the terms they hold.
pub struct Indexed<'a> {
    pub ctx: &'a Context,
    pub lookup: &'a dyn TermLookup,
    /// Restored copies of kept sources whose sessions are gone from the agents' (and so from the
    /// index): scanned and ranked with the index's sessions, against one corpus.
    pub kept: &'a [scan::Kept],
}

impl HitSource for Indexed<'_> {
    fn hits(&self, q: &Query, summary: PendingSummary) -> Result<Vec<Hit>, Fault> {
        let found = self.lookup.find(q)?;
        let (counted, unsure): (Vec<FoundDoc>, Vec<FoundDoc>) =
            found.into_iter().partition(|f| f.counts.is_some());
        let mut read = from_counts(q, counted, summary)?;
        read.extend(by_analysis(self.lookup, q, &unsure)?);
        let examined = examined(
            self.ctx,
            q,
            self.lookup.sources(),
            by_source(read),
            self.kept,
        );
        Ok(rank(q, examined.into_iter()))
    }

    /// The sessions of hits left pending by `from_counts`, read and analysed.
    fn complete_pending(&self, q: &Query, keys: &[u64]) -> Result<Vec<CompletedHit>, Fault> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<DocId> = keys.iter().map(|&k| k as DocId).collect();
        let pf = Prefilter::new(q);
        let matcher = Matcher::new(q, &pf);
        let docs = self
            .lookup
            .sessions(&ids, &|text: &str| matcher.needle_free(text))?;
        Ok(docs
            .into_par_iter()
            .map(|d| {
                let st = analyse(&matcher, &d.session);
                CompletedHit {
                    snippet: st.snippet,
                    summary: d.session.summary,
                }
            })
            .collect())
    }
}

/// Per source searched, its sessions read (in doc order), as ranking takes them; a changed
/// source scanned, and the kept sources after them.
fn examined(
    ctx: &Context,
    q: &Query,
    sources: &[Searched],
    mut read: BySource,
    kept: &[scan::Kept],
) -> Vec<Examined> {
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    let scanned: Vec<Option<Examined>> = sources
        .par_iter()
        .map(|s| match s {
            Searched::Changed(a, src) => Some(scan::examined(ctx, *a, src, &matcher, None)),
            Searched::Indexed(..) => None,
        })
        .collect();
    sources
        .iter()
        .zip(scanned)
        .map(|(s, scanned)| match (s, scanned) {
            (Searched::Indexed(id, sessions), _) => Examined {
                sessions: *sessions,
                read: read.remove(id).unwrap_or_default(),
            },
            (Searched::Changed(..), scanned) => scanned.expect("scanned above"),
        })
        .chain(
            (kept.par_iter())
                .map(|(a, src, ids)| scan::examined(ctx, *a, src, &matcher, Some(ids)))
                .collect::<Vec<_>>(),
        )
        .collect()
}

/// Sessions of the sources searched, per source, in doc id order.
type BySource = HashMap<SourceId, Vec<ReadSession>>;

/// The statistics of the sessions the postings counted; the summaries of those that match as
/// much as `summary` asks. Their snippets are left for later.
///
/// On the calling thread: a summary is a small decode, and one made on another thread is freed
/// on this one (by the cut), which costs more than the decode saves in parallel.
fn from_counts(
    q: &Query,
    docs: Vec<FoundDoc>,
    summary: PendingSummary,
) -> Result<Vec<(DocId, SourceId, ReadSession)>, Fault> {
    docs.into_iter()
        .map(|mut d| {
            let counts = d.counts.take().expect("counted");
            let stats = Stats {
                tf: counts.tf,
                adjacent_tf: counts.adjacent,
                lengths: d.lengths,
                snippet: None,
            };
            let hit = match (stats.matches(q), summary) {
                (false, _) => None,
                (true, PendingSummary::Whole) => Some(Box::new(d.summary()?)),
                (true, PendingSummary::Head) => Some(Box::new(d.summary_head()?)),
            };
            let read = ReadSession {
                stats,
                hit,
                later: Some(d.id as u64),
            };
            Ok((d.id, d.source, read))
        })
        .collect()
}

/// The sessions only a read can tell, read and analysed.
fn by_analysis(
    lookup: &dyn TermLookup,
    q: &Query,
    docs: &[FoundDoc],
) -> Result<Vec<(DocId, SourceId, ReadSession)>, Fault> {
    if docs.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<DocId> = docs.iter().map(|d| d.id).collect();
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    let read = lookup.sessions(&ids, &|text: &str| matcher.needle_free(text))?;
    Ok(read
        .into_par_iter()
        .map(|d| {
            let st = analyse(&matcher, &d.session);
            let hit = st.matches(q).then(|| Box::new(d.session.summary));
            (d.id, d.source, ReadSession::analysed(st, hit))
        })
        .collect())
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
