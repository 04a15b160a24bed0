//! Cross-agent full-text search (spec 6.3): one query language, one scoring function, whichever
//! way the hits are found.
//!
//! - An agent with a search engine of its own (`NativeSearch`: Hermes' FTS5) answers its part,
//!   joined to its summaries from the storage layer.
//! - The other agents' hits come from the documents the storage layer hands out (`Documents`):
//!   the index's term lookup (`indexed`) or the agents' sources, scanned (`scan`), both behind
//!   `hits::HitSource` and both ranked by `rank` with the statistics of `score` and `corpus`.
//! - Then every hit is filtered, de-duplicated, ranked by coverage, score and recency, and cut;
//!   a hit the index found from counts alone is completed (snippet, side-by-side count) only
//!   where the cut needs it.
//!
//! The query language, prefilter, fields and snippets live in `crate::query`, below the agents,
//! so an agent can answer part of a search itself (`Agent::search_support`) without importing
//! this engine.
use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use crate::agents::Agent;
use crate::context::Context;
use crate::model::{SessionSummary, Timestamp};
use crate::options::{SearchQuery, SearchSort};
use crate::read::project::Projects;
use crate::selection;
use crate::storage::{CallSources, Documents, Fault, Storage};

pub mod corpus;
pub mod cut;
pub mod hits;
pub mod indexed;
pub mod rank;
pub mod scan;
pub mod score;

#[cfg(test)]
mod tests;

use hits::{HitSource, Pending, PendingSummary};
use rank::take_in_order;

pub use crate::query::{ByteFilter, NativeHit, Query, StoreRow};

