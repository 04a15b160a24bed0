//! Finding hits from the index (`TermLookup`), so that a search reads no source but for its
//! results: the index tells, from its postings, which sessions may match and how often each leaf
//! occurs in each field, phrases, CJK text and words side by side included. The sessions it
//! cannot tell (see `index::postings::lookup`) are read and analysed as the scan does; the
//! results returned are read for their snippets (`HitSource::complete_pending`).
//!
//! Sources another process changed and has not indexed yet are scanned. Either way the ranking
//! the scan ends in (`rank`) scores them, so scores, snippets and counts are the scan's.
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::hits::{CompletedHit, Hit, HitSource, PendingSummary};
use super::rank::{rank, take_in_order, Examined, ReadSession};
use super::scan;
use super::score::{
    adjacency_leaf, analyse, recency, snippet, snippet_field, Corpus, Matcher, Stats,
};
use crate::context::Context;
use crate::model::Timestamp;
use crate::options::OnlyDocs;
use crate::query::fields::Field;
use crate::query::parse::Query;
use crate::query::prefilter::Prefilter;
use crate::storage::{At, DocId, Fault, FoundDoc, ReadDoc, Searched, SourceId, TermLookup};

/// The index's sessions, looked up by the terms they hold.
pub struct Indexed<'a> {
    pub ctx: &'a Context,
    pub lookup: &'a dyn TermLookup,
    /// Restored copies of kept sources whose sessions are gone from the agents' (and so from the
    /// index): scanned and ranked with the index's sessions, against one corpus.
    pub kept: &'a [scan::Kept],
    /// The cut the results go to, when nothing but their score decides it (`Cut`).
    pub cut: Option<Cut>,
    /// The only documents that may be hits (`file:`), found in the same index.
    pub among: Option<&'a OnlyDocs>,
    /// Of the hits `hits` left pending, the field their counts say their snippet is in
    /// (`score::snippet_field`), where they tell.
    pub snippet_fields: std::sync::Mutex<HashMap<DocId, Field>>,
}

/// Results ranked by score alone, no filter, at most `limit` of them, their recency taken at
/// `now`: then a session that cannot rank among the first `limit` needs no side-by-side count.
#[derive(Debug, Clone, Copy)]
pub struct Cut {
    pub limit: usize,
    pub now: Timestamp,
}

impl HitSource for Indexed<'_> {
    fn hits(&self, q: &Query, summary: PendingSummary) -> Result<Vec<Hit>, Fault> {
        let later = self.cut.is_some() && adjacency_leaf(q).is_some();
        let found = self.lookup.find(q, later, self.among)?;
        let (counted, unsure): (Vec<FoundDoc>, Vec<FoundDoc>) =
            found.into_iter().partition(|f| f.counts.is_some());
        let mut read = from_counts(q, counted, summary)?;
        let fields = (read.iter())
            .filter(|(_, _, r)| r.hit.is_some())
            .filter_map(|(id, _, r)| Some((*id, snippet_field(q, &r.stats.tf)?)))
            .collect();
        *self
            .snippet_fields
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = fields;
        read.extend(by_analysis(self.lookup, q, &unsure)?);
        let mut examined = examined(
            self.ctx,
            q,
            self.lookup.sources(),
            by_source(read),
            self.kept,
        );
        if let (Some(cut), true) = (self.cut, later) {
            count_side_by_side(self.lookup, q, cut, &mut examined)?;
        }
        Ok(rank(q, examined.into_iter()))
    }

    /// The sessions of hits left pending by `from_counts`, read for their snippets. A session
    /// whose snippet is in the conversation (`snippet_field`) is read for that field's texts
    /// alone where its agent can; one whose snippet is in another field before the tool outputs
    /// is read without any tool output. Either is matched in that field alone.
    fn complete_pending(&self, q: &Query, keys: &[u64]) -> Result<Vec<CompletedHit>, Fault> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let fields = self
            .snippet_fields
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let field_of = |k: u64| fields.get(&(k as DocId)).copied();
        let pf = Prefilter::new(q);
        let matcher = Matcher::for_snippets(q, &pf);
        let completed = |docs: Vec<ReadDoc>| -> Vec<CompletedHit> {
            docs.into_par_iter()
                .map(|d| CompletedHit {
                    snippet: snippet(&matcher, &d.session, field_of(d.id as u64)),
                    summary: d.session.summary,
                })
                .collect()
        };
        let how = |k: &u64| match field_of(*k) {
            Some(Field::Conversation) => Reading::Conversation,
            Some(f) if f != Field::ToolOutput => Reading::WithoutOutputs,
            _ => Reading::Whole,
        };
        let ids = |r: Reading| -> Vec<DocId> {
            (keys.iter())
                .filter(|k| how(k) == r)
                .map(|&k| k as DocId)
                .collect()
        };
        let mut conversation = completed(
            self.lookup
                .field_texts(&ids(Reading::Conversation), Field::Conversation)?,
        )
        .into_iter();
        let mut narrow = completed(
            self.lookup
                .sessions(&ids(Reading::WithoutOutputs), &|_: &str| true)?,
        )
        .into_iter();
        let mut whole = completed(self.lookup.sessions(&ids(Reading::Whole), &|text: &str| {
            matcher.needle_free(text)
        })?)
        .into_iter();
        keys.iter()
            .map(|k| match how(k) {
                Reading::Conversation => conversation.next(),
                Reading::WithoutOutputs => narrow.next(),
                Reading::Whole => whole.next(),
            })
            .map(|d| d.ok_or_else(|| Fault::Unusable("a pending hit was not read".into())))
            .collect()
    }
}

