//! What changed in the stores, learnt from the OS's file events, for a client that lives (the
//! MCP server, the UI server, an app: `ClientOptions::watch`): a warm call re-stamps only the
//! sources whose files had an event, instead of listing and stat'ing every source of every store.
//!
//! Never stale: a write that finished before a call began is seen by that call. The kernel puts
//! a file's event on the watcher's one queue before the write returns, so the call creates a
//! marker file in our own directory, watched by the same watcher, and waits until the marker's
//! event is handled: every event queued before it has been handled too. Where that cannot be
//! promised the store is listed and stat'ed as without a watcher, which is decided here and only
//! here:
//! - a platform whose events come on more than one queue or late (only Linux's inotify is used);
//! - a marker not seen in time (`AGENT_MUX_WATCH_WAIT_MS`), for that call;
//! - a place that is missing or not a directory (tried again at the next call), on a network
//!   file system (changes made by another machine raise no event), with more directories than
//!   the watcher's limit (`AGENT_MUX_WATCH_DIRS`, default half the system's), or the system's
//!   limit of watches reached;
//! - a store of few sources (`AGENT_MUX_WATCH_MIN_SOURCES`): stat'ing them costs nothing, and a
//!   database written through a memory map raises no event;
//! - a source outside the places watched, or a symlink (its target's changes raise no event);
//! - the kernel's queue overflowed (events were lost): the stores are listed again in full.
//!
//! One watch per directory (inotify watches directories; a file's events come with its
//! directory's), recursive from each place the agent looks in.
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use crate::agents::{Agent, Source};
use crate::context::Context;

/// How each store of a client is watched, or why it is not (`amux index status`, `amux doctor`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchStatus {
    /// Whether the client watches (`ClientOptions::watch`); off: every call stats every source.
    pub on: bool,
    /// Why the client watches nothing while on (the watcher could not be made).
    pub reason: Option<String>,
    /// Directories watched, across stores.
    pub directories: u64,
    /// Times the kernel's queue overflowed (the stores were then listed again in full).
    pub overflows: u64,
    /// Searches that searched again what the one before made of the index, since the client
    /// was made: nothing had changed since, so no store was compared with the index.
    pub reused: u64,
    /// Searches that took in only the sources stamped again since the one before (compared by
    /// path, their documents written) and made their scope from its.
    pub restamped: u64,
    /// The stores this client has listed since it was made, by agent.
    pub stores: Vec<StoreWatch>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreWatch {
    pub agent: &'static str,
    pub watched: bool,
    /// Why the store is listed and stat'ed at every call; `None` when watched.
    pub reason: Option<String>,
    pub directories: u64,
    /// Times the store was listed and stat'ed in full since the client was made: its first
    /// listing, then each call whose events could not tell what changed (or every call, when
    /// not watched).
    pub listings: u64,
}

/// A client's watcher, made at its first call that asks for one.
#[derive(Default)]
pub struct Watch {
    live: Mutex<Option<Result<Arc<Live>, String>>>,
}

impl Watch {
    /// The sources of `a` as `Agent::sources` lists them now: from what the events said changed
    /// when the store is watched, else listed and stat'ed.
    pub fn sources(&self, ctx: &Context, a: &dyn Agent) -> Vec<Source> {
        match self.live(ctx) {
            Some(live) => live.sources(ctx, a),
            None => a.sources(ctx),
        }
    }

