//! Archived sessions in the index: a kept session whose source is gone is served from a copy
//! restored by the storage layer (`storage::kept`), and that copy is indexed like a source, once,
//! in rows marked `archived` that hold only the sessions it serves. A search or a listing of a
//! home with many archived sessions then reads the index, not every copy.
//!
//! The kept store is the truth: `clear` and `rebuild` remove these rows with the rest, and the
//! next call that serves archived sessions writes them again from the copies. A copy no longer
//! served (its sessions forgotten, or served by a newer copy) loses its rows at the next sync.
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rusqlite::Connection;

use super::codec;
use super::store::Fault;
use super::sync::{self, Part, Served, Synced};
use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::model::SessionSummary;

/// A restored kept copy of a source of an agent, and the archived sessions it serves.
pub type KeptSource = (&'static dyn Agent, Source, HashSet<String>);

/// An agent's restored kept copies, each with the archived sessions it serves.
type Copies = Vec<(Source, HashSet<String>)>;

/// The copies the index holds for a search, and those it could not write (read by the search).
type ForSearch = (Vec<(&'static dyn Agent, Synced)>, Vec<KeptSource>);

/// Bring `part` of the archived rows of `a` up to date with `kept` (its restored copies, each
/// with the sessions it serves); rows of copies not in `kept` are dropped.
fn sync_kept(
    conn: &Connection,
    dir: &Path,
    ctx: &Context,
    a: &dyn Agent,
    kept: &[(Source, HashSet<String>)],
    part: Part,
) -> Result<Vec<Synced>, Fault> {
    let (sources, served): (Vec<Source>, Vec<Served>) = (kept.iter())
        .map(|(src, ids)| (src.clone(), Served::new(ids.clone())))
        .unzip();
    sync::sync_of(conn, dir, ctx, a, sources, part, Some(&served))
}

/// The summaries of `agent`'s archived sessions served by `kept`, as the index holds them (read
/// into it from the copies the first time), marked archived; with their `requests` when asked.
/// `None` when the index is off or unusable, or another process is writing it: the caller then
/// reads the copies.
pub fn summaries(
    ctx: &Context,
    agent: &dyn Agent,
    kept: &[(Source, HashSet<String>)],
    requests: bool,
) -> Option<Vec<SessionSummary>> {
    super::with_index(ctx, |dir, conn| {
        let synced = sync_kept(conn, dir, ctx, agent, kept, Part::Summaries)?;
        let mut st = conn.prepare_cached("SELECT summaries FROM source WHERE id = ?1")?;
        let mut out = Vec::new();
        for s in synced {
            let blob: Option<Vec<u8>> = st.query_row([s.id], |r| r.get(0))?;
            // An unreadable copy serves nothing (the storage layer reports it).
            let Some(blob) = blob else { continue };
            let v = codec::decode_summaries(&blob, requests)
                .map_err(|_| Fault::Broken("stored summaries do not decode".into()))?;
            out.extend(v.into_iter().map(|mut s| {
                s.archived = true;
                s
            }));
        }
        Ok(out)
    })
}

/// The documents of the restored copies `kept`, brought up to date for a search: the sources the
/// index holds, and the copies it could not write (another process holds the write lock),
/// which the search reads itself.
pub(super) fn for_search(
    conn: &Connection,
    dir: &Path,
    ctx: &Context,
    kept: &[KeptSource],
) -> Result<ForSearch, Fault> {
    let mut by_agent: BTreeMap<&str, (&'static dyn Agent, Copies)> = BTreeMap::new();
    for (a, src, ids) in kept {
        (by_agent
            .entry(a.name())
            .or_insert_with(|| (*a, Vec::new()))
            .1)
            .push((src.clone(), ids.clone()));
    }
    let (mut synced, mut left) = (Vec::new(), Vec::new());
    for (a, copies) in by_agent.into_values() {
        match sync_kept(conn, dir, ctx, a, &copies, Part::Documents) {
            Ok(v) => synced.extend(v.into_iter().map(|s| (a, s))),
            Err(Fault::Busy(_)) => {
                let served: Vec<Served> = (copies.iter())
                    .map(|(_, ids)| Served::new(ids.clone()))
                    .collect();
                let sources: Vec<Source> = copies.iter().map(|(s, _)| s.clone()).collect();
                let c = sync::compare(conn, a, &sources, Part::Documents, Some(&served))?;
                for ((source, ids), fresh) in copies.into_iter().zip(c.fresh) {
                    match fresh {
                        Some((id, sessions)) => synced.push((
                            a,
                            Synced {
                                source,
                                id,
                                sessions,
                            },
                        )),
                        None => left.push((a, source, ids)),
                    }
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok((synced, left))
}
