//! What the storage layer does with the kept store (`crate::keep`): when keeping is on, a call
//! that reads an agent's sources keeps those that changed since they were kept; and a kept
//! session whose source is gone (a file deleted, a session deleted inside a database) is
//! answered from its kept version, restored and read by the agent's own parser, marked
//! `archived`. While the source exists, the source wins.
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::agents::{Agent, Mode, Source};
use crate::context::Context;
use crate::error::{Error, ErrorCode, Result};
use crate::index;
use crate::keep::catalog::At;
use crate::keep::{self, Catalog, Chunked, Given, Kept, KeptSession, Written};
use crate::model::{Session, SessionSummary};

use super::cache::SummaryCache;

/// A catalog as read: the store it is of, where it stood then, and what it held.
type ReadCatalog = (PathBuf, Option<At>, Arc<Catalog>);

/// The archived sessions of an agent by the kept version that serves them: `(manifest name,
/// version) → ids`.
type Plan = BTreeMap<(String, usize), HashSet<String>>;

/// What a client holds of the kept store between its calls.
#[derive(Default)]
pub struct KeptState {
    held: Arc<Held>,
    /// The paths of each agent's sources as the last keep of it found them: whether a kept
    /// source is gone, without a stat of each.
    live: Mutex<std::collections::HashMap<String, Arc<HashSet<PathBuf>>>>,
    /// The keep of each agent a client that lives left to a thread after its answer (`later`).
    later: Mutex<std::collections::HashMap<&'static str, std::thread::JoinHandle<()>>>,
    /// Each agent's listing (its number, `index::watch::number_of`) that the last keep found
    /// wholly kept, with the kept store and where its catalog stood then: while they are the
    /// same, nothing is left to keep and the sources are not compared with the catalog again.
    all_kept: Mutex<std::collections::HashMap<String, (PathBuf, u64, At)>>,
}

/// What a client's calls and the threads keeping after its answers share.
#[derive(Default)]
struct Held {
    /// The catalog last read or written, while it stands where it stood then.
    catalog: Mutex<Option<ReadCatalog>>,
    /// Faults met reading the store (damaged chunks or manifests), for status and doctor.
    faults: Mutex<Vec<String>>,
}

impl KeptState {
    fn catalog(&self, kept: &Kept) -> Arc<Catalog> {
        self.held.read(kept).1
    }

    pub fn note(&self, faults: Vec<String>) {
        self.held.note(faults)
    }

    pub fn faults(&self) -> Vec<String> {
        (self.held.faults.lock().unwrap_or_else(|e| e.into_inner())).clone()
    }

    /// Wait for the keep left to a thread for `agent` (every agent's: `None`).
    pub fn settle(&self, agent: Option<&str>) {
        let left: Vec<std::thread::JoinHandle<()>> = {
            let mut later = self.later.lock().unwrap_or_else(|e| e.into_inner());
            let names: Vec<&'static str> = (later.keys().copied())
                .filter(|n| agent.is_none_or(|a| a == *n))
                .collect();
            names.iter().filter_map(|n| later.remove(n)).collect()
        };
        for t in left {
            let _ = t.join();
        }
    }
}

impl Held {
    /// The catalog, with where it stood when read.
    fn read(&self, kept: &Kept) -> (Option<At>, Arc<Catalog>) {
        let at = kept.catalog_at();
        let mut held = self.catalog.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((dir, a, c)) = held.as_ref() {
            if *dir == kept.dir && *a == at && at.is_some() {
                return (at, c.clone());
            }
        }
        let (c, at, faults) = kept.catalog_read();
        self.note(faults);
        let c = Arc::new(c);
        *held = Some((kept.dir.clone(), at.clone(), c.clone()));
        (at, c)
    }

    /// The catalog held, for a writer (who changes it without a copy when no one else holds it
    /// then: `give_up`), with where it stood when read.
    fn for_writer(&self, kept: &Kept, give_up: bool) -> Option<(At, Arc<Catalog>)> {
        let mut held = self.catalog.lock().unwrap_or_else(|e| e.into_inner());
        let mine = |h: &ReadCatalog| h.0 == kept.dir && h.1.is_some();
        match give_up {
            true => held.take().filter(mine),
            false => held.clone().filter(mine),
        }
        .and_then(|(_, at, c)| Some((at?, c)))
    }