/// The agent that makes a natively found result's snippet, and the row it is made from.
type SnippetFrom = (&'static dyn Agent, StoreRow);

/// A result before normalisation: a summary (priced), its text score before normalisation, how many of the
/// query's terms it holds, the row whose snippet its agent makes if the result is returned, and
/// what a hit the index found from counts alone still needs (its snippet).
struct Found {
    /// Boxed: dedupe and the ranking move thousands of results (a summary is hundreds of bytes).
    summary: Box<SessionSummary>,
    score: f64,
    terms: usize,
    snippet_from: Option<SnippetFrom>,
    pending: Option<Pending>,
}

/// Run `q` over `targets`. `storage` gives the summaries of natively found sessions (only the
/// hits are copied and priced, not a whole store) and the documents the other agents' hits are
/// found in; `price` prices and tags summaries. `listed`: the sources as the call listed them
/// (`Storage::listing`), else listed here.
pub fn run(
    ctx: &Context,
    storage: &Storage,
    targets: &[&'static dyn Agent],
    q: &SearchQuery,
    price: &dyn Fn(&mut [SessionSummary]),
    listed: Option<CallSources>,
) -> Vec<SessionSummary> {
    let Some(mut query) = Query::parse(&q.text) else {
        return Vec::new();
    };
    query.redact = q.redact == Some(true);
    if q.limit == 0 {
        return Vec::new();
    }
    let (native, documented): (Vec<&'static dyn Agent>, Vec<&'static dyn Agent>) =
        targets.iter().partition(|a| a.native_search().is_some());
    // The sources listed for the kept store serve the rest of the call.
    let listed = listed.unwrap_or_else(|| storage.keep_changed(ctx, targets));
    // Kept sessions whose source is gone, read from their restored copies beside the others
    // (those of an agent with a search engine of its own are searched by it: `run_on`).
    let kept: Vec<scan::Kept> = (documented.iter())
        .flat_map(|&a| {
            (storage.archived_sources(ctx, a, &listed).into_iter())
                .map(move |(src, ids)| (a, src, ids))
        })
        .collect();
    // The storage layer's documents, best first: a fault in the index sends the search on to
    // the agents' own.
    for documents in storage.documents(ctx, &documented, &kept, &listed) {
        let indexed;
        let hits: &dyn HitSource = match &documents {
            // The index holds the kept copies of the agents it serves; the rest are read.
            Documents::Indexed(lookup, unindexed) => {
                indexed = indexed::Indexed {
                    ctx,
                    lookup: lookup.as_ref(),
                    kept: unindexed,
                    cut: cut_by_score(ctx, q),
                    among: q.only_docs.as_deref(),
                    snippet_fields: Default::default(),
                };
                &indexed
            }
            Documents::Agents(agents) => &scan::Scan {
                ctx,
                agents,
                kept: &kept,
            },
        };
        if q.cancel.is_cancelled() {
            break;
        }
        let listed = &listed;
        if let Ok(found) = run_on(ctx, storage, &native, hits, q, &query, price, listed) {
            return found;
        }
    }
    Vec::new()
}

/// The cut a search's results go to when their score alone decides it: ranked by relevance,
/// no filter, its time known (recency is taken from it).
fn cut_by_score(ctx: &Context, q: &SearchQuery) -> Option<indexed::Cut> {
    let plain = q.sort == SearchSort::Relevance
        && q.filters == crate::options::Filters::default()
        && q.only.is_none();
    let now = ctx.env.now().filter(|_| plain)?;
    Some(indexed::Cut {
        limit: q.limit,
        now,
    })
}

/// `run` with the other agents' hits found by `hit_source`; `Err` when the index it reads
/// failed midway. `listed`: the sources the call listed for the kept store.
#[allow(clippy::too_many_arguments)]
fn run_on(
    ctx: &Context,
    storage: &Storage,
    native: &[&'static dyn Agent],
    hit_source: &dyn HitSource,
    q: &SearchQuery,
    query: &Query,
    price: &dyn Fn(&mut [SessionSummary]),
    listed: &CallSources,
) -> Result<Vec<SessionSummary>, Fault> {
    // Only the results returned are priced, unless the cut needs prices.
    let price_early = selection::priced_before_cut(&q.filters, q.sort == SearchSort::Cost);
    let no_price = |_: &mut [SessionSummary]| {};
    let early: &dyn Fn(&mut [SessionSummary]) = if price_early { price } else { &no_price };
    let pending = match price_early || selection::looks_past_dates(&q.filters) {
        true => PendingSummary::Whole,
        false => PendingSummary::Head,
    };
    let terms = query.positive.iter().filter(|&&p| p).count();
    let mut found: Vec<Found> = Vec::new();
    for &a in native {
        let Some(engine) = a.native_search() else {
            continue;
        };
        // An unreadable store is skipped, as list skips it.
        if let Ok(hits) = engine.search(ctx, query) {
            // A native engine reports no coverage: its hits count as holding every term.
            let summaries_of = |ids: &HashSet<&str>| storage.summaries_with_ids(ctx, a, ids);
            found.extend(join_native(a, hits, &summaries_of, early, terms));
        }
        // Its archived sessions, by the same engine over their restored copies: scored as they
        // were while their source held them.
        for (kept, ids) in storage.archived_contexts(ctx, a, listed) {
            let Ok(mut hits) = engine.search(&kept, query) else {
                continue;
            };
            hits.retain(|h| h.session_ids.iter().any(|id| ids.contains(id)));
            let summaries_of = |want: &HashSet<&str>| {
                let mut v = storage.archived_with_ids(ctx, a, want, listed);
                v.retain(|s| ids.contains(&s.session_id));
                v
            };
            found.extend(join_native(a, hits, &summaries_of, early, terms));
        }
    }
    // A caller that gave the search up (`SearchQuery::cancel`) gets nothing, checked between
    // the stages that take time: the lookup, the ranking, the reads for the snippets.
    if q.cancel.is_cancelled() {
        return Ok(Vec::new());
    }
    // The natively found results `dedupe` keeps (no other source finds their sessions), as the
    // ranking's scale takes them: with them, a source that returns only the matches the cut can
    // return ranks those as it would rank them all.
    let beside = match ctx.env.now() {
        Some(now) => beside(&found, now),
        None => Vec::new(),
    };
    let (summaries, hits): (Vec<Box<SessionSummary>>, Vec<_>) = hit_source
        .hits(query, pending, &beside)?
        .into_iter()
        .map(|h| (h.summary, (h.score, h.terms, h.pending)))
        .unzip();
    let summaries = match price_early {
        false => summaries,
        true => {
            // Out of their boxes (moved, not copied: a word in every session makes thousands)
            // to be priced together.
            let mut plain: Vec<SessionSummary> = summaries.into_iter().map(|b| *b).collect();
            price(&mut plain);
            plain.into_iter().map(Box::new).collect()
        }
    };
    found.reserve(hits.len());
    for (summary, (score, terms, pending)) in summaries.into_iter().zip(hits) {
        found.push(Found {
            summary,
            score,
            terms,
            snippet_from: None,
            pending,
        });
    }
    // The scan path's summaries come without the project the index stores.
    let mut projects = Projects::default();
    projects.fill(found.iter_mut().map(|f| &mut *f.summary));
    found.retain(|f| selection::matches(&f.summary, &q.filters));
    if let Some(only) = &q.only {
        found.retain(|f| {
            only.contains(&crate::ids::unified_id(
                &f.summary.agent,
                &f.summary.session_id,
            ))
        });
    }
    let found = dedupe(found);
    let recency = recencies(&found, ctx.env.now());
    let mut found = finish(found, &recency, q);
    if q.cancel.is_cancelled() {
        return Ok(Vec::new());
    }
    // Only the results returned are read for their snippets.
    let left: Vec<usize> = (0..found.len())
        .filter(|&i| found[i].pending.is_some())
        .collect();
    complete_hits(&mut found, &left, query, hit_source, pending)?;
    let mut out = with_native_snippets(query, found);
    projects.fill(out.iter_mut());
    if !price_early {
        price(&mut out);
    }
    Ok(out)
}

/// Complete the pending hits at `at`: their snippet, and (from a head) their summary.
fn complete_hits(
    found: &mut [Found],
    at: &[usize],
    query: &Query,
    hit_source: &dyn HitSource,
    pending: PendingSummary,
) -> Result<(), Fault> {
    if at.is_empty() {
        return Ok(());
    }
    let keys: Vec<u64> = at
        .iter()
        .filter_map(|&i| found[i].pending.map(|p| p.key))
        .collect();
    let done = hit_source.complete_pending(query, &keys)?;
    if done.len() != at.len() {
        return Err(Fault::Unusable(
            "pending hits were not all completed".into(),
        ));
    }
    for (&i, done) in at.iter().zip(done) {
        let f = &mut found[i];
        f.pending = None;
        if pending == PendingSummary::Head {
            // What ranking has set so far stays.
            let head = std::mem::replace(&mut *f.summary, done.summary);
            f.summary.match_count = head.match_count;
            f.summary.relevance_score = head.relevance_score;
        }
        f.summary.snippet = done.snippet;
    }
    Ok(())
}

/// How weighted scores become relevances (`finish`): each is divided by the best, and coverage
/// tiers stack, then all are scaled so the best result is 1.
struct Scale {
    max: f64,
    top: f64,
}

impl Scale {
    /// From each hit's score as it stands, times its recency.
    fn of(found: &[Found], recency: &[f64]) -> Scale {
        Scale::new((found.iter().zip(recency)).map(|(f, r)| (f.terms, f.score * r)))
    }

    /// From each hit's terms and weighted score (its score times its recency).
    fn new(hits: impl Iterator<Item = (usize, f64)> + Clone) -> Scale {
        let max = hits.clone().map(|(_, w)| w).fold(0.0_f64, f64::max);
        let mut scale = Scale { max, top: 1.0 };
        scale.top = hits
            .map(|(terms, w)| scale.tiered(terms, w))
            .fold(0.0_f64, f64::max);
        scale
    }

    fn tiered(&self, terms: usize, weighted: f64) -> f64 {
        let within = if self.max > 0.0 {
            weighted / self.max
        } else {
            1.0
        };
        terms.max(1) as f64 - 1.0 + within
    }

    fn relevance(&self, terms: usize, weighted: f64) -> f64 {
        let t = self.tiered(terms, weighted);
        let score = if self.top > 0.0 { t / self.top } else { 1.0 };
        // Rounded so equal scores compare equal whatever the summation order.
        (score * 1e9).round() / 1e9
    }
}

/// Fill in the snippets natively found results left to their agent, one call per agent.
fn with_native_snippets(query: &Query, found: Vec<Found>) -> Vec<SessionSummary> {
    let mut out: Vec<SessionSummary> = Vec::with_capacity(found.len());
    // Per agent: (result index, row) of each snippet it owes.
    type Owed = Vec<(usize, StoreRow)>;
    let mut pending: Vec<(&'static dyn Agent, Owed)> = Vec::new();
    for (
        i,
        Found {
            summary,
            snippet_from,
            ..
        },
    ) in found.into_iter().enumerate()
    {
        if let Some((a, row)) = snippet_from {
            match pending.iter_mut().find(|(p, _)| p.name() == a.name()) {
                Some((_, rows)) => rows.push((i, row)),
                None => pending.push((a, vec![(i, row)])),
            }
        }
        out.push(*summary);
    }
    for (a, rows) in pending {
        let Some(native) = a.native_search() else {
            continue;
        };
        let (at, rows): (Vec<usize>, Vec<StoreRow>) = rows.into_iter().unzip();
        for (i, snippet) in at.into_iter().zip(native.snippets(query, &rows)) {
            out[i].snippet = snippet;
        }
    }
    out
}

fn join_native(
    a: &'static dyn Agent,
    hits: Vec<NativeHit>,
    summaries_of: &dyn Fn(&HashSet<&str>) -> Vec<SessionSummary>,
    price: &dyn Fn(&mut [SessionSummary]),
    terms: usize,
) -> Vec<Found> {
    if hits.is_empty() {
        return Vec::new();
    }
    let ids: HashSet<&str> = hits
        .iter()
        .flat_map(|h| h.session_ids.iter().map(String::as_str))
        .collect();
    let mut some = summaries_of(&ids);
    price(&mut some);
    let by_id: HashMap<&str, &SessionSummary> =
        some.iter().map(|s| (s.session_id.as_str(), s)).collect();
    hits.into_iter()
        .filter_map(|h| {
            let s = h.session_ids.iter().find_map(|id| by_id.get(id.as_str()))?;
            let mut summary = (*s).clone();
            summary.snippet = h.snippet;
            summary.match_count = Some(h.match_count);
            Some(Found {
                summary: Box::new(summary),
                score: h.score,
                terms,
                snippet_from: h.snippet_row.map(|row| (a, row)),
                pending: None,
            })
        })
        .collect()
}

/// One result per session (a session seen in two sources, or two hits joined to the same
/// listed session): the best score wins, the first of equal ones.
fn dedupe(v: Vec<Found>) -> Vec<Found> {
    let kept = best_per_session(&v);
    if kept.len() == v.len() {
        return v;
    }
    take_in_order(v, kept)
}

/// The positions (ascending) of the results `dedupe` keeps.
fn best_per_session(v: &[Found]) -> Vec<usize> {
    best_of_each(v.iter().map(|f| (f.summary.unified_id.as_str(), f.score)))
}

/// The positions (ascending) of the best-scored item of each key, the first of equal ones: one
/// result per session, as `dedupe` keeps them. Found by hashing, not sorting: a word in every
/// session makes thousands of results, seldom two of one session.
pub(super) fn best_of_each<K: Eq + std::hash::Hash>(
    items: impl ExactSizeIterator<Item = (K, f64)>,
) -> Vec<usize> {
    let mut best: FxHashMap<K, (usize, f64)> = FxHashMap::default();
    best.reserve(items.len());
    for (i, (key, score)) in items.enumerate() {
        match best.entry(key) {
            Entry::Vacant(e) => {
                e.insert((i, score));
            }
            Entry::Occupied(mut e) => {
                if score.total_cmp(&e.get().1).is_gt() {
                    e.insert((i, score));
                }
            }
        }
    }
    let mut kept: Vec<usize> = best.into_values().map(|(i, _)| i).collect();
    kept.sort_unstable();
    kept
}

/// What `finish` scales relevances by of the results `found` (those `dedupe` keeps), ranked at
/// `now`: their terms and weighted scores.
fn beside(found: &[Found], now: Timestamp) -> Vec<hits::Beside> {
    (best_per_session(found).into_iter())
        .map(|i| &found[i])
        .map(|f| (f.terms, f.score * score::recency(f.summary.updated_at, now)))
        .collect()
}

/// Each result's recency factor at `now` (when not known: the newest result's time).
fn recencies(found: &[Found], now: Option<Timestamp>) -> Vec<f64> {
    let Some(now) = now.or_else(|| found.iter().map(|f| f.summary.updated_at).max()) else {
        return Vec::new(); // no result
    };
    found
        .iter()
        .map(|f| score::recency(f.summary.updated_at, now))
        .collect()
}

/// Rank and cut. A result's relevance: coverage first (more of the query's terms), then its
/// text score times its recency (`recencies`), scaled so the best result is 1. Coverage tiers
/// stack: a result holding `t` terms scores within (t - 1, t], so any result with more terms
/// ranks above every result with fewer.
fn finish(mut found: Vec<Found>, recency: &[f64], q: &SearchQuery) -> Vec<Found> {
    let scale = Scale::of(&found, recency);
    for (f, r) in found.iter_mut().zip(recency) {
        f.summary.relevance_score = Some(scale.relevance(f.terms, f.score * r));
    }
    // The order ends on the unified id, unique here: the first `limit` of it are found without
    // sorting the rest.
    let mut order: Vec<usize> = (0..found.len()).collect();
    let by = |&a: &usize, &b: &usize| {
        selection::search_order(&found[a].summary, &found[b].summary, q.sort)
    };
    if order.len() > q.limit {
        order.select_nth_unstable_by(q.limit, by);
        order.truncate(q.limit);
    }
    order.sort_unstable_by(by);
    take_in_order(found, order)
}
