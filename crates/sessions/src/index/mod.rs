//! The persistent index: what `list`, `totalCost` and `search` need, kept in our cache directory
//! and brought up to date by every call that uses it, so a new process answers without reading
//! every store again, and never differently from a full read.
//!
//! - `dir`: where it lives; `store`: the SQLite file (WAL, busy timeout, format check): sources,
//!   their stamps and summaries, and each searchable session's summary and field lengths;
//! - `postings`: the index of terms (tantivy): which sessions hold a term, how often, where;
//! - `sync`: compares each source with what was recorded, re-reads the changed, drops the gone;
//! - `reading`: reads a changed source (of a database of many sessions, the changed sessions);
//! - `codec`: the stored summaries and lengths;
//! - `listed`: the summaries a client last listed, kept while their sources are unchanged;
//! - `lookup`: what a search asks of it (`TermLookup`), from one snapshot;
//! - `watch`: a long-lived client's sources, from what the OS's file events said changed.
//!
//! Part of the storage layer, beneath the engines: it uses only the `Agent` trait and what
//! `query` counts, and no agent knows it exists. Every fault (no directory, a full disk, a
//! damaged or foreign file, another process holding it too long) is reported as `None` or a
//! `Fault`, and the storage layer then reads the stores as if there were no index; a damaged file
//! is removed so the next call rebuilds it.
use rusqlite::{Connection, OptionalExtension};
use rustc_hash::FxHashMap as HashMap;
use std::path::PathBuf;

use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::model::SessionSummary;

pub mod archived;
pub mod codec;
pub mod dir;
pub mod listed;
pub mod lookup;
pub mod postings;
mod reading;
pub mod store;
pub mod sync;
pub mod touches;
pub mod watch;

pub use listed::Listed;
pub use lookup::Snapshot;
use postings::Postings;
use store::Fault;
use sync::Part;
pub use watch::{Watch, WatchStatus};

/// The index of this call's cache directory, opened; `None` when there is none or it cannot be
/// opened.
fn open(ctx: &Context) -> Option<(PathBuf, Connection)> {
    let dir = dir::resolve(ctx)?;
    match store::open(&dir) {
        Ok(conn) => Some((dir, conn)),
        Err(fault) => usable(&dir, Err(fault)),
    }
}

/// The value, or `None` after a fault (`removed_if_broken`).
fn usable<T>(dir: &std::path::Path, result: Result<T, Fault>) -> Option<T> {
    removed_if_broken(dir, result).ok()
}

/// A damaged or foreign index is removed as soon as a fault shows it, so the next call builds it
/// afresh; any other fault leaves it as it is.
fn removed_if_broken<T>(dir: &std::path::Path, result: Result<T, Fault>) -> Result<T, Fault> {
    if let Err(Fault::Broken(_)) = &result {
        let _ = store::remove(dir);
    }
    result
}

/// Run `f` on the index of this call's cache directory; `None` when there is none or it cannot
/// be used (the caller then reads the stores).
fn with_index<T>(
    ctx: &Context,
    f: impl FnOnce(&std::path::Path, &Connection) -> Result<T, Fault>,
) -> Option<T> {
    let (dir, conn) = open(ctx)?;
    let result = f(&dir, &conn);
    // Not after a fault: a busy file would make the call wait out the timeout a second time.
    if result.is_ok() {
        store::to_wal(&conn);
    }
    usable(&dir, result)
}