    /// What a writer wrote, held for the next calls: its changes applied to the catalog held
    /// when that is the one it was given (no copy unless another call holds it meanwhile), else
    /// to the one it wrote them to.
    fn hold(&self, kept: &Kept, w: Option<Written>) {
        let Some(w) = w else {
            return;
        };
        let mut held = self.catalog.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((dir, Some(at), c)) = held.as_mut() {
            if *dir == kept.dir && w.before.as_ref() == Some(&*at) && !w.changes.is_empty() {
                drop(w.base);
                Arc::make_mut(c).apply(&w.changes);
                *at = w.at;
                return;
            }
        }
        let mut c = w.base;
        Arc::make_mut(&mut c).apply(&w.changes);
        *held = Some((kept.dir.clone(), Some(w.at), c));
    }

    fn note(&self, faults: Vec<String>) {
        if faults.is_empty() {
            return;
        }
        let mut f = self.faults.lock().unwrap_or_else(|e| e.into_inner());
        for x in faults {
            if !f.contains(&x) {
                f.push(x);
            }
        }
    }
}

/// Whether a call needs `agent`'s sources listed for the kept store: keeping is on, or sessions
/// were kept before (which are archived once their source is gone).
pub fn wanted(ctx: &Context) -> bool {
    keep::place::is_on(ctx).0 || Kept::of(ctx).is_some_and(|k| k.exists())
}

/// Keep the sources of `agent` that changed since they were kept, when keeping is on.
/// `sources`: as this call listed them (through the watcher, or stat'ed for the index), so keep
/// adds no listing of its own; they also tell this call's `archived` which kept sources are gone.
/// `live`: the ids of the sessions this call's listing of `agent` holds, when it was made first:
/// a client that lives then keeps after its answer the sources that only grew, each still holding
/// every session it was kept with (`later_for`). `ahead`: chunks stored beside the index's write
/// (`chunks_ahead`).
pub fn keep_changed(
    state: &KeptState,
    cache: &SummaryCache,
    ctx: &Context,
    agent: &dyn Agent,
    sources: &[Source],
    live: Option<&HashSet<String>>,
    ahead: Option<&Chunked>,
) {
    let Some(kept) = Kept::of(ctx) else {
        return;
    };
    let on = keep::place::is_on(ctx).0;
    // Where the listing and the catalog stand now; asked only while keeping is on.
    let stand = on.then(|| (index::watch::number_of(sources), kept.catalog_at()));
    if let Some((listing, Some(at))) = &stand {
        let held = state.all_kept.lock().unwrap_or_else(|e| e.into_inner());
        // The same sources as the last call's, every one kept then, and no keep since.
        let same = |(d, n, a): &(PathBuf, u64, At)| *d == kept.dir && n == listing && a == at;
        if held.get(agent.name()).is_some_and(same) {
            return;
        }
    }
    let paths: HashSet<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
    (state.live.lock().unwrap_or_else(|e| e.into_inner()))
        .insert(agent.name().to_string(), Arc::new(paths));
    if !on {
        return;
    }
    // What this client left to a thread for this agent is kept first.
    state.settle(Some(agent.name()));
    let cat = state.catalog(&kept);
    let changed = kept.changed(&cat, agent.name(), sources);
    if changed.is_empty() {
        // Where the catalog stood before it was read: a keep in between is compared again.
        if let Some((listing, Some(at))) = stand {
            (state.all_kept.lock().unwrap_or_else(|e| e.into_inner()))
                .insert(agent.name().to_string(), (kept.dir.clone(), listing, at));
        }
        return;
    }
    if let Some(a) = later_for(ctx, agent, &cat, &changed, live) {
        let sources: Vec<Source> = changed.into_iter().cloned().collect();
        let (held, ctx) = (state.held.clone(), ctx.clone());
        let job = std::thread::spawn(move || {
            keep::pause::arm(&ctx);
            keep::pause::at("later");
            let changed: Vec<&Source> = sources.iter().collect();
            let cache = SummaryCache::default();
            let given = Given {
                catalog: held.for_writer(&kept, false),
                chunks: None,
            };
            take(&held, &cache, &ctx, a, &kept, &changed, given);
        });
        let before = (state.later.lock().unwrap_or_else(|e| e.into_inner())).insert(a.name(), job);
        // Another call of the client left one meanwhile: it is waited for still.
        if let Some(t) = before {
            let _ = t.join();
        }
        return;
    }
    drop(cat);
    let given = Given {
        catalog: state.held.for_writer(&kept, true),
        chunks: ahead,
    };
    take(&state.held, cache, ctx, agent, &kept, &changed, given);
}

