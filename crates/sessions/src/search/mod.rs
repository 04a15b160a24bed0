//! Cross-agent full-text search (spec 6.3): one query language, one scoring function, no index.
//!
//! - `query`: Hermes' query language and sanitiser; `text`: folding and tokens.
//! - `prefilter`: raw-byte test that drops files which cannot match, before any JSON parsing.
//! - `raw`: the prefilter as database adapters use it, session by session.
//! - `scan`: every candidate source of the file-based agents, in parallel.
//! - `score`: matching one session, BM25-style scoring, snippets (`snippet`).
//! - `hermes`: Hermes' own FTS5 search, reached through `Agent::native_search`.
use std::collections::{HashMap, HashSet};

use crate::agents::Agent;
use crate::context::Context;
use crate::list;
use crate::model::SessionSummary;
use crate::options::{SearchQuery, SearchSort};

pub mod caseless;
pub mod corpus;
pub mod hermes;
pub mod prefilter;
pub mod query;
pub mod raw;
pub mod scan;
pub mod score;
pub mod snippet;
pub mod text;

#[cfg(test)]
mod tests;

pub use query::Query;
pub use raw::RawFilter;

/// A session found by an agent's own search engine.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeHit {
    /// The id to report first, then other ids of the same logical session (a compression
    /// continuation's own id): the first one the agent lists is used.
    pub session_ids: Vec<String>,
    /// Higher is better, on the BM25 scale (so it normalises with the file engine's scores).
    pub raw_score: f64,
    pub match_count: u64,
    pub snippet: Option<String>,
    /// The best matching row, when its snippet is left to `Agent::native_snippets` (made only
    /// for the results returned).
    pub snippet_row: Option<i64>,
}

/// The agent that makes a natively found result's snippet, and the row it is made from.
type SnippetFrom = (&'static dyn Agent, i64);

/// A result before normalisation: a summary (priced), its raw score, and the row whose snippet
/// its agent makes if the result is returned.
struct Found {
    summary: SessionSummary,
    raw: f64,
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
    let mut found: Vec<Found> = Vec::new();
    let mut scanned: Vec<&'static dyn Agent> = Vec::new();
    for &a in targets {
        match a.native_search(ctx, &query) {
            None => scanned.push(a),
            Some(Ok(hits)) => found.extend(join_native(a, hits, summaries_of, early)),
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
            raw: h.raw,
            snippet_from: None,
        });
    }
    found.retain(|f| list::matches(&f.summary, &q.filters));
    let found = finish(dedupe(found), q);
    let mut out = with_native_snippets(ctx, &query, found);
    if !price_early {
        price(&mut out);
    }
    out
}

/// Fill in the snippets natively found results left to their agent, one call per agent.
fn with_native_snippets(
    ctx: &Context,
    query: &Query,
    found: Vec<(SessionSummary, Option<SnippetFrom>)>,
) -> Vec<SessionSummary> {
    let mut out: Vec<SessionSummary> = Vec::with_capacity(found.len());
    // Per agent: (result index, row) of each snippet it owes.
    type Owed = Vec<(usize, i64)>;
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
        let ids: Vec<i64> = rows.iter().map(|r| r.1).collect();
        for ((i, _), snippet) in rows.iter().zip(a.native_snippets(ctx, query, &ids)) {
            out[*i].snippet = snippet;
        }
    }
    out
}

fn join_native(
    a: &'static dyn Agent,
    hits: Vec<NativeHit>,
    summaries_of: &SummariesOf,
    price: &dyn Fn(&mut [SessionSummary]),
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
                raw: h.raw_score,
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
            .then(b.raw.total_cmp(&a.raw))
    });
    v.dedup_by(|later, first| later.summary.unified_id == first.summary.unified_id);
    v
}

/// Normalise scores to 0..1 (the best result is 1), sort, cut.
fn finish(found: Vec<Found>, q: &SearchQuery) -> Vec<(SessionSummary, Option<SnippetFrom>)> {
    let max = found.iter().map(|f| f.raw).fold(0.0_f64, f64::max);
    let mut out: Vec<(SessionSummary, Option<SnippetFrom>)> = found
        .into_iter()
        .map(|f| {
            let mut s = f.summary;
            let score = if max > 0.0 { f.raw / max } else { 1.0 };
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
