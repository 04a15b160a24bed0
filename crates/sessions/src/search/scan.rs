//! The scan: every source of the agents searched, read through them in parallel. A source whose
//! raw bytes cannot match is dropped without parsing; the others are parsed by their adapter and
//! matched.
use rayon::prelude::*;
use std::collections::HashSet;

use super::hits::{Beside, CompletedHit, Hit, HitSource, PendingSummary};
use super::rank::{rank, Examined, ReadSession};
use super::score::{analyse, Matcher};
use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::query::byte_filter::ByteFilter;
use crate::query::parse::Query;
use crate::query::prefilter::{Mask, Prefilter};
use crate::read::page_cache::install_for;
use crate::storage::Fault;

/// The agents' own sources, read: every hit complete.
pub struct Scan<'a> {
    pub ctx: &'a Context,
    pub agents: &'a [&'static dyn Agent],
    /// Restored copies of kept sources whose sessions are gone from the agents', read beside
    /// them: only the sessions named with each, marked archived.
    pub kept: &'a [Kept],
}

/// A kept source restored by the storage layer, and the archived sessions it serves.
pub type Kept = (&'static dyn Agent, Source, HashSet<String>);

impl HitSource for Scan<'_> {
    fn hits(&self, q: &Query, _: PendingSummary, _: &[Beside]) -> Result<Vec<Hit>, Fault> {
        scan(self.ctx, self.agents, self.kept, q)
    }

    /// The scan leaves no hit pending: there is nothing to complete.
    fn complete_pending(&self, _: &Query, _: &[u64]) -> Result<Vec<CompletedHit>, Fault> {
        Ok(Vec::new())
    }
}

enum Outcome {
    /// Dropped by the prefilter unread.
    Dropped,
    /// Parsed: every parsed session's statistics and the summaries of those that match, and the
    /// needles of sessions a database adapter dropped without building them.
    Parsed(Vec<ReadSession>, Vec<Mask>),
    /// Unreadable: skipped, as list skips it.
    Failed,
}

/// Needles in a source's file and its side files (a Claude session's subagent transcripts, a
/// Copilot workspace file), which all feed its sessions; `None` when unreadable.
fn file_mask(src: &Source, pf: &Prefilter) -> Option<Mask> {
    let mut mask = pf.scan_file(&src.path).ok()?;
    for side in &src.side_files {
        if mask == pf.all() {
            break;
        }
        mask |= match pf.scan_text_file(side) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(_) => return None,
        };
    }
    Some(mask)
}

fn examine(
    ctx: &Context,
    a: &dyn Agent,
    src: &Source,
    m: &Matcher,
    only: Option<&HashSet<String>>,
) -> Outcome {
    let (q, pf) = (m.query(), m.prefilter());
    let filter = ByteFilter::new(pf, q);
    let support = a.search_support();
    let sessions = match support.and_then(|s| s.load_matching(ctx, src, &filter)) {
        Some(Ok(v)) => v,
        Some(Err(_)) => return Outcome::Failed,
        None => {
            match file_mask(src, pf) {
                Some(mask) if !pf.could_match(q, mask) => return Outcome::Dropped,
                Some(_) => {}
                None => return Outcome::Failed,
            }
            let needle_free = |text: &str| m.needle_free(text);
            let read = support.and_then(|s| s.load_for_search(ctx, src, &needle_free));
            let Ok(v) = read.unwrap_or_else(|| a.load_source(ctx, src)) else {
                return Outcome::Failed;
            };
            v
        }
    };
    let v = sessions
        .into_iter()
        .filter(|s| only.is_none_or(|ids| ids.contains(&s.summary.session_id)))
        .map(|s| {
            let st = analyse(m, &s);
            let hit = st.matches(q).then(|| {
                let mut summary = Box::new(s.summary);
                summary.unified_id = crate::ids::unified_id(a.name(), &summary.session_id);
                summary.archived = only.is_some();
                summary
            });
            ReadSession::analysed(st, hit)
        })
        .collect();
    Outcome::Parsed(v, filter.into_dropped())
}

/// Search the sources of `agents`.
fn scan(
    ctx: &Context,
    agents: &[&'static dyn Agent],
    kept: &[Kept],
    q: &Query,
) -> Result<Vec<Hit>, Fault> {
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    let mut work: Vec<(&'static dyn Agent, Source, Option<&HashSet<String>>)> = agents
        .par_iter()
        .flat_map_iter(|&a| a.sources(ctx).into_iter().map(move |s| (a, s, None)))
        .collect();
    work.extend(kept.iter().map(|(a, s, ids)| (*a, s.clone(), Some(ids))));
    // Largest first: a huge session started last would keep one core busy after the rest end.
    work.sort_by_key(|(_, s, _)| std::cmp::Reverse(s.stamps.iter().map(|t| t.size).sum::<u64>()));
    let outcomes: Vec<Outcome> =
        install_for(work.iter().map(|(_, src, _)| src.path.as_path()), || {
            work.par_iter()
                .map(|(a, src, only)| examine(ctx, *a, src, &matcher, *only))
                .collect()
        });
    // Every summary was read whole with its session.
    rank(
        q,
        outcomes.into_iter().map(Outcome::examined),
        PendingSummary::Whole,
    )
}

/// One source of `a` read and matched, as ranking takes it; `only`: a kept source's archived
/// sessions, the others it holds left out.
pub(super) fn examined(
    ctx: &Context,
    a: &dyn Agent,
    src: &Source,
    m: &Matcher,
    only: Option<&HashSet<String>>,
) -> Examined {
    examine(ctx, a, src, m, only).examined()
}

impl Outcome {
    fn examined(self) -> Examined {
        match self {
            Outcome::Dropped | Outcome::Failed => Examined::source(0, Vec::new()),
            Outcome::Parsed(read, dropped) => Examined::source(read.len() + dropped.len(), read),
        }
    }
}