/// The agent whose `changed` sources may be kept after the answer: in a client that lives, when
/// each was kept before and every session it was kept with is still in this call's listing
/// (`live`). Nothing this answer shows is then served from the kept store, and a client that
/// dies first leaves them to the next call (their stamps are not the catalog's).
fn later_for(
    ctx: &Context,
    agent: &dyn Agent,
    cat: &Catalog,
    changed: &[&Source],
    live: Option<&HashSet<String>>,
) -> Option<&'static dyn Agent> {
    let live = live.filter(|_| ctx.options.watch)?;
    let grown = changed.iter().all(|src| {
        let name = keep::manifest::name_of(agent.name(), &src.path);
        (cat.sources.get(&name))
            .is_some_and(|e| e.sessions.iter().all(|(id, ..)| live.contains(id)))
    });
    grown.then(|| crate::agents::find(agent.name())).flatten()
}

/// Keep `changed` of `agent`, each with the sessions the index read from it at these stamps
/// (a listing or an update just did), else read now through `cache`.
fn take(
    held: &Held,
    cache: &SummaryCache,
    ctx: &Context,
    agent: &dyn Agent,
    kept: &Kept,
    changed: &[&Source],
    given: Given,
) {
    let stored = index::stored_of(ctx, agent, changed).unwrap_or_default();
    let sessions_of = |src: &Source| -> Option<Vec<KeptSession>> {
        let kept = |v: &[SessionSummary]| -> Vec<KeptSession> {
            v.iter()
                .map(|s| KeptSession {
                    id: s.session_id.clone(),
                    updated_ms: s.updated_at.timestamp_millis(),
                })
                .collect()
        };
        match stored.get(&src.path) {
            Some(v) => Some(kept(v)),
            None => Some(kept(&cache.of_source(ctx, agent, src).ok()?)),
        }
    };
    let mut taken = kept.take(ctx, agent.name(), changed, &sessions_of, given);
    // What was just written, so that the next call does not read it back.
    held.hold(kept, taken.catalog.take());
    held.note(taken.faults);
}

