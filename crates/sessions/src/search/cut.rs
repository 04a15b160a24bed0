//! The cut of a search ranked by relevance alone (`indexed::Cut`), made on the matches before
//! any is made a summary: a word in every session matches thousands to return a few. From each
//! match's score, terms and head (`rank::Head`) alone it tells which of them `dedupe` and
//! `finish` can return, and which could rank high enough to need their side-by-side count.
use rustc_hash::FxHashSet;
use std::cmp::Ordering;

use super::hits::Beside;
use super::rank::Head;
use super::{best_of_each, Scale};
use crate::selection;

/// A match as the cut sees it.
#[derive(Debug, Clone, Copy)]
pub struct Ranked<'a> {
    pub head: Head<'a>,
    /// Its text score (the least it can be, while its side-by-side count is not known).
    pub score: f64,
    /// The most its score can be: `score` when it is known.
    pub most: f64,
    pub terms: usize,
    /// Its recency factor (`score::recency`).
    pub recency: f64,
}

/// The positions of the matches whose score may still rise (`most` above `score`) that could
/// rank among the first `limit`: take the best `limit` distinct sessions by their least score
/// times recency; the last one's is the floor. Those sessions score at least the floor, so a
/// match whose most is below it ranks after them however it is counted, and neither the order
/// of the first `limit` nor the best score (which scales every relevance) depends on it. Ties at
/// the floor are counted.
pub fn may_rise_into(matches: &[Ranked], limit: usize) -> Vec<usize> {
    let mut by_least: Vec<usize> = (0..matches.len()).collect();
    let least = |k: usize| matches[k].score * matches[k].recency;
    by_least.sort_unstable_by(|&a, &b| least(b).total_cmp(&least(a)));
    let mut seen: FxHashSet<(&str, &str)> = FxHashSet::default();
    let mut floor = f64::NEG_INFINITY;
    for k in by_least {
        if seen.insert(matches[k].head.0) && seen.len() == limit {
            floor = least(k);
            break;
        }
    }
    // A margin for the last bits of floating point: counting one more costs nothing.
    let floor = floor - floor.abs() * 1e-9;
    (0..matches.len())
        .filter(|&k| matches[k].most > matches[k].score)
        .filter(|&k| matches[k].most * matches[k].recency >= floor)
        .collect()
}

/// The positions (ascending) of the matches, their scores known, that ranking with `beside`
/// can return among the first `limit`, and of those that set its scale; the others would be
/// dropped by `dedupe` or cut by `finish`, and leaving them out changes neither.
///
/// - `dedupe` keeps one match per session, the best score (the first of equal ones): the
///   others are never returned.
/// - `finish` scales every relevance by the best weighted score and the best tiered one over
///   what `dedupe` kept and `beside`: the matches that hold those stay, and the scale is the
///   same.
/// - With that scale, the first `limit` of the kept matches in `finish`'s order stay. Whatever
///   `beside` holds, the first `limit` of all are among them and `beside`.
pub fn returnable(matches: &[Ranked], beside: &[Beside], limit: usize) -> Vec<usize> {
    let mut kept = best_of_each(matches.iter().map(|m| (m.head.0, m.score)));
    if kept.len() > limit {
        let weighted = |k: usize| matches[k].score * matches[k].recency;
        let scale = Scale::new(
            (kept.iter().map(|&k| (matches[k].terms, weighted(k)))).chain(beside.iter().copied()),
        );
        let mut relevance = vec![0.0; matches.len()];
        for &k in &kept {
            relevance[k] = scale.relevance(matches[k].terms, weighted(k));
        }
        let by = |&a: &usize, &b: &usize| {
            let (ha, hb) = (matches[a].head, matches[b].head);
            selection::by_relevance((relevance[a], ha.1), (relevance[b], hb.1), || {
                unified_order(ha.0, hb.0)
            })
        };
        let by_weighted = |a: &usize, b: &usize| weighted(*a).total_cmp(&weighted(*b));
        let tiered = |k: usize| scale.tiered(matches[k].terms, weighted(k));
        let by_tiered = |a: &usize, b: &usize| tiered(*a).total_cmp(&tiered(*b));
        let setters = [
            kept.iter().copied().max_by(by_weighted),
            kept.iter().copied().max_by(by_tiered),
        ];
        kept.select_nth_unstable_by(limit, by);
        kept.truncate(limit);
        kept.extend(setters.into_iter().flatten());
    }
    kept.sort_unstable();
    kept.dedup();
    kept
}

/// The order of two unified ids given as their agent and session id (`ids::unified_id` joins
/// them with a colon), without joining them.
fn unified_order(a: (&str, &str), b: (&str, &str)) -> Ordering {
    fn bytes<'a>((agent, id): (&'a str, &'a str)) -> impl Iterator<Item = u8> + 'a {
        (agent.bytes())
            .chain(std::iter::once(b':'))
            .chain(id.bytes())
    }
    bytes(a).cmp(bytes(b))
}