    /// `sources` of each of `agents`, in their order, after one wait for the events.
    pub fn sources_of(&self, ctx: &Context, agents: &[&'static dyn Agent]) -> Vec<Vec<Source>> {
        let none = vec![None; agents.len()];
        (self.listings(ctx, agents, &none).into_iter())
            .map(Sources::listed)
            .collect()
    }

    /// `sources_of`, numbered: a store whose sources are still those of the listing numbered
    /// `known` (per agent) answers `Sources::Same`, without a copy.
    pub fn listings(
        &self,
        ctx: &Context,
        agents: &[&'static dyn Agent],
        known: &[Option<u64>],
    ) -> Vec<Sources> {
        let Some(live) = self.live(ctx) else {
            return (agents.par_iter().zip(known))
                .map(|(a, known)| numbered(a.sources(ctx), *known))
                .collect();
        };
        let caught_up = live.catch_up(ctx);
        // One store after another, on the calling thread: each holds its store's lock while it
        // lists, and a listing stats in parallel. On a pool's thread, waiting for those stats
        // could take up another call's job for the same store and block on the lock it holds.
        (agents.iter().zip(known))
            .map(|(a, known)| live.sources_caught_up(ctx, *a, caught_up, *known))
            .collect()
    }

    pub fn status(&self, ctx: &Context) -> WatchStatus {
        if !ctx.options.watch {
            return WatchStatus::default();
        }
        let held = lock(&self.live).clone();
        match held {
            None => WatchStatus {
                on: true,
                ..Default::default()
            },
            Some(Err(reason)) => WatchStatus {
                on: true,
                reason: Some(reason),
                ..Default::default()
            },
            Some(Ok(live)) => live.status(),
        }
    }

    fn live(&self, ctx: &Context) -> Option<Arc<Live>> {
        if !ctx.options.watch {
            return None;
        }
        let mut held = lock(&self.live);
        held.get_or_insert_with(|| Live::new(ctx))
            .as_ref()
            .ok()
            .cloned()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A knob of the environment, as a number.
fn knob(ctx: &Context, name: &str) -> Option<u64> {
    ctx.env.var(name).and_then(|v| v.trim().parse().ok())
}

/// The watcher and what it learnt.
struct Live {
    watcher: Mutex<notify::RecommendedWatcher>,
    events: Arc<Events>,
    /// Our own directory the markers are made in, and the last marker's number.
    marker_dir: PathBuf,
    issued: Mutex<u64>,
    wait: Duration,
    /// Directories the watcher may watch, across stores.
    limit: u64,
    min_sources: usize,
    stores: Mutex<HashMap<&'static str, Arc<Mutex<Store>>>>,
}

/// What the handler of events (the watcher's thread) tells the calls.
#[derive(Default)]
struct Events {
    seen: Mutex<Seen>,
    marker_seen: Condvar,
}

#[derive(Default)]
struct Seen {
    /// The highest marker handled.
    marker: u64,
    marker_dir: PathBuf,
    /// Each watched place, and the agent that looks there.
    roots: Vec<(PathBuf, &'static str)>,
    changed: HashMap<&'static str, Changed>,
    overflows: u64,
    /// Test hook: the handler waits this long after the marker of this number (the kernel's
    /// queue then fills); the call that made it asked so.
    stall: Option<(u64, Duration)>,
}

/// What happened in one store since its last call.
#[derive(Default)]
struct Changed {
    /// Files written or whose metadata changed.
    files: Vec<PathBuf>,
    /// Something appeared, went or was renamed: the store is listed again.
    relist: bool,
    /// Directories that appeared: watched before the store is listed again.
    dirs: Vec<PathBuf>,
    /// A place itself was moved or removed: watched again.
    rewatch: bool,
    /// The watcher failed for this store.
    failed: Option<String>,
}

/// One agent's store as this client last listed it.
struct Store {
    places: Vec<PathBuf>,
    state: State,
    /// Times listed in full (`StoreWatch::listings`).
    listings: u64,
}

enum State {
    /// Watched; the sources as last listed (`None`: to be listed in full at the next call).
    Watched {
        listed: Option<Listed>,
        directories: u64,
        /// Each place's device and inode when it was watched: a place replaced or moved since
        /// (its parent renamed) is another directory, which is not watched.
        ids: Vec<(u64, u64)>,
        /// The store's sources at its last listing when fewer than the watcher's minimum: it
        /// is stat'ed at every call.
        few: Option<usize>,
    },
    /// Listed and stat'ed at every call, and why; `retry`: watching is tried again at the next
    /// call (a place that did not exist).
    Unwatched { reason: String, retry: bool },
}

/// The sources of a store and where each file of theirs is among them.
struct Listed {
    sources: Vec<Source>,
    /// Hash of a file's path (a source's or a side file's) → its source.
    at: HashMap<u64, u32>,
    /// Numbers these sources as they stand: a new number whenever one is stamped again.
    version: u64,
    /// The latest stampings again, oldest first: what a caller that knows an earlier number
    /// needs to take in (`changed_since`).
    restamps: std::collections::VecDeque<Restamp>,
}

/// The sources stamped again when the listing's number went from `from` to the next.
struct Restamp {
    from: u64,
    at: Vec<u32>,
}

/// How many stampings again a listing remembers, and of how many sources in all: a caller
/// further behind takes in the whole listing.
const RESTAMPS: usize = 64;
const RESTAMPED_SOURCES: usize = 1024;

/// A number no listing of any store of this process had before.
fn new_version() -> u64 {
    static LAST: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    LAST.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}

/// A store's sources as a call sees them (`Watch::listings`).
pub enum Sources {
    /// The same as the listing the caller knows by this number: not copied.
    Same(u64),
    /// The listing the caller knows, but for these sources, stamped again since (the same
    /// paths, in the same places): numbered as the listing now is.
    Restamped(Vec<Source>, u64),
    /// Listed now, and numbered: a call that finds the same number later may answer from what
    /// it made of them. A watched store's number stands until its events say otherwise; a
    /// store listed and stat'ed is numbered by what the listing holds (`numbered`).
    Now(Vec<Source>, Option<u64>),
}

/// Sources listed and stat'ed now, numbered by what they hold (every path and stamp): the same
/// number is the same listing. `Same` when that is the number `known`. Apart from the numbers a
/// watched store's listings take (the top bit tells them apart).
pub fn numbered(sources: Vec<Source>, known: Option<u64>) -> Sources {
    let version = number_of(&sources);
    match known == Some(version) {
        true => Sources::Same(version),
        false => Sources::Now(sources, Some(version)),
    }
}

/// The number `numbered` gives a listing.
pub fn number_of(sources: &[Source]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for s in sources {
        for p in std::iter::once(&s.path).chain(&s.side_files) {
            h.update(p.as_os_str().as_encoded_bytes());
            h.update(&[0]);
        }
        for t in &s.stamps {
            h.update(&t.size.to_le_bytes());
            h.update(&t.mtime_ns.to_le_bytes());
            h.update(&t.inode.to_le_bytes());
        }
        h.update(&[1]);
    }
    h.digest() | 1 << 63
}

impl Sources {
    /// Sources listed now (never `Same`: asked without a known number).
    fn listed(self) -> Vec<Source> {
        match self {
            Sources::Now(v, _) => v,
            Sources::Same(_) | Sources::Restamped(..) => unreachable!("no number was known"),
        }
    }
}

fn path_hash(p: &Path) -> u64 {
    let mut h = FxHasher::default();
    p.hash(&mut h);
    h.finish()
}

impl Listed {
    fn new(sources: Vec<Source>) -> Listed {
        let mut at = HashMap::default();
        for (i, s) in sources.iter().enumerate() {
            for p in std::iter::once(&s.path).chain(&s.side_files) {
                at.insert(path_hash(p), i as u32);
            }
        }
        Listed {
            sources,
            at,
            version: new_version(),
            restamps: Default::default(),
        }
    }

    /// The sources stamped again since the listing numbered `known`, when it is one of the
    /// numbers these sources had (the latest stampings are remembered, not all).
    fn changed_since(&self, known: u64) -> Option<Vec<Source>> {
        let first = self.restamps.iter().position(|r| r.from == known)?;
        let mut at: Vec<u32> = (self.restamps.range(first..))
            .flat_map(|r| r.at.iter().copied())
            .collect();
        at.sort_unstable();
        at.dedup();
        Some(
            at.iter()
                .map(|&i| self.sources[i as usize].clone())
                .collect(),
        )
    }

    /// The source `file` belongs to.
    fn source_of(&self, file: &Path) -> Option<usize> {
        let i = *self.at.get(&path_hash(file))? as usize;
        let s = &self.sources[i];
        (s.path == file || s.side_files.iter().any(|p| p == file)).then_some(i)
    }

    /// Stamp again the sources of `files`; false when one is not a file of a source or its
    /// file is gone (then the store is listed again).
    fn restamp(&mut self, files: &[PathBuf]) -> bool {
        if files.is_empty() {
            return true;
        }
        let from = self.version;
        self.version = new_version();
        let mut at: Vec<u32> = Vec::with_capacity(files.len());
        for f in files {
            match self.source_of(f) {
                Some(i) => at.push(i as u32),
                None => return false,
            }
        }
        at.sort_unstable();
        at.dedup();
        for &i in &at {
            let s = &self.sources[i as usize];
            match Source::new(s.path.clone(), &s.side_files) {
                Some(now) => self.sources[i as usize] = now,
                None => return false,
            }
        }
        self.restamps.push_back(Restamp { from, at });
        while self.restamps.len() > RESTAMPS
            || self.restamps.iter().map(|r| r.at.len()).sum::<usize>() > RESTAMPED_SOURCES
        {
            self.restamps.pop_front();
        }
        true
    }
}

impl Live {
    /// A watcher, or why there is none.
    fn new(ctx: &Context) -> Result<Arc<Live>, String> {
        if !cfg!(target_os = "linux") {
            return Err("this platform's file events are not known to come in order".into());
        }
        let base = super::dir::resolve(ctx)
            .ok_or("no cache directory for the watcher's markers (the index is off)")?;
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let marker_dir = base
            .join("watch")
            .join(format!("{}-{n}", std::process::id()));
        crate::read::fs::private_dir(&marker_dir)
            .map_err(|e| format!("{}: {e}", marker_dir.display()))?;
        let events = Arc::new(Events::default());
        {
            let mut seen = lock(&events.seen);
            seen.marker_dir = marker_dir.clone();
        }
        let handler = {
            let events = events.clone();
            move |e: notify::Result<notify::Event>| events.handle(e)
        };
        use notify::Watcher;
        let mut watcher = notify::recommended_watcher(handler).map_err(|e| e.to_string())?;
        watcher
            .watch(&marker_dir, notify::RecursiveMode::NonRecursive)
            .map_err(|e| e.to_string())?;
        let system = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(8192);
        Ok(Arc::new(Live {
            watcher: Mutex::new(watcher),
            events,
            marker_dir,
            issued: Mutex::new(0),
            wait: Duration::from_millis(knob(ctx, "AGENT_MUX_WATCH_WAIT_MS").unwrap_or(200)),
            limit: knob(ctx, "AGENT_MUX_WATCH_DIRS").unwrap_or(system / 2),
            min_sources: knob(ctx, "AGENT_MUX_WATCH_MIN_SOURCES").unwrap_or(64) as usize,
            stores: Mutex::new(HashMap::default()),
        }))
    }

    /// Whether every event queued before now has been handled: a marker made now is waited for.
    fn catch_up(&self, ctx: &Context) -> bool {
        let n = {
            let mut issued = lock(&self.issued);
            *issued += 1;
            if let Some(ms) = knob(ctx, "AGENT_MUX_WATCH_STALL_MS") {
                lock(&self.events.seen).stall = Some((*issued, Duration::from_millis(ms)));
            }
            // A name of its own each time: the kernel merges an event with the one before it
            // when they are alike, and a merged marker would never be seen.
            let made = std::os::unix::fs::symlink(".", self.marker_dir.join(issued.to_string()));
            if made.is_err() {
                return false;
            }
            *issued
        };
        let seen = lock(&self.events.seen);
        let (seen, _) = self
            .events
            .marker_seen
            .wait_timeout_while(seen, self.wait, |s| s.marker < n)
            .unwrap_or_else(PoisonError::into_inner);
        let ok = seen.marker >= n;
        drop(seen);
        let _ = std::fs::remove_file(self.marker_dir.join(n.to_string()));
        ok
    }

    fn sources(&self, ctx: &Context, a: &dyn Agent) -> Vec<Source> {
        let caught_up = self.catch_up(ctx);
        self.sources_caught_up(ctx, a, caught_up, None).listed()
    }

    fn store(&self, agent: &'static str) -> Arc<Mutex<Store>> {
        let mut stores = lock(&self.stores);
        let s = stores.entry(agent).or_insert_with(|| {
            Arc::new(Mutex::new(Store {
                places: Vec::new(),
                state: State::Unwatched {
                    reason: "not listed yet".into(),
                    retry: true,
                },
                listings: 0,
            }))
        });
        s.clone()
    }

    /// `sources` once the events are handled (`caught_up`), or not (then listed and stat'ed);
    /// `Same` when they are still those of the listing numbered `known`.
    fn sources_caught_up(
        &self,
        ctx: &Context,
        a: &dyn Agent,
        caught_up: bool,
        known: Option<u64>,
    ) -> Sources {
        let now = |v: Vec<Source>| numbered(v, known);
        let store = self.store(a.name());
        let mut store = lock(&store);
        let places = a.watched(ctx);
        let changed = self.take_changed(a.name());
        let moved = match &store.state {
            State::Watched { ids, .. } => *ids != place_ids(&places),
            State::Unwatched { retry, .. } => *retry,
        };
        if store.places != places || moved || changed.rewatch {
            self.unwatch(a.name(), &store.places);
            store.places = places;
            store.state = self.watch(a.name(), &store.places);
        }
        if let Some(why) = changed.failed {
            self.unwatch(a.name(), &store.places);
            store.state = unwatched(why, false);
        }
        if let State::Watched {
            listed,
            directories,
            ..
        } = &mut store.state
        {
            // Directories that appeared are watched before the store is listed again: what is
            // written in them from then on raises events, what was written before is listed.
            for d in changed.dirs.iter().filter(|d| d.is_dir()) {
                let n = count_dirs(d, u64::MAX);
                // `directories()` leaves out this store, locked here.
                let fault = match self.directories() + *directories + n > self.limit {
                    true => Some(self.limit_reached(d)),
                    false => self.add(d).err().map(|f| f.to_string()),
                };
                if let Some(why) = fault {
                    self.unwatch(a.name(), &store.places);
                    store.state = unwatched(why, false);
                    return now(listing(&mut store, ctx, a));
                }
                *directories += n;
            }
            if changed.relist || !caught_up {
                *listed = None;
            }
            if let Some(l) = listed.as_mut() {
                if !l.restamp(&changed.files) {
                    *listed = None;
                }
            }
        }
        // Not caught up: this call lists the store itself, and the next call does again.
        let State::Watched { listed, .. } = &mut store.state else {
            return now(listing(&mut store, ctx, a));
        };
        if let Some(l) = listed {
            if known == Some(l.version) {
                return Sources::Same(l.version);
            }
            return match known.and_then(|k| l.changed_since(k)) {
                Some(changed) => Sources::Restamped(changed, l.version),
                None => Sources::Now(l.sources.clone(), Some(l.version)),
            };
        }
        let sources = listing(&mut store, ctx, a);
        if !caught_up {
            return now(sources);
        }
        if let Some(why) = unwatchable(&store.places, &sources) {
            self.unwatch(a.name(), &store.places);
            store.state = unwatched(why, false);
            return now(sources);
        }
        let State::Watched { listed, few, .. } = &mut store.state else {
            unreachable!("watched above")
        };
        *few = (sources.len() < self.min_sources).then_some(sources.len());
        if few.is_some() {
            return now(sources);
        }
        let l = Listed::new(sources.clone());
        let version = l.version;
        *listed = Some(l);
        Sources::Now(sources, Some(version))
    }

    /// Watch every place of `agent`, or say why not.
    fn watch(&self, agent: &'static str, places: &[PathBuf]) -> State {
        let mut directories = 0;
        // A place that does not exist is not watched: its device and inode, checked at each
        // call, tell when it appears. None there: nothing to watch yet.
        if !places.iter().any(|p| p.exists()) {
            let all: Vec<String> = places.iter().map(|p| p.display().to_string()).collect();
            return unwatched(format!("{} does not exist", all.join(", ")), true);
        }
        for p in places.iter().filter(|p| p.exists()) {
            if !p.is_dir() {
                return unwatched(format!("{} is not a directory", p.display()), false);
            }
            if let Some(fs) = network_fs(p) {
                let why = format!("{} is on a network file system ({fs})", p.display());
                return unwatched(why, false);
            }
            let budget = self.limit.saturating_sub(self.directories() + directories);
            let n = count_dirs(p, budget + 1);
            if n > budget {
                self.unwatch(agent, places);
                return unwatched(self.limit_reached(p), false);
            }
            lock(&self.events.seen).roots.push((p.clone(), agent));
            if let Err(why) = self.add(p) {
                self.unwatch(agent, places);
                return unwatched(why.to_string(), false);
            }
            directories += n;
        }
        State::Watched {
            listed: None,
            directories,
            // Taken once watched: a place replaced in between is found at the next call.
            ids: place_ids(places),
            few: None,
        }
    }

    fn limit_reached(&self, dir: &Path) -> String {
        format!(
            "watch limit reached: {} directories watched of {} (AGENT_MUX_WATCH_DIRS), {} \
             would add more",
            self.directories(),
            self.limit,
            dir.display()
        )
    }

    /// Watch `dir` and every directory beneath it.
    fn add(&self, dir: &Path) -> Result<(), Fault> {
        use notify::Watcher;
        let r = lock(&self.watcher).watch(dir, notify::RecursiveMode::Recursive);
        match r {
            Ok(()) => Ok(()),
            Err(e) if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => Err(Fault::SystemLimit),
            // Gone already: its parent's event lists the store again.
            Err(e) if matches!(e.kind, notify::ErrorKind::PathNotFound) => Ok(()),
            Err(e) => Err(Fault::Other(e.to_string())),
        }
    }

    fn unwatch(&self, agent: &'static str, places: &[PathBuf]) {
        use notify::Watcher;
        lock(&self.events.seen).roots.retain(|(_, a)| *a != agent);
        let mut w = lock(&self.watcher);
        for p in places {
            let _ = w.unwatch(p);
        }
    }

    fn take_changed(&self, agent: &'static str) -> Changed {
        lock(&self.events.seen)
            .changed
            .remove(agent)
            .unwrap_or_default()
    }

    fn directories(&self) -> u64 {
        let stores: Vec<_> = lock(&self.stores).values().cloned().collect();
        stores
            .iter()
            .filter_map(|s| match &s.try_lock().ok()?.state {
                State::Watched { directories, .. } => Some(*directories),
                State::Unwatched { .. } => None,
            })
            .sum()
    }

    fn status(&self) -> WatchStatus {
        let mut stores: Vec<(&'static str, Arc<Mutex<Store>>)> = (lock(&self.stores).iter())
            .map(|(a, s)| (*a, s.clone()))
            .collect();
        stores.sort_by_key(|(a, _)| *a);
        let stores: Vec<StoreWatch> = (stores.into_iter())
            .map(|(agent, store)| {
                let s = lock(&store);
                store_watch(agent, &s)
            })
            .collect();
        WatchStatus {
            on: true,
            reason: None,
            directories: stores.iter().map(|s| s.directories).sum(),
            overflows: lock(&self.events.seen).overflows,
            // Counted where the index is searched (`storage`).
            reused: 0,
            restamped: 0,
            stores,
        }
    }
}

/// What `status` says of one store.
fn store_watch(agent: &'static str, s: &Store) -> StoreWatch {
    match &s.state {
        State::Watched {
            few: Some(n),
            directories,
            ..
        } => StoreWatch {
            agent,
            watched: false,
            reason: Some(format!(
                "{n} sources, stat'ed at every call (fewer than \
                         AGENT_MUX_WATCH_MIN_SOURCES)"
            )),
            directories: *directories,
            listings: s.listings,
        },
        State::Watched { directories, .. } => StoreWatch {
            agent,
            watched: true,
            reason: None,
            directories: *directories,
            listings: s.listings,
        },
        State::Unwatched { reason, .. } => StoreWatch {
            agent,
            watched: false,
            reason: Some(reason.clone()),
            directories: 0,
            listings: s.listings,
        },
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.marker_dir);
    }
}

enum Fault {
    SystemLimit,
    Other(String),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::SystemLimit => f.write_str(SYSTEM_LIMIT),
            Fault::Other(s) => f.write_str(s),
        }
    }
}

/// `a`'s sources listed and stat'ed in full, counted against its store.
fn listing(store: &mut Store, ctx: &Context, a: &dyn Agent) -> Vec<Source> {
    store.listings += 1;
    a.sources(ctx)
}

/// Files (or directories) changed between two calls beyond which a store is listed again
/// rather than each looked up.
const MOST_FILES: usize = 4096;

const SYSTEM_LIMIT: &str = "the system's limit of watches reached (fs.inotify.max_user_watches)";

fn unwatched(reason: String, retry: bool) -> State {
    State::Unwatched { reason, retry }
}

/// Why a store listed as `sources` cannot be watched from `places`: a file outside them, or a
/// symlink (a change to its target raises no event here).
fn unwatchable(places: &[PathBuf], sources: &[Source]) -> Option<String> {
    (sources.par_iter())
        .flat_map_iter(|s| std::iter::once(&s.path).chain(&s.side_files))
        .find_map_any(|p| {
            if !places.iter().any(|pl| p.starts_with(pl)) {
                return Some(format!("{} is outside the places watched", p.display()));
            }
            let link = std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
            link.then(|| format!("{} is a symlink", p.display()))
        })
}

/// Device and inode of each place (0s for one that is not there).
fn place_ids(places: &[PathBuf]) -> Vec<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    (places.iter())
        .map(|p| std::fs::metadata(p).map_or((0, 0), |m| (m.dev(), m.ino())))
        .collect()
}

/// Directories in `dir` and beneath (symlinks not followed, as the watcher does not), counted
/// up to `most`.
fn count_dirs(dir: &Path, most: u64) -> u64 {
    let mut n = 0;
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        n += 1;
        if n >= most {
            return n;
        }
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(e.path());
            }
        }
    }
    n
}

