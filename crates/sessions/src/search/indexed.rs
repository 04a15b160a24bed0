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

use super::cut::{self, Ranked};
use super::hits::{Beside, CompletedHit, Hit, HitSource, PendingSummary};
use super::rank::{rank, rank_in, take_in_order, Examined, Matched, ReadSession};
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
    fn hits(
        &self,
        q: &Query,
        summary: PendingSummary,
        beside: &[Beside],
    ) -> Result<Vec<Hit>, Fault> {
        let later = self.cut.is_some() && adjacency_leaf(q).is_some();
        // Matches that are cut, and made summaries of their heads, need no more of the index.
        let heads = self.cut.is_some() && summary == PendingSummary::Head;
        let found = self.lookup.find(q, later, self.among, heads)?;
        let (counted, unsure): (Vec<FoundDoc>, Vec<FoundDoc>) =
            found.into_iter().partition(|f| f.counts.is_some());
        let mut read = from_counts(q, counted);
        read.extend(by_analysis(self.lookup, q, &unsure)?);
        let mut examined = examined(self.ctx, q, self.lookup.sources(), read, self.kept);
        let corpus = match self.cut {
            Some(cut) => Some(cut_matches(self.lookup, q, cut, beside, &mut examined)?),
            None => None,
        };
        // Of the hits the cut left, those whose snippet is left for later: a word in every
        // session matches thousands, the cut keeps a few.
        let fields = (examined.iter().flat_map(|e| &e.read))
            .filter(|r| r.hit.is_some())
            .filter_map(|r| Some((r.later? as DocId, snippet_field(q, &r.stats.tf)?)))
            .collect();
        *self
            .snippet_fields
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = fields;
        match corpus {
            Some(corpus) => rank_in(q, &corpus, examined, summary),
            None => rank(q, examined.into_iter(), summary),
        }
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

/// The sessions of the sources searched, as ranking takes them: each run of indexed sources
/// (in scan order) one `Examined`, their sessions `read` source after source, each source's in
/// doc order; a changed source scanned; the kept sources after them. A broad word finds a session
/// in each of tens of thousands of sources: one list for a run, not one for each source.
fn examined(
    ctx: &Context,
    q: &Query,
    sources: &[Searched],
    read: Vec<(DocId, SourceId, ReadSession)>,
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
    let mut read = in_scan_order(sources, read).peekable();
    let none = || Examined {
        documents: 0,
        read: Vec::new(),
    };
    let mut out = Vec::new();
    let mut run = none();
    for (place, (s, scanned)) in sources.iter().zip(scanned).enumerate() {
        match (s, scanned) {
            (Searched::Indexed(_, sessions), _) => {
                run.documents += Corpus::documents_of(*sessions);
                while let Some((_, r)) = read.next_if(|(p, _)| *p == place) {
                    run.read.push(r);
                }
            }
            (Searched::Changed(..), scanned) => {
                if run.documents > 0 {
                    out.push(std::mem::replace(&mut run, none()));
                }
                out.push(scanned.expect("scanned above"));
            }
        }
    }
    if run.documents > 0 {
        out.push(run);
    }
    out.extend(
        (kept.par_iter())
            .map(|(a, src, ids)| scan::examined(ctx, *a, src, &matcher, Some(ids)))
            .collect::<Vec<_>>(),
    );
    out
}

/// The cut (`Cut`), made on the matches before any is made a summary, in one list of them: the
/// side-by-side counts `find` left for later, of the matches that may rank among the first
/// `cut.limit` (`cut::may_rise_into`: the others' stay 0, and those are never returned); then
/// the matches ranking cannot return (`cut::returnable`) are hits no longer, and are never made
/// summaries. The corpus statistics it ranked by, which the cut leaves as they were.
fn cut_matches(
    lookup: &dyn TermLookup,
    q: &Query,
    cut: Cut,
    beside: &[Beside],
    examined: &mut [Examined],
) -> Result<Corpus, Fault> {
    let corpus = Corpus::of(q, examined);
    let (counted, kept) = {
        // Each match's place and what the cut knows of it.
        let mut places: Vec<(usize, usize)> = Vec::new();
        let mut matches: Vec<Ranked> = Vec::new();
        for (i, e) in examined.iter().enumerate() {
            for (j, r) in e.read.iter().enumerate() {
                let Some(hit) = &r.hit else {
                    continue;
                };
                let head = hit.head()?;
                let (score, most) = corpus.bounds(q, &r.stats, r.adjacent_at.is_some());
                places.push((i, j));
                matches.push(Ranked {
                    head,
                    score,
                    most,
                    terms: r.stats.terms(q),
                    recency: recency(head.1, cut.now),
                });
            }
        }
        let rise = cut::may_rise_into(&matches, cut.limit);
        let at: Vec<At> = (rise.iter())
            .filter_map(|&k| examined[places[k].0].read[places[k].1].adjacent_at)
            .collect();
        let counts = lookup.side_by_side(q, &at)?;
        let mut counted = Vec::with_capacity(rise.len());
        for (&k, n) in rise.iter().zip(counts) {
            let (i, j) = places[k];
            let mut stats = examined[i].read[j].stats.clone();
            stats.adjacent_tf = n;
            matches[k].score = corpus.score(q, &stats);
            counted.push(((i, j), n));
        }
        let kept: Vec<(usize, usize)> = (cut::returnable(&matches, beside, cut.limit).into_iter())
            .map(|k| places[k])
            .collect();
        (counted, kept)
    };
    for ((i, j), n) in counted {
        let r = &mut examined[i].read[j];
        r.stats.adjacent_tf = n;
        r.adjacent_at = None;
    }
    // `kept` is in place order, as the matches are visited.
    let mut kept = kept.into_iter().peekable();
    for (i, e) in examined.iter_mut().enumerate() {
        for (j, r) in e.read.iter_mut().enumerate() {
            if r.hit.is_some() && kept.next_if_eq(&(i, j)).is_none() {
                r.hit = None;
            }
        }
    }
    Ok(corpus)
}

/// The statistics of the sessions the postings counted, with the stored summaries of those
/// that match. Their snippets are left for later.
fn from_counts(q: &Query, docs: Vec<FoundDoc>) -> Vec<(DocId, SourceId, ReadSession)> {
    docs.into_iter()
        .map(|d| {
            let counts = d.counts.expect("counted");
            let stats = Stats {
                tf: counts.tf,
                adjacent_tf: counts.adjacent,
                lengths: d.lengths,
                snippet: None,
            };
            let hit = (d.may_hit && stats.matches(q)).then_some(Matched::Stored(d.summary));
            let read = ReadSession {
                stats,
                hit,
                later: Some(d.id as u64),
                adjacent_at: d.adjacent_at,
            };
            (d.id, d.source, read)
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

/// `(doc id, source, session)` as `(place, session)`, its source's place among `sources`, in
/// scan order: by place, then doc id. A session of a source not searched is left out. The order
/// is found on the numbers alone and each session moved once: sessions are large, and a word in
/// every session makes thousands of them.
fn in_scan_order(
    sources: &[Searched],
    read: Vec<(DocId, SourceId, ReadSession)>,
) -> impl Iterator<Item = (usize, ReadSession)> {
    let places: HashMap<SourceId, u32> = (sources.iter().enumerate())
        .filter_map(|(place, s)| match s {
            Searched::Indexed(id, _) => Some((*id, place as u32)),
            Searched::Changed(..) => None,
        })
        .collect();
    let mut order: Vec<(u32, DocId, u32)> = (read.iter().enumerate())
        .filter_map(|(i, (doc, source, _))| Some((*places.get(source)?, *doc, i as u32)))
        .collect();
    order.sort_unstable();
    let at: Vec<usize> = order.iter().map(|o| o.0 as usize).collect();
    at.into_iter()
        .zip(take_in_order(read, order.into_iter().map(|o| o.2 as usize)))
        .map(|(place, (_, _, r))| (place, r))
}