/// How a pending hit's session is read for its snippet (`Indexed::complete_pending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Conversation,
    WithoutOutputs,
    Whole,
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

/// The side-by-side counts `find` left for later, of the matching sessions that may rank among
/// the first `cut.limit`; the others' stay 0, and those sessions are never returned.
///
/// Every match's score lies between its bounds (`Corpus::bounds`), times its recency. Take the
/// best `limit` distinct sessions by their least score: the last one's is the floor. Those
/// `limit` sessions score at least the floor, so a session whose most is below it ranks after
/// them (and after them still with its count left at 0), and the ranking and the best score
/// (which scales every relevance) are those the full counts give; every other session gets its
/// count. Ties at the floor are counted.
fn count_side_by_side(
    lookup: &dyn TermLookup,
    q: &Query,
    cut: Cut,
    examined: &mut [Examined],
) -> Result<(), Fault> {
    let corpus = Corpus::of(q, examined);
    let need: Vec<(usize, usize)> = {
        // Each match's least and most score, its session and its place.
        let mut matches: Vec<(f64, f64, &str, (usize, usize))> = Vec::new();
        for (i, e) in examined.iter().enumerate() {
            for (j, r) in e.read.iter().enumerate() {
                let Some(hit) = &r.hit else {
                    continue;
                };
                let recency = recency(hit.updated_at, cut.now);
                let (least, most) = corpus.bounds(q, &r.stats, r.adjacent_at.is_some());
                let at = (i, j);
                matches.push((least * recency, most * recency, &hit.unified_id, at));
            }
        }
        let mut by_least: Vec<usize> = (0..matches.len()).collect();
        by_least.sort_unstable_by(|&a, &b| matches[b].0.total_cmp(&matches[a].0));
        let mut seen: HashSet<&str> = HashSet::default();
        let mut floor = f64::NEG_INFINITY;
        for k in by_least {
            if seen.insert(matches[k].2) && seen.len() == cut.limit {
                floor = matches[k].0;
                break;
            }
        }
        // A margin for the last bits of floating point: counting one more costs nothing.
        let floor = floor - floor.abs() * 1e-9;
        (matches.iter())
            .filter(|m| m.1 >= floor)
            .map(|m| m.3)
            .filter(|&(i, j)| examined[i].read[j].adjacent_at.is_some())
            .collect()
    };
    let at: Vec<At> = (need.iter())
        .filter_map(|&(i, j)| examined[i].read[j].adjacent_at)
        .collect();
    let counts = lookup.side_by_side(q, &at)?;
    for ((i, j), n) in need.into_iter().zip(counts) {
        let r = &mut examined[i].read[j];
        r.stats.adjacent_tf = n;
        r.adjacent_at = None;
    }
    Ok(())
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
            let hit = match (d.may_hit && stats.matches(q), summary) {
                (false, _) => None,
                (true, PendingSummary::Whole) => Some(Box::new(d.summary()?)),
                (true, PendingSummary::Head) => Some(Box::new(d.summary_head()?)),
            };
            let read = ReadSession {
                stats,
                hit,
                later: Some(d.id as u64),
                adjacent_at: d.adjacent_at,
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
    // Read for the corpus statistics alone, those that may not be hits.
    let may_hit: HashSet<DocId> = (docs.iter()).filter(|d| d.may_hit).map(|d| d.id).collect();
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    let read = lookup.sessions(&ids, &|text: &str| matcher.needle_free(text))?;
    Ok(read
        .into_par_iter()
        .map(|d| {
            let st = analyse(&matcher, &d.session);
            let hit =
                (may_hit.contains(&d.id) && st.matches(q)).then(|| Box::new(d.session.summary));
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
