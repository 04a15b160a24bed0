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
//! - `heads`: its documents' heads, held in memory for the broad searches of a client that lives;
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
use std::sync::{Arc, Mutex};

use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::model::SessionSummary;

pub mod archived;
pub mod codec;
pub mod dir;
mod heads;
pub mod listed;
pub mod lookup;
pub mod postings;
mod reading;
pub mod store;
pub mod sync;
pub mod touches;
pub mod watch;

pub use listed::Listed;
pub use lookup::{Scope, Snapshot};
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
/// A client that lives searches again what `warm` kept while nothing changed. `listed`: each
/// agent's sources as this call already listed them, else listed here.
pub fn snapshot(
    ctx: &Context,
    agents: &[&'static dyn Agent],
    write: bool,
    watch: &Watch,
    warm: &Warm,
    kept: &[archived::KeptSource],
    listed: Option<Vec<Vec<Source>>>,
) -> Option<(Snapshot, Vec<archived::KeptSource>)> {
    let (dir, conn) = open(ctx)?;
    let snapshot = (|| {
        // Sources this call listed are numbered as a store listed and stat'ed is, once, and
        // moved rather than copied.
        let mut given = listed;
        let numbers: Option<Vec<u64>> =
            (given.as_ref()).map(|g| g.iter().map(|sources| watch::number_of(sources)).collect());
        let list = |given: &mut Option<Vec<Vec<Source>>>, known: &[Option<u64>]| match (
            given.as_mut(),
            &numbers,
        ) {
            (Some(g), Some(numbers)) => (g.iter_mut().zip(numbers).zip(known))
                .map(|((sources, n), known)| match *known == Some(*n) {
                    true => watch::Sources::Same(*n),
                    false => watch::Sources::Now(std::mem::take(sources), Some(*n)),
                })
                .collect(),
            _ => watch.listings(ctx, agents, known),
        };
        let names: Vec<&'static str> = agents.iter().map(|a| a.name()).collect();
        // What the last search of this client kept, while the index is as it was then.
        // Only a client that watches lives long enough to gain from it; any other holds no
        // connection or reader between its calls.
        let warm = ctx.options.watch.then_some(warm);
        let since = warm.and_then(|w| w.since(&dir, &names, kept.is_empty()));
        let known = match &since {
            Some(s) => s.versions.iter().copied().map(Some).collect(),
            None => vec![None; agents.len()],
        };
        let mut listed = list(&mut given, &known);
        if let Some(since) = since {
            if listed.iter().all(|l| matches!(l, watch::Sources::Same(_))) {
                conn.execute_batch("BEGIN")?;
                if sync::generation(&conn)? == since.generation {
                    if let Some(w) = warm {
                        w.reused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    let postings = (since.fields, since.searcher, since.generation);
                    let s = Snapshot::new(ctx, dir.clone(), conn, postings, since.scope)?;
                    return Ok((s, Vec::new()));
                }
                conn.execute_batch("ROLLBACK")?;
            }
            // A few sources stamped again since: those alone brought up to date.
            if write && given.is_none() {
                if let Some(w) = warm {
                    if let Some((postings, scope)) =
                        restamped(ctx, &dir, &conn, agents, &since, &listed, w)?
                    {
                        let s = Snapshot::new(ctx, dir.clone(), conn, postings, scope)?;
                        return Ok((s, Vec::new()));
                    }
                }
            }
            // Some store changed since: every one listed in full (those given, as they were).
            listed = match given.as_mut() {
                Some(g) => (listed.into_iter().zip(g.iter_mut()))
                    .map(|(l, sources)| match l {
                        watch::Sources::Same(n) => {
                            watch::Sources::Now(std::mem::take(sources), Some(n))
                        }
                        now => now,
                    })
                    .collect(),
                None => list(&mut None, &vec![None; agents.len()]),
            };
        }
        // Commits other connections made while this call wrote (its own do not count here).
        let others_before = warm.and_then(|_| data_version(&conn).ok());
        let mut versions = Vec::with_capacity(agents.len());
        let (mut synced, mut changed, mut gone) = (Vec::new(), Vec::new(), 0);
        for (a, listed) in agents.iter().zip(listed) {
            let watch::Sources::Now(listed, version) = listed else {
                unreachable!("listed without a known number")
            };
            versions.push(version);
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
        // Where the search begins is taken after this call's own writes, so that the next call
        // can search again what this one made; a commit of another connection meanwhile is
        // seen on the call's own connection, and then nothing is kept.
        let began = warm
            .and_then(|w| w.begin(&dir))
            .filter(|_| others_before.is_some() && data_version(&conn).ok() == others_before);
        store::to_wal(&conn);
        let postings = Postings::open(&postings::path_in(&dir, store::FORMAT))?;
        same_generation(&conn, &postings)?;
        // One snapshot for every lookup of the search, whatever other processes write.
        conn.execute_batch("BEGIN")?;
        let scope = Arc::new(Scope::new((synced, archived, changed, gone)));
        let (searcher, generation) = postings.searcher()?;
        let versions: Option<Vec<u64>> = versions.into_iter().collect();
        if let (Some(began), Some(versions)) = (began, versions) {
            if kept.is_empty() && !scope.left_changes() {
                let parts = (postings.fields, searcher.clone(), generation);
                if let Some(w) = warm {
                    w.keep(began, names, versions, parts, scope.clone());
                }
            }
        }
        let postings = (postings.fields, searcher, generation);
        Snapshot::new(ctx, dir.clone(), conn, postings, scope).map(|s| (s, left))
    })();
    usable(&dir, snapshot)
}

/// The postings' fields, reader and generation a snapshot searches.
type Searching = (postings::Fields, tantivy::Searcher, u64);

/// What a client that lives makes of the index when the sources of its last search are `listed`
/// as they were `since` but for a few stamped again (`watch::Sources::Restamped`): those alone
/// compared with the index and written, the scope made from the last one, and kept for the
/// next; the snapshot's read transaction begun. `None` when that cannot be told so (a store
/// listed again, another connection wrote the index, a source not in the last scope): the
/// caller then lists every store in full.
fn restamped(
    ctx: &Context,
    dir: &std::path::Path,
    conn: &Connection,
    agents: &[&'static dyn Agent],
    since: &Since,
    listed: &[watch::Sources],
    warm: &Warm,
) -> Result<Option<(Searching, Arc<Scope>)>, Fault> {
    // Before anything is written: a store listed in full sends the whole call back.
    if listed.iter().any(|l| matches!(l, watch::Sources::Now(..))) {
        return Ok(None);
    }
    let others_before = data_version(conn).ok();
    let mut generation = since.generation;
    let (mut now, mut versions) = (Vec::new(), Vec::with_capacity(agents.len()));
    for (a, l) in agents.iter().zip(listed) {
        let changed = match l {
            watch::Sources::Same(n) => {
                versions.push(*n);
                continue;
            }
            watch::Sources::Restamped(changed, n) => {
                versions.push(*n);
                changed
            }
            watch::Sources::Now(..) => return Ok(None),
        };
        match sync::sync_restamped(conn, dir, ctx, *a, changed.clone(), generation) {
            Ok(Some((synced, g))) if synced.len() == changed.len() => {
                generation = g;
                now.extend(synced);
            }
            Ok(_) | Err(Fault::Busy(_)) => return Ok(None),
            Err(e) => return Err(e),
        }
    }
    // As `snapshot` keeps what it made: after this call's writes, unless another connection
    // committed meanwhile.
    let began = (warm.begin(dir))
        .filter(|_| others_before.is_some() && data_version(conn).ok() == others_before);
    store::to_wal(conn);
    let searching = match generation == since.generation {
        true => (since.fields, since.searcher.clone(), generation),
        false => {
            let postings = Postings::open(&postings::path_in(dir, store::FORMAT))?;
            same_generation(conn, &postings)?;
            let (searcher, g) = postings.searcher()?;
            (postings.fields, searcher, g)
        }
    };
    conn.execute_batch("BEGIN")?;
    let scope = match sync::generation(conn)? == generation && searching.2 == generation {
        true => since.scope.restamped(now),
        false => None,
    };
    let Some(scope) = scope.map(Arc::new) else {
        conn.execute_batch("ROLLBACK")?;
        return Ok(None);
    };
    (warm.restamped).fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Some(began) = began {
        let names = agents.iter().map(|a| a.name()).collect();
        warm.keep(began, names, versions, searching.clone(), scope.clone());
    }
    Ok(Some((searching, scope)))
}

/// What a client that lives (one that watches) keeps of the index between its searches
/// (`Storage` holds one): the sources its last snapshot searched and the postings' reader,
/// searched again while no store changed (the watcher's numbers for its listings:
/// `watch::Sources`) and no connection committed to the index since. That is told by SQLite's
/// `data_version` on a connection kept open for it (it changes when any other connection
/// commits), and the file's inode (a file made anew at its path is another inode: the one kept
/// open is not freed). Once anything changed, a search lists, compares and opens the index as a
/// new process does.
#[derive(Default)]
pub struct Warm {
    held: Mutex<Option<Held>>,
    /// Searches that searched again what the one before made (`WatchStatus::reused`).
    reused: std::sync::atomic::AtomicU64,
    /// Searches that made their scope from the one before's (`WatchStatus::restamped`).
    restamped: std::sync::atomic::AtomicU64,
}

struct Held {
    dir: PathBuf,
    conn: Connection,
    inode: u64,
    /// `data_version` and the postings' directory when the sources were compared; `None`:
    /// nothing kept yet.
    kept: Option<(Began, Since)>,
}

/// What a search kept for the next: the sources of `agents` at the watcher's `versions`, and
/// the postings' reader of `generation`.
#[derive(Clone)]
struct Since {
    agents: Vec<&'static str>,
    versions: Vec<u64>,
    scope: Arc<Scope>,
    fields: postings::Fields,
    searcher: tantivy::Searcher,
    generation: u64,
}

/// Where a search began: the index's `data_version` on the kept connection, and the postings'
/// files' stamps (one added, removed, renamed or written, by a commit or otherwise: the reader
/// kept is then not trusted, and the postings are opened and checked again).
#[derive(Clone, Copy, PartialEq)]
struct Began {
    data_version: i64,
    postings: u64,
}

/// A hash of the name, inode, size and modification time of every file of the postings of the
/// index in `dir` (a few dozen).
fn postings_stamp(dir: &std::path::Path) -> Option<u64> {
    let mut files: Vec<(std::ffi::OsString, u64, u64, i128)> = Vec::new();
    for e in std::fs::read_dir(postings::path_in(dir, store::FORMAT)).ok()? {
        let e = e.ok()?;
        let m = e.metadata().ok()?;
        let modified = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        files.push((
            e.file_name(),
            inode(&e.path())?,
            m.len(),
            modified.as_nanos() as i128,
        ));
    }
    files.sort_unstable();
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (name, ino, len, modified) in files {
        h.update(name.as_encoded_bytes());
        h.update(&ino.to_le_bytes());
        h.update(&len.to_le_bytes());
        h.update(&modified.to_le_bytes());
    }
    Some(h.digest())
}

impl Warm {
    /// Searches of this client that searched again what the one before made of the index.
    pub fn reused(&self) -> u64 {
        self.reused.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Searches of this client that took in only the sources stamped again since the one
    /// before.
    pub fn restamped(&self) -> u64 {
        self.restamped.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// What the last search kept, when it searched `agents` of the index in `dir` as it still
    /// is, and `usable` (no kept copies to search besides).
    fn since(&self, dir: &std::path::Path, agents: &[&'static str], usable: bool) -> Option<Since> {
        let held = self.held.lock().ok()?;
        let h = held.as_ref()?;
        let (at, since) = h.kept.as_ref()?;
        let same = usable
            && h.dir == dir
            && since.agents == agents
            && inode(&store::path_in(dir)) == Some(h.inode)
            && data_version(&h.conn).ok() == Some(at.data_version)
            && postings_stamp(dir) == Some(at.postings);
        same.then(|| since.clone())
    }

    /// Where a search of the index in `dir` begins (a connection is kept open for it from the
    /// first); `None` when that cannot be told.
    fn begin(&self, dir: &std::path::Path) -> Option<Began> {
        let mut held = self.held.lock().ok()?;
        let path = store::path_in(dir);
        let now = inode(&path)?;
        if held.as_ref().is_none_or(|h| h.dir != dir || h.inode != now) {
            let conn = store::open(dir).ok()?;
            // Opened after the inode was read: a file made anew in between is not trusted.
            (inode(&path) == Some(now)).then_some(())?;
            *held = Some(Held {
                dir: dir.to_path_buf(),
                conn,
                inode: now,
                kept: None,
            });
        }
        let h = held.as_mut()?;
        h.kept = None;
        Some(Began {
            data_version: data_version(&h.conn).ok()?,
            postings: postings_stamp(dir)?,
        })
    }

    /// Keep what a search that `began` so made of the index, unless a connection committed
    /// since.
    fn keep(
        &self,
        began: Began,
        agents: Vec<&'static str>,
        versions: Vec<u64>,
        postings: (postings::Fields, tantivy::Searcher, u64),
        scope: Arc<Scope>,
    ) {
        let Ok(mut held) = self.held.lock() else {
            return;
        };
        let Some(h) = held.as_mut() else {
            return;
        };
        let now = data_version(&h.conn).ok().zip(postings_stamp(&h.dir));
        if now != Some((began.data_version, began.postings)) {
            return;
        }
        let (fields, searcher, generation) = postings;
        let since = Since {
            agents,
            versions,
            scope,
            fields,
            searcher,
            generation,
        };
        h.kept = Some((began, since));
    }
}

/// SQLite's count of the commits other connections made to the file `conn` is open on.
fn data_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA data_version", [], |r| r.get(0))
}

#[cfg(unix)]
fn inode(path: &std::path::Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| m.ino())
}

#[cfg(not(unix))]
fn inode(_: &std::path::Path) -> Option<u64> {
    None
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

/// The `Listing` of the sessions of `agent` last active at or after `since` (a recap's): only
/// the sources whose latest session is that recent are read from the file, found through
/// `source_active`; `None` when the index is off or unusable.
pub fn summaries_since(
    ctx: &Context,
    agent: &dyn Agent,
    since: crate::model::Timestamp,
    now: Vec<Source>,
) -> Option<Listing> {
    with_index(ctx, |dir, conn| {
        let sources = sync::sync_sources(conn, dir, ctx, agent, now, Part::Summaries)?;
        // Two ranges of the index, so the agent's other rows are not read (an unreadable source
        // has no `active`).
        let mut st = conn.prepare_cached(
            "SELECT id, summaries, list_error FROM source
             WHERE agent = ?1 AND active >= ?2 AND list_key IS NOT NULL
             UNION ALL
             SELECT id, summaries, list_error FROM source
             WHERE agent = ?1 AND active IS NULL AND list_key IS NOT NULL
               AND list_error IS NOT NULL",
        )?;
        // The rows read first, then decoded in parallel: a long period holds thousands.
        let mut blobs: Vec<(i64, Result<Vec<u8>, String>)> = Vec::new();
        let mut rows = st.query(rusqlite::params![agent.name(), since.timestamp_millis()])?;
        while let Some(r) = rows.next()? {
            let held = match r.get_ref(1)?.as_blob_or_null()? {
                Some(blob) => Ok(blob.to_vec()),
                None => Err(r.get::<_, Option<String>>(2)?.unwrap_or_default()),
            };
            blobs.push((r.get(0)?, held));
        }
        let decoded: Vec<(i64, Result<Vec<SessionSummary>, String>)> = {
            use rayon::prelude::*;
            (blobs.into_par_iter())
                .map(|(id, held)| {
                    let v = match held {
                        Ok(blob) => Ok(codec::decode_summaries(&blob, false)
                            .map_err(|_| Fault::Broken("stored summaries do not decode".into()))?),
                        Err(why) => Err(why),
                    };
                    Ok((id, v))
                })
                .collect::<Result<_, Fault>>()?
        };
        let mut stored: HashMap<i64, _> = decoded.into_iter().collect();
        // In the agent's order of sources, as a whole listing gives them.
        let (mut summaries, mut skipped) = (Vec::new(), Vec::new());
        for s in sources {
            match stored.remove(&s.id) {
                Some(Ok(v)) => summaries.extend(v.into_iter().filter(|x| x.updated_at >= since)),
                Some(Err(why)) => skipped.push((s.source.path, why)),
                None => {}
            }
        }
        Ok(Listing { summaries, skipped })
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
    /// Sessions held for search (those of an agent searched by its own engine are held for
    /// their touches only, and not counted).
    pub sessions: u64,
    /// Sources whose searchable documents are not up to date with the store (read at the next
    /// search), and sources of the stores not indexed yet.
    pub stale: u64,
    /// Which stores the client learns the changes of from the OS (`watch::Watch`).
    pub watch: WatchStatus,
}

/// Size and freshness of the index, without changing it. The stores' sources come from `watch`
/// (a client that lives learns what changed from the OS, and stats nothing it was not told of).
pub fn status(ctx: &Context, agents: &[&'static dyn Agent], watch: &Watch) -> Status {
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
    let listed = watch.sources_of(ctx, agents);
    if !path.is_file() {
        out.stale = listed.iter().map(|v| v.len() as u64).sum();
        return out;
    }
    let counted = with_index(ctx, |_, conn| {
        // One snapshot for the counts and the freshness, whatever another process commits.
        conn.execute_batch("BEGIN")?;
        // The sessions of `agents` only: an agent searched by its own engine has its sessions
        // in the index for their touches, not for search.
        let names: Vec<&str> = agents.iter().map(|a| a.name()).collect();
        let (sources, sessions): (i64, i64) = conn.query_row(
            "SELECT count(*), coalesce(sum(CASE WHEN agent IN (SELECT value FROM json_each(?1))
                                           THEN sessions END), 0)
             FROM source",
            [serde_json::to_string(&names).unwrap_or_default()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let mut stale = 0;
        for (a, sources) in agents.iter().zip(&listed) {
            stale += sync::stale(conn, *a, sources, Part::Documents)?;
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
/// which the caller reads itself: live sources, and restored kept copies with the archived
/// sessions each serves.
pub struct TouchedIn {
    pub found: Vec<touches::Touched>,
    /// The index's generation `found` was read from (which numbers their documents).
    pub generation: u64,
    pub changed: Vec<(&'static dyn Agent, Source)>,
    pub kept: Vec<archived::KeptSource>,
}

/// The sessions of `agents` that touched a file `matches` accepts (`exact`: the one path asked
/// for), from the index brought up to date first, the archived sessions of the restored copies
/// `kept` included; `None` when it is off or unusable. `listed`: each agent's sources as this
/// call already listed them, else listed here. `read`: what is read of each session found (a
/// cut applied only when the index answers alone: no source left for the caller to read).
#[allow(clippy::too_many_arguments)]
pub fn touched(
    ctx: &Context,
    agents: &[&'static dyn Agent],
    listed: Option<Vec<Vec<Source>>>,
    watch: &Watch,
    kept: &[archived::KeptSource],
    exact: Option<&str>,
    matches: &dyn Fn(&str) -> bool,
    read: touches::Read,
) -> Option<TouchedIn> {
    with_index(ctx, |dir, conn| {
        let listed = listed.unwrap_or_else(|| watch.sources_of(ctx, agents));
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
        let (archived, left) = match kept.is_empty() {
            true => (Vec::new(), Vec::new()),
            false => archived::for_search(conn, dir, ctx, kept)?,
        };
        fresh.extend(archived.into_iter().map(|(_, s)| s.id));
        let names: Vec<&str> = agents.iter().map(|a| a.name()).collect();
        conn.execute_batch("BEGIN")?;
        let read = match read {
            touches::Read::Cut(_) if !changed.is_empty() || !left.is_empty() => {
                touches::Read::Whole
            }
            read => read,
        };
        let found = sync::generation(conn).and_then(|g| {
            let found = touches::lookup(conn, &names, &fresh, exact, matches, read)?;
            Ok((g, found))
        });
        conn.execute_batch("COMMIT")?;
        let (generation, found) = found?;
        Ok(TouchedIn {
            generation,
            found,
            changed,
            kept: left,
        })
    })
}

/// The touches `keep` accepts of the sessions of `agent` named in `ids`, from the index brought
/// up to date first with `listed`, the agent's sources as the call listed them; `None` when it is off,
/// unusable or being written by another process.
pub fn touches_of(
    ctx: &Context,
    agent: &dyn Agent,
    ids: &std::collections::HashSet<&str>,
    listed: Vec<Source>,
    keep: &dyn Fn(&crate::model::Touch) -> bool,
) -> Option<Vec<touches::Touched>> {
    with_index(ctx, |dir, conn| {
        sync::sync_sources(conn, dir, ctx, agent, listed, Part::Documents)?;
        touches::of_sessions(conn, agent.name(), ids, keep)
    })
}