/// The chunks of every source of `listed` that changed since it was kept, stored ahead of the
/// index's write (`Kept::take_chunks`), when keeping is on: by agent.
pub fn chunks_ahead(
    state: &KeptState,
    ctx: &Context,
    listed: &[(&'static dyn Agent, Vec<Source>)],
) -> std::collections::HashMap<&'static str, Chunked> {
    let Some(kept) = Kept::of(ctx).filter(|_| keep::place::is_on(ctx).0) else {
        return Default::default();
    };
    let cat = state.catalog(&kept);
    let ahead = (listed.iter())
        .map(|(a, sources)| {
            let changed = kept.changed(&cat, a.name(), sources);
            (a.name(), kept.take_chunks(ctx, a.name(), &changed))
        })
        .collect();
    // Not durable: each take stores its chunks again.
    match kept.sync_chunks() {
        Ok(()) => {
            keep::pause::at("chunks-ahead");
            ahead
        }
        Err(_) => Default::default(),
    }
}

/// Where kept versions are restored to be read: the cache directory (made again when it is
/// cleared), else the store's own.
fn restore_base(ctx: &Context, kept: &Kept) -> PathBuf {
    match index::dir::resolve(ctx) {
        Some(d) => d.join("kept"),
        None => kept.dir.join("restored"),
    }
}

/// The kept sessions of `agent` whose source no longer holds them, by the version that serves
/// them: `(manifest name, version) → ids`.
/// `just_kept`: this call listed `agent`'s sources for the kept store a moment ago
/// (`keep_changed`), so they tell which are gone without a stat of each.
fn gone(ctx: &Context, state: &KeptState, agent: &str, just_kept: bool) -> Option<(Kept, Plan)> {
    let kept = Kept::of(ctx)?;
    if !kept.exists() {
        return None;
    }
    let cat = state.catalog(&kept);
    // The sources this call listed (else each is stat'ed).
    let live_paths = match just_kept {
        true => (state.live.lock().unwrap_or_else(|e| e.into_inner()))
            .get(agent)
            .cloned(),
        false => None,
    };
    // The newest kept copy of each session: (updated, name, version).
    let mut newest: BTreeMap<&str, (i64, &str, usize, bool)> = BTreeMap::new();
    for (name, e) in cat.sources.iter().filter(|(_, e)| e.agent == agent) {
        let exists = match &live_paths {
            Some(p) => p.contains(&e.path),
            None => e.path.exists(),
        };
        for (id, updated, v) in &e.sessions {
            // Still in the source: its newest version is what the source holds.
            let live = exists && *v + 1 == e.versions;
            let better = newest.get(id.as_str()).is_none_or(|(u, ..)| updated > u);
            if better {
                newest.insert(id, (*updated, name, *v, live));
            }
        }
    }
    let mut plan = Plan::new();
    for (id, (_, name, v, live)) in newest {
        if !live {
            plan.entry((name.to_string(), v))
                .or_default()
                .insert(id.to_string());
        }
    }
    Some((kept, plan))
}

/// Summaries of the kept sessions of `agent` whose source is gone, marked archived, with their
/// requests when asked; none of `live`. As the index holds them (it reads each restored copy
/// once), else read from the copies.
pub fn archived(
    state: &KeptState,
    cache: &SummaryCache,
    ctx: &Context,
    agent: &dyn Agent,
    live: &dyn Fn(&str) -> bool,
    just_kept: bool,
    requests: bool,
) -> Vec<SessionSummary> {
    let gone = sources_of_gone(state, ctx, agent, just_kept);
    if gone.is_empty() {
        return Vec::new();
    }
    let mut out = match index::archived::summaries(ctx, agent, &gone, requests) {
        Some(v) => v,
        None => read_archived(state, cache, ctx, agent, gone),
    };
    out.retain(|s| !live(&s.session_id));
    out
}

/// The summaries (with their requests) of the archived sessions each copy serves, read from it.
fn read_archived(
    state: &KeptState,
    cache: &SummaryCache,
    ctx: &Context,
    agent: &dyn Agent,
    gone: Vec<(Source, HashSet<String>)>,
) -> Vec<SessionSummary> {
    let mut out = Vec::new();
    for (src, ids) in gone {
        match cache.of_source(ctx, agent, &src) {
            Ok(v) => out.extend(
                v.iter()
                    .filter(|s| ids.contains(&s.session_id))
                    .cloned()
                    .map(|mut s| {
                        s.archived = true;
                        s
                    }),
            ),
            Err(why) => state.note(vec![format!("{}: {why}", src.path.display())]),
        }
    }
    out
}

/// The restored sources of `agent`'s archived sessions, each with the ids it serves.
pub fn archived_sources(
    state: &KeptState,
    ctx: &Context,
    agent: &dyn Agent,
    just_kept: bool,
) -> Vec<(Source, HashSet<String>)> {
    sources_of_gone(state, ctx, agent, just_kept)
}

fn sources_of_gone(
    state: &KeptState,
    ctx: &Context,
    agent: &dyn Agent,
    just_kept: bool,
) -> Vec<(Source, HashSet<String>)> {
    (restored_of_gone(state, ctx, agent, just_kept).into_iter())
        .map(|(_, src, ids)| (src, ids))
        .collect()
}

/// The restored copies of `agent`'s archived sessions as contexts whose stores are the copies
/// (an agent's own search engine searches them as it searched the source), each with the ids
/// it serves.
pub fn archived_contexts(
    state: &KeptState,
    ctx: &Context,
    agent: &dyn Agent,
    just_kept: bool,
) -> Vec<(Context, HashSet<String>)> {
    (restored_of_gone(state, ctx, agent, just_kept).into_iter())
        .map(|(root, _, ids)| (keep::restore::context_under(ctx, &root), ids))
        .collect()
}

/// Each kept version that serves archived sessions of `agent`, restored: its root, its source
/// and the ids it serves.
fn restored_of_gone(
    state: &KeptState,
    ctx: &Context,
    agent: &dyn Agent,
    just_kept: bool,
) -> Vec<(PathBuf, Source, HashSet<String>)> {
    let Some((kept, plan)) = gone(ctx, state, agent.name(), just_kept) else {
        return Vec::new();
    };
    let base = restore_base(ctx, &kept);
    let mut out = Vec::new();
    for ((name, v), ids) in plan {
        match kept.restore(&base, &name, v) {
            Ok((_, root, src)) => out.push((root, src, ids)),
            // Damaged: reported, never served.
            Err(e) => state.note(vec![e]),
        }
    }
    out
}

/// Session `id` of `agent` from its kept copy, when its source no longer has it.
pub fn load(
    state: &KeptState,
    ctx: &Context,
    agent: &dyn Agent,
    id: &str,
    mode: Mode,
    just_kept: bool,
) -> Result<Session> {
    let not_found = || Error::session_not_found(agent.name(), id);
    let (kept, plan) = gone(ctx, state, agent.name(), just_kept).ok_or_else(not_found)?;
    let (name, v) = plan
        .into_iter()
        .find(|(_, ids)| ids.contains(id))
        .map(|(k, _)| k)
        .ok_or_else(not_found)?;
    let base = restore_base(ctx, &kept);
    let (_, root, _) = kept.restore(&base, &name, v).map_err(|e| {
        state.note(vec![e.clone()]);
        Error::new(
            ErrorCode::ParseError,
            format!("the kept copy of {id} could not be read: {e}"),
        )
    })?;
    agent.load(&keep::restore::context_under(ctx, &root), id, mode)
}

/// `client.keep.status()`, but for the agents' retention (the client adds it).
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeepStatus {
    pub on: bool,
    pub origin: &'static str,
    pub dir: PathBuf,
    pub setting_file: PathBuf,
    /// Sessions kept, and of them those whose source is gone.
    pub sessions: u64,
    pub archived: u64,
    /// Bytes of the store.
    pub bytes: u64,
    pub retention: Vec<RetentionRisk>,
    /// Damaged or unreadable kept files, as found (never served).
    pub damaged: Vec<String>,
}

/// Sessions an agent's own retention will delete that are not kept.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RetentionRisk {
    pub agent: &'static str,
    pub days: Option<f64>,
    pub at_risk: u64,
}