/// The searchable documents of `agents` read from one snapshot; `None` when the index is off or
/// cannot be used. With `write`, the sources changed since the index was written are written
/// first; without it, or while another process writes the index, the snapshot holds what was
/// committed and the changed sources are left to be scanned (`Snapshot::left_changes`).
/// The restored copies `kept` are written first either way (they change only when a session is
/// archived): returned are those another process writing the index kept out, to be scanned.
/// `listed`: each agent's sources as this call already listed them, else listed here.
pub fn snapshot(
    ctx: &Context,
    agents: &[&'static dyn Agent],
    write: bool,
    watch: &Watch,
    kept: &[archived::KeptSource],
    listed: Option<Vec<Vec<Source>>>,
) -> Option<(Snapshot, Vec<archived::KeptSource>)> {
    let (dir, conn) = open(ctx)?;
    let snapshot = (|| {
        // Every agent's sources listed at once (stat calls, mostly waiting), then compared.
        let listed: Vec<Vec<Source>> = listed.unwrap_or_else(|| watch.sources_of(ctx, agents));
        let (mut synced, mut changed, mut gone) = (Vec::new(), Vec::new(), 0);
        for (a, listed) in agents.iter().zip(listed) {
            let written = match write {
                true => sync::sync_sources(&conn, &dir, ctx, *a, listed.clone(), Part::Documents),
                false => Err(Fault::Busy("left for later".into())),
            };
            match written {
                Ok(v) => synced.extend(v.into_iter().map(|s| (*a, s))),
                Err(Fault::Busy(_)) => {
                    let held = sync::unsynced(&conn, *a, listed)?;
                    synced.extend(held.fresh.into_iter().map(|s| (*a, s)));
                    changed.extend(held.changed.into_iter().map(|s| (*a, s)));
                    gone += held.gone;
                }
                Err(e) => return Err(e),
            }
        }
        let (archived, left) = match kept.is_empty() {
            true => (Vec::new(), Vec::new()),
            false => archived::for_search(&conn, &dir, ctx, kept)?,
        };
        store::to_wal(&conn);
        let postings = Postings::open(&postings::path_in(&dir, store::FORMAT))?;
        same_generation(&conn, &postings)?;
        // One snapshot for every lookup of the search, whatever other processes write.
        conn.execute_batch("BEGIN")?;
        let found = (synced, archived, changed, gone);
        Snapshot::new(ctx, dir.clone(), conn, postings, found).map(|s| (s, left))
    })();
    usable(&dir, snapshot)
}

/// Bring the searchable documents of `agents` up to date. Another process writing the index is
/// waited for when `wait`, else left to do it (`Some(false)`); `None` when the index is off or
/// unusable.
pub fn update(ctx: &Context, agents: &[&'static dyn Agent], wait: bool) -> Option<bool> {
    let once = || write_parts(ctx, &[(agents, Part::Documents)]);
    match wait {
        true => once_free(once).map(|_| true),
        false => once(),
    }
}

/// `update` of sources already listed, each with its agent (`amux index update` lists every
/// agent's once, for the index and the kept store).
pub fn update_listed(
    ctx: &Context,
    listed: &[(&'static dyn Agent, Vec<Source>)],
    wait: bool,
) -> Option<bool> {
    let once = || {
        with_index(ctx, |dir, conn| {
            for (a, sources) in listed {
                match sync::sync_sources(conn, dir, ctx, *a, sources.clone(), Part::Documents) {
                    Ok(_) => {}
                    Err(Fault::Busy(_)) => return Ok(false),
                    Err(e) => return Err(e),
                }
            }
            Ok(true)
        })
    };
    match wait {
        true => once_free(once).map(|_| true),
        false => once(),
    }
}

/// Bring each part of its agents up to date; `Some(false)` when another process writing the
/// index refuses it, `None` when the index is off or unusable.
fn write_parts(ctx: &Context, parts: &[(&[&'static dyn Agent], Part)]) -> Option<bool> {
    with_index(ctx, |dir, conn| {
        for (agents, part) in parts {
            for a in *agents {
                match sync::sync(conn, dir, ctx, *a, *part) {
                    Ok(_) => {}
                    Err(Fault::Busy(_)) => return Ok(false),
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(true)
    })
}

/// Run `write` again while another process writing the index refuses it (`Some(false)`);
/// `None` when the index is off or unusable.
fn once_free(mut write: impl FnMut() -> Option<bool>) -> Option<()> {
    loop {
        if write()? {
            return Some(());
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// Whether no process writes the index of `ctx` now: the SQLite file's write lock and the
/// postings' are both free.
fn writers_idle(ctx: &Context) -> Option<bool> {
    with_index(ctx, |dir, conn| {
        match sync::immediate(conn, |_| Ok::<_, Fault>(())) {
            Err(Fault::Busy(_)) => return Ok(false),
            other => other?,
        }
        let postings = Postings::open(&postings::path_in(dir, store::FORMAT))?;
        match postings.writer(postings::Budget::update(), false) {
            Ok(_) => Ok(true),
            Err(Fault::Busy(_)) => Ok(false),
            Err(e) => Err(e),
        }
    })
}

/// The postings and the SQLite file are of one generation, or damaged: when they differ, the
/// file's write lock is taken (another process may be between its two commits) and they are
/// compared again.
fn same_generation(conn: &Connection, postings: &Postings) -> Result<(), Fault> {
    if postings.generation()? == sync::generation(conn)? {
        return Ok(());
    }
    sync::immediate(conn, |tx| {
        match postings.generation()? == sync::generation(tx)? {
            true => Ok(()),
            false => Err(Fault::Broken("postings of another generation".into())),
        }
    })
}

/// The unpriced summaries of every session of an agent (as `SummaryCache::all_summaries` reads
/// them, before de-duplication) and the sources that could not be read.
pub struct Listing {
    pub summaries: Vec<SessionSummary>,
    pub skipped: Vec<(PathBuf, String)>,
}

/// Every summary of `agent` (with its `requests`), `passes` times over in the same order, passed
/// to `f` with the pass's number: for a caller that must see them all before it can use any,
/// without holding them all (each source's are decoded in turn). Returns the sources that could
/// not be read; `None` when the index is off or unusable.
pub fn each_summary(
    ctx: &Context,
    agent: &dyn Agent,
    passes: usize,
    f: &mut dyn FnMut(usize, SessionSummary),
    listed: Vec<Source>,
) -> Option<Vec<(PathBuf, String)>> {
    with_index(ctx, |dir, conn| {
        let sources = sync::sync_sources(conn, dir, ctx, agent, listed, Part::Summaries)?;
        let paths: HashMap<i64, &std::path::Path> = sources
            .iter()
            .map(|s| (s.id, s.source.path.as_path()))
            .collect();
        // Every row is read once per pass, in order: pages kept for later would only grow the
        // process by the size of the table.
        conn.pragma_update(None, "cache_size", -1024)?;
        // One snapshot for every pass, whatever other processes write meanwhile.
        conn.execute_batch("BEGIN")?;
        let mut st = conn.prepare_cached(AGENT_SUMMARIES)?;
        let mut skipped = Vec::new();
        for pass in 0..passes {
            let mut rows = st.query([agent.name()])?;
            while let Some(r) = rows.next()? {
                let Some(path) = paths.get(&r.get::<_, i64>(0)?) else {
                    continue; // a source gone since (another process's sync)
                };
                match stored_summaries(r, true)? {
                    Ok(v) => v.into_iter().for_each(|s| f(pass, s)),
                    Err(why) if pass == 0 => skipped.push((path.to_path_buf(), why)),
                    Err(_) => {}
                }
            }
        }
        drop(st);
        conn.execute_batch("COMMIT")?;
        Ok(skipped)
    })
}

/// The `Listing` of `agent`; `None` when the index is off or unusable. The summaries of sources
/// unchanged since `listed` kept them are not read again; from the client's second listing of
/// `agent` on, `listed` is left with this listing's. `now`: `agent`'s sources as the call listed
/// them.
pub fn summaries(
    ctx: &Context,
    agent: &dyn Agent,
    listed: &Listed,
    now: Vec<Source>,
) -> Option<Listing> {
    with_index(ctx, |dir, conn| {
        let sources = sync::sync_sources(conn, dir, ctx, agent, now, Part::Summaries)?;
        let before = listed.take(agent.name());
        let keep = before.is_some();
        let mut before = before.unwrap_or_default();
        let mut kept = HashMap::default();
        let mut missing = Vec::new();
        for s in &sources {
            match before.remove(&s.id) {
                Some(k) if k.path == s.source.path && k.stamps == s.source.stamps => {
                    kept.insert(s.id, k);
                }
                _ => missing.push(s.id),
            }
        }
        let mut stored = read_summaries(conn, agent, &missing, sources.len())?;
        // In the agent's order of sources, as the cache reads them (which copy of a session
        // found twice is kept may depend on it). Room for every summary at once, not grown by
        // doubling: fewer page faults for a list of thousands of sessions.
        let count = kept.values().map(|k| k.summaries.len()).sum::<usize>()
            + stored
                .values()
                .map(|r| r.as_ref().map_or(0, Vec::len))
                .sum::<usize>();
        let (mut out, mut skipped) = (Vec::with_capacity(count), Vec::new());
        for s in sources {
            if let Some(k) = kept.get(&s.id) {
                out.extend(k.summaries.iter().cloned());
                continue;
            }
            match stored.remove(&s.id) {
                Some(Ok(summaries)) if !keep => out.extend(summaries),
                Some(Ok(summaries)) => {
                    out.extend(summaries.iter().cloned());
                    let k = listed::Kept {
                        path: s.source.path,
                        stamps: s.source.stamps,
                        summaries: std::sync::Arc::new(summaries),
                    };
                    kept.insert(s.id, k);
                }
                Some(Err(why)) => skipped.push((s.source.path, why)),
                None => {}
            }
        }
        if keep {
            listed.put(agent.name(), kept);
        }
        Ok(Listing {
            summaries: out,
            skipped,
        })
    })
}

/// Bring the summaries of `agent`'s sources up to date in the index (what the keep store then
/// records of each source without reading it again), as the call listed them; `None` when the
/// index is off or unusable.
pub fn sync_summaries(ctx: &Context, agent: &dyn Agent, listed: Vec<Source>) -> Option<()> {
    with_index(ctx, |dir, conn| {
        sync::sync_sources(conn, dir, ctx, agent, listed, Part::Summaries).map(|_| ())
    })
}

/// The summaries (without requests) the index holds of each of `sources` of `agent` as read at
/// their present stamps, by path: what the keep store records of a source without reading it
/// again. Sources the index does not hold at these stamps are left out; `None`: no index.
pub fn stored_of(
    ctx: &Context,
    agent: &dyn Agent,
    sources: &[&Source],
) -> Option<HashMap<PathBuf, Vec<SessionSummary>>> {
    with_index(ctx, |_, conn| {
        let mut st = conn.prepare_cached(
            "SELECT summaries FROM source WHERE agent = ?1 AND path = ?2 AND list_key = ?3",
        )?;
        let mut out = HashMap::default();
        for src in sources {
            let path = reading::path_bytes(&src.path);
            let blob: Option<Option<Vec<u8>>> = st
                .query_row(rusqlite::params![agent.name(), path, sync::key(src)], |r| {
                    r.get(0)
                })
                .optional()?;
            if let Some(Some(blob)) = blob {
                if let Ok(v) = codec::decode_summaries(&blob, false) {
                    out.insert(src.path.clone(), v);
                    continue;
                }
            }
            // Written for search only (`update`): the summaries of its documents.
            let mut docs = conn.prepare_cached(
                "SELECT d.summary FROM doc d JOIN source s ON d.source = s.id
                 WHERE s.agent = ?1 AND s.path = ?2 AND s.search_key = ?3",
            )?;
            let mut v = Vec::new();
            let mut rows = docs.query(rusqlite::params![agent.name(), path, sync::key(src)])?;
            while let Some(r) = rows.next()? {
                if let Ok(s) = codec::decode_summary(r.get_ref(0)?.as_blob()?) {
                    v.push(s);
                }
            }
            if !v.is_empty() {
                out.insert(src.path.clone(), v);
            }
        }
        Ok(out)
    })
}

/// Every listed source of an agent (`?1`): its id, summaries and why it could not be read.
const AGENT_SUMMARIES: &str = "SELECT id, summaries, list_error FROM source
     WHERE agent = ?1 AND list_key IS NOT NULL";

/// A row of `AGENT_SUMMARIES` (or of its columns): the source's summaries, with their
/// `requests` when asked, or why the source could not be read.
fn stored_summaries(
    r: &rusqlite::Row,
    requests: bool,
) -> Result<Result<Vec<SessionSummary>, String>, Fault> {
    Ok(match r.get_ref(1)?.as_blob_or_null()? {
        Some(blob) => Ok(codec::decode_summaries(blob, requests)
            .map_err(|_| Fault::Broken("stored summaries do not decode".into()))?),
        None => Err(r.get::<_, Option<String>>(2)?.unwrap_or_default()),
    })
}

/// What the index holds of the sources `ids` of `agent`: their summaries, or why they could not
/// be read. Rows by id when they are few of the agent's `total`, else one pass over them all.
fn read_summaries(
    conn: &Connection,
    agent: &dyn Agent,
    ids: &[i64],
    total: usize,
) -> Result<HashMap<i64, Result<Vec<SessionSummary>, String>>, Fault> {
    let mut out = HashMap::default();
    if ids.is_empty() {
        return Ok(out);
    }
    if ids.len() * 3 < total {
        let mut st = conn.prepare_cached(
            "SELECT id, summaries, list_error FROM source
             WHERE id = ?1 AND list_key IS NOT NULL",
        )?;
        for id in ids {
            let mut rows = st.query([id])?;
            if let Some(r) = rows.next()? {
                out.insert(*id, stored_summaries(r, false)?);
            }
        }
        return Ok(out);
    }
    let wanted: rustc_hash::FxHashSet<i64> = ids.iter().copied().collect();
    let mut st = conn.prepare_cached(AGENT_SUMMARIES)?;
    let mut rows = st.query([agent.name()])?;
    while let Some(r) = rows.next()? {
        let id = r.get::<_, i64>(0)?;
        if wanted.contains(&id) {
            out.insert(id, stored_summaries(r, false)?);
        }
    }
    Ok(out)
}

/// What `amux index status` shows.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The cache directory, `None` when the index is off.
    pub dir: Option<PathBuf>,
    /// Bytes of the index files (database, its WAL, the postings).
    pub bytes: u64,
    pub sources: u64,
    pub sessions: u64,
    /// Sources whose searchable documents are not up to date with the store (read at the next
    /// search), and sources of the stores not indexed yet.
    pub stale: u64,
    /// Which stores the client learns the changes of from the OS (`watch::Watch`).
    pub watch: WatchStatus,
}

/// Size and freshness of the index, without changing it.
pub fn status(ctx: &Context, agents: &[&'static dyn Agent]) -> Status {
    let Some(dir) = dir::resolve(ctx) else {
        return Status::default();
    };
    let path = store::path_in(&dir);
    let size = |p: PathBuf| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let postings = std::fs::read_dir(postings::path_in(&dir, store::FORMAT))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| size(e.path()))
        .sum::<u64>();
    let bytes = ["", "-wal"]
        .iter()
        .map(|s| {
            let mut p = path.as_os_str().to_owned();
            p.push(s);
            size(PathBuf::from(p))
        })
        .sum::<u64>()
        + postings;
    let mut out = Status {
        dir: Some(dir.clone()),
        bytes,
        ..Default::default()
    };
    if !path.is_file() {
        out.stale = agents.iter().map(|a| a.sources(ctx).len() as u64).sum();
        return out;
    }
    let counted = with_index(ctx, |_, conn| {
        // One snapshot for the counts and the freshness, whatever another process commits.
        conn.execute_batch("BEGIN")?;
        let (sources, sessions): (i64, i64) = conn.query_row(
            "SELECT count(*), coalesce(sum(sessions), 0) FROM source",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let mut stale = 0;
        for a in agents {
            stale += sync::stale(conn, ctx, *a, Part::Documents)?;
        }
        conn.execute_batch("COMMIT")?;
        Ok((sources as u64, sessions as u64, stale))
    });
    if let Some((sources, sessions, stale)) = counted {
        (out.sources, out.sessions, out.stale) = (sources, sessions, stale);
    }
    out
}

/// Delete the index, older formats' files included; `Ok(false)` when the index is off.
pub fn clear(ctx: &Context) -> std::io::Result<bool> {
    match dir::resolve(ctx) {
        Some(dir) => store::remove_all(&dir).map(|_| true),
        None => Ok(false),
    }
}

/// Delete the index and build it again: the summaries of `listed`, the documents of `searched`.
/// Another process writing it is waited for, before (it would go on writing into the files
/// removed) and after.
pub fn rebuild(
    ctx: &Context,
    listed: &[&'static dyn Agent],
    searched: &[&'static dyn Agent],
) -> std::result::Result<(), String> {
    let _ = once_free(|| writers_idle(ctx));
    clear(ctx).map_err(|e| e.to_string())?;
    let parts = [(listed, Part::Summaries), (searched, Part::Documents)];
    let built = once_free(|| write_parts(ctx, &parts));
    built.ok_or_else(|| "the index could not be written".to_string())
}

/// What the index answers of the files touched: the sessions it holds that touched a matching
/// file, and the sources it does not hold as they are now (another process is writing it),
/// which the caller reads itself.
pub struct TouchedIn {
    pub found: Vec<touches::Touched>,
    pub changed: Vec<(&'static dyn Agent, Source)>,
}

/// The sessions of `agents` that touched a file `matches` accepts (`exact`: the one path asked
/// for), from the index brought up to date first; `None` when it is off or unusable.
pub fn touched(
    ctx: &Context,
    agents: &[&'static dyn Agent],
    watch: &Watch,
    exact: Option<&str>,
    matches: &dyn Fn(&str) -> bool,
) -> Option<TouchedIn> {
    with_index(ctx, |dir, conn| {
        let listed: Vec<Vec<Source>> = watch.sources_of(ctx, agents);
        let (mut fresh, mut changed) = (rustc_hash::FxHashSet::default(), Vec::new());
        for (a, listed) in agents.iter().zip(listed) {
            match sync::sync_sources(conn, dir, ctx, *a, listed.clone(), Part::Documents) {
                Ok(v) => fresh.extend(v.into_iter().map(|s| s.id)),
                Err(Fault::Busy(_)) => {
                    let held = sync::unsynced(conn, *a, listed)?;
                    fresh.extend(held.fresh.into_iter().map(|s| s.id));
                    changed.extend(held.changed.into_iter().map(|s| (*a, s)));
                }
                Err(e) => return Err(e),
            }
        }
        let names: Vec<&str> = agents.iter().map(|a| a.name()).collect();
        conn.execute_batch("BEGIN")?;
        let found = touches::lookup(conn, &names, &fresh, exact, matches);
        conn.execute_batch("COMMIT")?;
        Ok(TouchedIn {
            found: found?,
            changed,
        })
    })
}

/// Every touch of the sessions of `agent` named in `ids`, from the index brought up to date
/// first; `None` when it is off, unusable or being written by another process.
pub fn touches_of(
    ctx: &Context,
    agent: &dyn Agent,
    ids: &std::collections::HashSet<&str>,
) -> Option<Vec<touches::Touched>> {
    with_index(ctx, |dir, conn| {
        sync::sync(conn, dir, ctx, agent, Part::Documents)?;
        touches::of_sessions(conn, agent.name(), ids)
    })
}