/// The kind of network file system `p` is on, if it is on one.
#[cfg(target_os = "linux")]
fn network_fs(p: &Path) -> Option<&'static str> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `st` a buffer of the size statfs writes.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(match st.f_type as u64 {
        0x6969 => "nfs",
        0x517b => "smb",
        0xff534d42 => "cifs",
        0xfe534d42 => "smb2",
        0x65735546 => "fuse",
        0x01021997 => "9p",
        0x00c36400 => "ceph",
        0x5346414f => "afs",
        0x73757245 => "coda",
        0x564c => "ncp",
        _ => return None,
    })
}

#[cfg(not(target_os = "linux"))]
fn network_fs(_: &Path) -> Option<&'static str> {
    None
}

impl Events {
    /// One event from the watcher's thread: noted against the stores it falls in.
    fn handle(&self, e: notify::Result<notify::Event>) {
        use notify::event::{AccessKind, AccessMode, CreateKind, EventKind, ModifyKind};
        let mut seen = lock(&self.seen);
        let e = match e {
            Ok(e) => e,
            Err(e) => {
                let why = match e.kind {
                    notify::ErrorKind::MaxFilesWatch => SYSTEM_LIMIT.to_string(),
                    _ => format!("the watcher failed: {e}"),
                };
                let agents: Vec<&'static str> = seen.roots.iter().map(|(_, a)| *a).collect();
                for a in agents {
                    seen.changed.entry(a).or_default().failed = Some(why.clone());
                }
                return;
            }
        };
        if e.need_rescan() {
            seen.overflows += 1;
            let agents: Vec<&'static str> = seen.roots.iter().map(|(_, a)| *a).collect();
            for a in agents {
                seen.changed.entry(a).or_default().relist = true;
            }
            return;
        }
        for p in &e.paths {
            if p.parent() == Some(seen.marker_dir.as_path()) {
                if let EventKind::Create(_) = e.kind {
                    let n = p.file_name().and_then(|n| n.to_str()?.parse().ok());
                    seen.marker = seen.marker.max(n.unwrap_or(0));
                    self.marker_seen.notify_all();
                    if let Some((_, stall)) = seen.stall.filter(|&(at, _)| n == Some(at)) {
                        seen.stall = None;
                        drop(seen);
                        std::thread::sleep(stall);
                        return;
                    }
                }
                continue;
            }
            let Seen { roots, changed, .. } = &mut *seen;
            for (root, agent) in roots.iter() {
                if !p.starts_with(root) {
                    continue;
                }
                let c = changed.entry(*agent).or_default();
                match e.kind {
                    // Reads (ours among them) change nothing.
                    EventKind::Access(AccessKind::Close(AccessMode::Write)) => {
                        c.files.push(p.clone())
                    }
                    EventKind::Access(_) => {}
                    _ if p == root => {
                        c.rewatch = true;
                        c.relist = true;
                    }
                    EventKind::Create(CreateKind::File) => c.relist = true,
                    EventKind::Modify(ModifyKind::Name(_)) | EventKind::Create(_) => {
                        c.dirs.push(p.clone());
                        c.relist = true;
                    }
                    EventKind::Modify(_) => c.files.push(p.clone()),
                    _ => c.relist = true,
                }
                // A store written a great deal between two calls is listed again.
                if c.files.len() > MOST_FILES {
                    c.files = Vec::new();
                    c.relist = true;
                }
                if c.dirs.len() > MOST_FILES {
                    c.dirs = Vec::new();
                    c.rewatch = true;
                    c.relist = true;
                }
            }
        }
    }
}