/// `verify`: every chunk checked against its hash too (else only that it is there; the chunks of
/// the archived sessions are checked anyway, by serving them).
pub fn status(state: &KeptState, cache: &SummaryCache, ctx: &Context, verify: bool) -> KeepStatus {
    state.settle(None);
    let (on, origin) = keep::place::is_on(ctx);
    let origin = match origin {
        keep::Origin::Option => "option",
        keep::Origin::Setting => "setting",
        keep::Origin::Default => "default",
    };
    let mut st = KeepStatus {
        on,
        origin,
        dir: keep::place::data_dir(ctx).unwrap_or_default(),
        setting_file: keep::place::setting_file(ctx).unwrap_or_default(),
        ..Default::default()
    };
    let Some(kept) = Kept::of(ctx) else {
        return st;
    };
    if kept.exists() {
        let cat = state.catalog(&kept);
        let mut agents: HashSet<&str> = HashSet::new();
        let mut all: HashSet<(&str, &str)> = HashSet::new();
        for e in cat.sources.values() {
            agents.insert(&e.agent);
            all.extend(
                e.sessions
                    .iter()
                    .map(|(id, ..)| (e.agent.as_str(), id.as_str())),
            );
        }
        st.sessions = all.len() as u64;
        // Archived: what is served (restored and read by the agent's parser), not what the
        // catalog names; the rest is damaged, and said so.
        for name in agents {
            let Some(agent) = crate::agents::find(name) else {
                continue;
            };
            let planned: HashSet<String> = gone(ctx, state, name, false)
                .map(|(_, plan)| plan.into_values().flatten().collect())
                .unwrap_or_default();
            let served: HashSet<String> =
                archived(state, cache, ctx, agent, &|_| false, false, false)
                    .into_iter()
                    .map(|s| s.session_id)
                    .collect();
            st.archived += served.len() as u64;
            let lost = planned.difference(&served).count();
            if lost > 0 {
                state.note(vec![format!(
                    "{lost} archived {name} session(s) cannot be served from their kept copy"
                )]);
            }
        }
        st.bytes = kept.bytes();
        // Checked now, not only what this process happened to read.
        state.note(kept.check(verify));
    }
    st.damaged = state.faults();
    st
}

/// The native ids of `agent`'s kept sessions.
pub fn ids(state: &KeptState, ctx: &Context, agent: &str) -> HashSet<String> {
    let Some(kept) = Kept::of(ctx).filter(Kept::exists) else {
        return HashSet::new();
    };
    let cat = state.catalog(&kept);
    (cat.sources.values())
        .filter(|e| e.agent == agent)
        .flat_map(|e| e.sessions.iter().map(|(id, ..)| id.clone()))
        .collect()
}
