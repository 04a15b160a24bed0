//! Cross-agent full-text search (spec 6.3): one query language, one scoring function, no index.
//!
//! - `query`: Hermes' query language and sanitiser; `text`: folding and tokens.
//! - `prefilter`: raw-byte test that drops files which cannot match, before any JSON parsing.
//! - `byte_filter`: the prefilter as database adapters use it, session by session.
//! - `scan`: every candidate source of the file-based agents, in parallel.
//! - `score`: matching one session, BM25-style scoring, snippets (`snippet`).
//!
//! The query language, prefilter and snippets live in `crate::query`, below the agents, so an
//! agent can answer part of a search itself (`Agent::search_support`: Hermes' FTS5, the
//! databases' raw-text filter) without importing this engine.
use std::collections::{HashMap, HashSet};

use crate::agents::Agent;
use crate::context::Context;
use crate::list;
use crate::model::{SessionSummary, Timestamp};
use crate::options::{SearchQuery, SearchSort};

pub mod corpus;
pub mod scan;
pub mod score;

#[cfg(test)]
mod tests;

pub use crate::query::{ByteFilter, NativeHit, Query, StoreRow};

/// The agent that makes a natively found result's snippet, and the row it is made from.
type SnippetFrom = (&'static dyn Agent, StoreRow);

/// A result before normalisation: a summary (priced), its text score before normalisation, how many of the
/// query's terms it holds, and the row whose snippet its agent makes if the result is returned.
struct Found {
    summary: SessionSummary,
    score: f64,
    terms: usize,
    snippet_from: Option<SnippetFrom>,
}

/// An agent's summaries (unpriced, as `list` reads them) of the sessions with the given ids.
pub type SummariesOf<'a> = dyn Fn(&dyn Agent, &HashSet<&str>) -> Vec<SessionSummary> + Sync + 'a;

/// The file engine a search runs on (`scan::scan`, or the index that gives the same hits).
pub type Files<'a> = dyn Fn(&Context, &[&'static dyn Agent], &Query) -> Vec<scan::FileHit> + 'a;

/// Run `q` over `targets`. `summaries_of` reports natively searched sessions (only the hits are
/// copied and priced, not a whole store); `price` prices and tags summaries; `files` finds the
/// hits of the agents without a native search.
pub fn run(
    ctx: &Context,
    targets: &[&'static dyn Agent],
    q: &SearchQuery,
    summaries_of: &SummariesOf,
    price: &dyn Fn(&mut [SessionSummary]),
    files: &Files,
) -> Vec<SessionSummary> {
    let Some(query) = Query::parse(&q.text) else {
        return Vec::new();
    };
    if q.limit == 0 {
        return Vec::new();
    }
    // Prices and run-index tags matter before the cut only to sort by cost or filter by tag;
    // otherwise only the results returned are priced.
    let price_early =
        q.sort == SearchSort::Cost || q.filters.tags.as_ref().is_some_and(|t| !t.is_empty());
    let no_price = |_: &mut [SessionSummary]| {};
    let early: &dyn Fn(&mut [SessionSummary]) = if price_early { price } else { &no_price };
    let terms = query.positive.iter().filter(|&&p| p).count();
    let mut found: Vec<Found> = Vec::new();
    let mut scanned: Vec<&'static dyn Agent> = Vec::new();
    for &a in targets {
        match a
            .search_support()
            .and_then(|s| s.native_search(ctx, &query))
        {
            None => scanned.push(a),
            // A native engine reports no coverage: its hits count as holding every term.
            Some(Ok(hits)) => found.extend(join_native(a, hits, summaries_of, early, terms)),
            // An unreadable store is skipped, as list skips it.
            Some(Err(_)) => {}
        }
    }
    let mut from_files = files(ctx, &scanned, &query);
    let mut summaries: Vec<SessionSummary> = from_files.iter().map(|h| h.summary.clone()).collect();
    early(&mut summaries);
    for (h, s) in from_files.drain(..).zip(summaries) {
        found.push(Found {
            summary: s,
            score: h.score,
            terms: h.terms,
            snippet_from: None,
        });
    }
    found.retain(|f| list::matches(&f.summary, &q.filters));
    let found = finish(dedupe(found), q, ctx.env.now());
    let mut out = with_native_snippets(&query, found);
    if !price_early {
        price(&mut out);
    }
    out
}

/// Fill in the snippets natively found results left to their agent, one call per agent.
fn with_native_snippets(
    query: &Query,
    found: Vec<(SessionSummary, Option<SnippetFrom>)>,
) -> Vec<SessionSummary> {
    let mut out: Vec<SessionSummary> = Vec::with_capacity(found.len());
    // Per agent: (result index, row) of each snippet it owes.
    type Owed = Vec<(usize, StoreRow)>;
    let mut pending: Vec<(&'static dyn Agent, Owed)> = Vec::new();
    for (i, (summary, from)) in found.into_iter().enumerate() {
        if let Some((a, row)) = from {
            match pending.iter_mut().find(|(p, _)| p.name() == a.name()) {
                Some((_, rows)) => rows.push((i, row)),
                None => pending.push((a, vec![(i, row)])),
            }
        }
        out.push(summary);
    }
    for (a, rows) in pending {
        let Some(support) = a.search_support() else {
            continue;
        };
        let (at, rows): (Vec<usize>, Vec<StoreRow>) = rows.into_iter().unzip();
        for (i, snippet) in at.into_iter().zip(support.native_snippets(query, &rows)) {
            out[i].snippet = snippet;
        }
    }
    out
}

fn join_native(
    a: &'static dyn Agent,
    hits: Vec<NativeHit>,
    summaries_of: &SummariesOf,
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
    let mut some = summaries_of(a, &ids);
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
                summary,
                score: h.score,
                terms,
                snippet_from: h.snippet_row.map(|row| (a, row)),
            })
        })
        .collect()
}

