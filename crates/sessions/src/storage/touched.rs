//! The files sessions touched: from the index (which holds the touches of every agent's
//! sessions, those of an agent searched by its own engine included), else from the agents'
//! sources, each session read and its touches extracted as the index extracts them
//! (`SessionTouches::of`), so both give the same. Archived sessions are read from their restored
//! kept copies, by the index or here.
use rayon::prelude::*;
use std::collections::HashSet;

use super::{CallSources, Storage};
use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::index;
use crate::index::archived::KeptSource;
pub use crate::index::touches::{request_line, Cut, Read, SessionTouches, Touched};

/// A source to read for its touches: a live one, or a restored kept copy with the archived
/// sessions it serves (only those are read of it).
type ToRead = (&'static dyn Agent, Source, Option<HashSet<String>>);

impl Storage {
    /// The sessions of `agents` that touched a file `matches` accepts (`exact`: the one path
    /// asked for), each with those touches only; archived sessions included. `listed`: the
    /// sources as the call listed them (`Storage::listing`). With the index's generation, when
    /// it answered: the documents (`Touched::doc`) are those it numbers. `read`: what the index
    /// reads of each (the sessions read from their sources are whole).
    pub fn touched(
        &self,
        ctx: &Context,
        agents: &[&'static dyn Agent],
        listed: &CallSources,
        exact: Option<&str>,
        matches: &(dyn Fn(&str) -> bool + Sync),
        read: Read,
    ) -> (Vec<Touched>, Option<u64>) {
        let kept: Vec<KeptSource> = (agents.iter())
            .flat_map(|&a| {
                (self.archived_sources(ctx, a, listed).into_iter())
                    .map(move |(src, ids)| (a, src, ids))
            })
            .collect();
        let live = |(a, src): (&'static dyn Agent, Source)| (a, src, None);
        let copy = |(a, src, ids): KeptSource| (a, src, Some(ids));
        let mut generation = None;
        let (mut out, to_read): (Vec<Touched>, Vec<ToRead>) = match index::touched(
            ctx,
            agents,
            // Moved, not copied: thousands of sources (listed again in the rare fall-back).
            listed.of_all(agents),
            &self.watch,
            &kept,
            exact,
            matches,
            read,
        ) {
            Some(held) => {
                generation = Some(held.generation);
                let changed = held.changed.into_iter().map(live);
                (
                    held.found,
                    changed.chain(held.kept.into_iter().map(copy)).collect(),
                )
            }
            None => {
                let sources =
                    (listed.of_all(agents)).unwrap_or_else(|| self.watch.sources_of(ctx, agents));
                let all = (agents.iter().zip(sources))
                    .flat_map(|(&a, v)| v.into_iter().map(move |s| (a, s)))
                    .map(live);
                (Vec::new(), all.chain(kept.into_iter().map(copy)).collect())
            }
        };
        out.extend(
            to_read
                .par_iter()
                .flat_map_iter(|(a, src, only)| read_touched(ctx, *a, src, only.as_ref(), matches))
                .collect::<Vec<_>>(),
        );
        (out, generation)
    }

    /// The touches `keep` accepts of the sessions of `agent` named in `ids` (the files a recap
    /// lists): from the index when it can be used, else read from the agent's sources; of each
    /// summary, its ids and dates at least (`SessionSummary::new`). `listed`: the call's
    /// listing, when it made one (the recap's).
    pub fn touches(
        &self,
        ctx: &Context,
        agent: &'static dyn Agent,
        ids: &HashSet<&str>,
        listed: &CallSources,
        keep: &(dyn Fn(&crate::model::Touch) -> bool + Sync),
    ) -> Vec<Touched> {
        let sources = (listed.of(agent).cloned()).unwrap_or_else(|| self.watch.sources(ctx, agent));
        if let Some(v) = index::touches_of(ctx, agent, ids, sources.clone(), keep) {
            return v;
        }
        (sources.par_iter())
            .flat_map_iter(|src| {
                let sessions = agent.load_source(ctx, src).unwrap_or_default();
                sessions
                    .into_iter()
                    .filter(|s| ids.contains(s.summary.session_id.as_str()))
                    .map(|s| {
                        let mut touches = SessionTouches::of(agent.file_tools(), &s);
                        touches.touches.retain(|t| keep(t));
                        Touched {
                            agent: agent.name().to_string(),
                            touches,
                            summary: s.summary,
                            doc: None,
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// The sessions of one source (of a kept copy, those of `only`) that touched a matching file,
/// with those touches only. An unreadable source has none (as a listing skips it).
fn read_touched(
    ctx: &Context,
    a: &'static dyn Agent,
    src: &Source,
    only: Option<&HashSet<String>>,
    matches: &(dyn Fn(&str) -> bool + Sync),
) -> Vec<Touched> {
    let tools = a.file_tools();
    if tools.is_empty() {
        return Vec::new();
    }
    let Ok(sessions) = a.load_source(ctx, src) else {
        return Vec::new();
    };
    sessions
        .into_iter()
        .filter(|s| only.is_none_or(|ids| ids.contains(&s.summary.session_id)))
        .filter_map(|s| {
            let mut touches = crate::agents::touches::of_session(tools, &s);
            touches.retain(|t| matches(&t.path));
            if touches.is_empty() {
                return None;
            }
            let requests = crate::index::touches::requests_of(&s, &touches);
            Some(Touched {
                agent: a.name().to_string(),
                summary: s.summary,
                touches: SessionTouches { touches, requests },
                doc: None,
            })
        })
        .collect()
}
