//! The files sessions touched: from the index for the agents it serves (those without a search
//! engine of their own), else from the agents' sources, each session read and its touches
//! extracted as the index extracts them (`SessionTouches::of`), so both give the same.
use rayon::prelude::*;
use std::collections::HashSet;

use super::Storage;
use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::index;
pub use crate::index::touches::{request_line, SessionTouches, Touched};

impl Storage {
    /// The sessions of `agents` that touched a file `matches` accepts (`exact`: the one path
    /// asked for), each with those touches only.
    pub fn touched(
        &self,
        ctx: &Context,
        agents: &[&'static dyn Agent],
        exact: Option<&str>,
        matches: &(dyn Fn(&str) -> bool + Sync),
    ) -> Vec<Touched> {
        let (indexed, read): (Vec<&'static dyn Agent>, Vec<&'static dyn Agent>) =
            agents.iter().partition(|a| a.native_search().is_none());
        let mut to_read: Vec<(&'static dyn Agent, Source)> = (read.par_iter())
            .flat_map_iter(|&a| a.sources(ctx).into_iter().map(move |s| (a, s)))
            .collect();
        let mut out = Vec::new();
        match index::touched(ctx, &indexed, &self.watch, exact, matches) {
            Some(held) => {
                out = held.found;
                to_read.extend(held.changed);
            }
            None => to_read.extend(
                (indexed.par_iter())
                    .flat_map_iter(|&a| a.sources(ctx).into_iter().map(move |s| (a, s)))
                    .collect::<Vec<_>>(),
            ),
        }
        out.extend(
            to_read
                .par_iter()
                .flat_map_iter(|(a, src)| read_touched(ctx, *a, src, matches))
                .collect::<Vec<_>>(),
        );
        out
    }

    /// Every touch of the sessions of `agent` named in `ids` (the files a recap lists): from the
    /// index when it can be used, else read from the agent's sources.
    pub fn touches(
        &self,
        ctx: &Context,
        agent: &'static dyn Agent,
        ids: &HashSet<&str>,
    ) -> Vec<Touched> {
        if agent.native_search().is_none() {
            if let Some(v) = index::touches_of(ctx, agent, ids) {
                return v;
            }
        }
        (agent.sources(ctx).par_iter())
            .flat_map_iter(|src| {
                let sessions = agent.load_source(ctx, src).unwrap_or_default();
                sessions
                    .into_iter()
                    .filter(|s| ids.contains(s.summary.session_id.as_str()))
                    .map(|s| Touched {
                        agent: agent.name().to_string(),
                        touches: SessionTouches::of(agent.file_tools(), &s),
                        summary: s.summary,
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// The sessions of one source that touched a matching file, with those touches only. An
/// unreadable source has none (as a listing skips it).
fn read_touched(
    ctx: &Context,
    a: &'static dyn Agent,
    src: &Source,
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
            })
        })
        .collect()
}