/// One result per session (a session seen in two sources, or two hits joined to the same
/// listed session): the best score wins.
fn dedupe(mut v: Vec<Found>) -> Vec<Found> {
    v.sort_by(|a, b| {
        a.summary
            .unified_id
            .cmp(&b.summary.unified_id)
            .then(b.score.total_cmp(&a.score))
    });
    v.dedup_by(|later, first| later.summary.unified_id == first.summary.unified_id);
    v
}

/// Rank and cut. A result's relevance: coverage first (more of the query's terms), then its
/// text score times its recency at `now` (when not known: the newest result's time), scaled so
/// the best result is 1. Coverage tiers stack: a result holding `t` terms scores within
/// (t - 1, t], so any result with more terms ranks above every result with fewer.
fn finish(
    found: Vec<Found>,
    q: &SearchQuery,
    now: Option<Timestamp>,
) -> Vec<(SessionSummary, Option<SnippetFrom>)> {
    let Some(now) = now.or_else(|| found.iter().map(|f| f.summary.updated_at).max()) else {
        return Vec::new();
    };
    let weighted: Vec<f64> = found
        .iter()
        .map(|f| f.score * score::recency(f.summary.updated_at, now))
        .collect();
    let max = weighted.iter().copied().fold(0.0_f64, f64::max);
    let tiered: Vec<f64> = found
        .iter()
        .zip(&weighted)
        .map(|(f, w)| {
            let within = if max > 0.0 { w / max } else { 1.0 };
            f.terms.max(1) as f64 - 1.0 + within
        })
        .collect();
    let top = tiered.iter().copied().fold(0.0_f64, f64::max);
    let mut out: Vec<(SessionSummary, Option<SnippetFrom>)> = found
        .into_iter()
        .zip(tiered)
        .map(|(f, t)| {
            let mut s = f.summary;
            let score = if top > 0.0 { t / top } else { 1.0 };
            // Rounded so equal scores compare equal whatever the summation order.
            s.relevance_score = Some((score * 1e9).round() / 1e9);
            (s, f.snippet_from)
        })
        .collect();
    sort_by_key(&mut out, q.sort, |(s, _)| s);
    out.truncate(q.limit);
    out
}

fn cost(s: &SessionSummary) -> f64 {
    s.cost.as_ref().map(|c| c.total_usd).unwrap_or(0.0)
}

/// Relevance: best first, newer first on ties. Date: newest activity first. Cost: dearest first.
/// Every order ends on the unified id, so it is the same on every call.
pub fn sort(v: &mut [SessionSummary], by: SearchSort) {
    sort_by_key(v, by, |s| s);
}

fn sort_by_key<T>(v: &mut [T], by: SearchSort, key: impl Fn(&T) -> &SessionSummary) {
    let score = |s: &SessionSummary| s.relevance_score.unwrap_or(0.0);
    v.sort_by(|a, b| {
        let (a, b) = (key(a), key(b));
        let primary = match by {
            SearchSort::Relevance => score(b).total_cmp(&score(a)),
            SearchSort::Date => b.updated_at.cmp(&a.updated_at),
            SearchSort::Cost => cost(b).total_cmp(&cost(a)),
        };
        primary
            .then_with(|| score(b).total_cmp(&score(a)))
            .then_with(|| b.updated_at.cmp(&a.updated_at))
            .then_with(|| a.unified_id.cmp(&b.unified_id))
    });
}
