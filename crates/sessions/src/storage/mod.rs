//! The one storage layer beneath the engines. It answers two questions, from the persistent
//! index when it can be used and from the agents otherwise:
//! - the summaries of an agent's sessions (`Storage::summaries`): the index's, else the agent's
//!   sources read through the client's `SummaryCache`;
//! - the sessions that hold given terms (`Storage::documents`): the index's `TermLookup` over one
//!   snapshot, else the agents themselves, whose sources the search engine scans.
//!
//! Every fall back from the index to the agents is decided here: an index that is off, cannot be
//! opened or brought up to date, or fails midway through a search (then the search is offered
//! the agents' documents next). The engines never choose between them.
use std::collections::HashSet;

use crate::agents::{self, Agent};
use crate::context::{Context, IndexUpdates};
use crate::error::{Error, Result};
use crate::index;
use crate::model::SessionSummary;
use crate::read::project::Projects;

pub mod cache;
pub mod kept;
pub mod last_update;
pub mod touched;
pub mod updates;

pub use crate::index::archived::KeptSource;
pub use crate::index::lookup::{
    At, DocId, FoundDoc, NeedleFree, ReadDoc, Searched, SourceId, StoredSummary, TermLookup,
};
pub use crate::index::store::Fault;
pub use crate::index::{Status, WatchStatus};
pub use cache::{dedupe_by_id, SummaryCache};
use updates::Updates;

/// Where a search finds the sessions of the agents without a search engine of their own.
pub enum Documents<'a> {
    /// The index, brought up to date with the stores: the sessions that hold given terms are
    /// looked up. With the restored kept copies it does not hold (those of agents it does not
    /// serve, or that another process writing it kept out), which the search reads itself.
    Indexed(Box<dyn TermLookup>, Vec<KeptSource>),
    /// The agents' own sources, to be read.
    Agents(&'a [&'static dyn Agent]),
}

/// The sources of each agent a call listed once (`Storage::keep_changed`, `Storage::listing`),
/// which the rest of the call uses rather than listing them again.
#[derive(Default)]
pub struct CallSources {
    listed: std::collections::HashMap<&'static str, Vec<agents::Source>>,
    /// Whether the kept store took what changed in them.
    kept: bool,
}

impl CallSources {
    /// Whether `agent`'s sources were listed for the kept store (and so which kept sources are
    /// gone is known).
    pub fn has(&self, agent: &dyn Agent) -> bool {
        self.kept && self.listed.contains_key(agent.name())
    }

    /// `agent`'s sources as the call listed them, when it did.
    pub fn of(&self, agent: &dyn Agent) -> Option<&Vec<agents::Source>> {
        self.listed.get(agent.name())
    }

    /// The sources of each of `agents`, when the call listed them all.
    fn of_all(&self, agents: &[&'static dyn Agent]) -> Option<Vec<Vec<agents::Source>>> {
        agents.iter().map(|a| self.of(*a).cloned()).collect()
    }
}

/// What a client keeps between calls: the summaries it read from the agents or last listed from
/// the index, and whether a search left changes for the caller to write into the index.
#[derive(Default)]
pub struct Storage {
    cache: SummaryCache,
    listed: index::Listed,
    updates: Updates,
    kept: kept::KeptState,
    /// The OS's file events, for a client that lives (`ClientOptions::watch`).
    watch: index::Watch,
    /// What its last search made of the index, searched again while nothing changed.
    warm: index::Warm,
}

impl Storage {
    pub fn cache(&self) -> &SummaryCache {
        &self.cache
    }

    /// Unpriced summaries of every session of `agent`, one per session id.
    pub fn summaries(&self, ctx: &Context, agent: &dyn Agent) -> Vec<SessionSummary> {
        self.summaries_and_skipped(ctx, agent).0
    }

    /// `summaries`, with the sources this listing could not read and why (`doctor`).
    pub fn summaries_and_skipped(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
    ) -> (Vec<SessionSummary>, Vec<(std::path::PathBuf, String)>) {
        // Listed once, for the index (or the cache) and the kept store.
        let sources = self.watch.sources(ctx, agent);
        let for_keep = kept::wanted(ctx).then(|| sources.clone());
        let (mut v, skipped) = match index::summaries(ctx, agent, &self.listed, sources.clone()) {
            Some(listing) => {
                self.cache.note_skipped(listing.skipped.clone());
                (dedupe_by_id(listing.summaries), listing.skipped)
            }
            None => {
                let (v, skipped) = self.cache.all_and_skipped_of(ctx, agent, &sources);
                (without_requests(v), skipped)
            }
        };
        drop(sources);
        v = self.with_archived(ctx, agent, v, for_keep, &|_| true);
        (v, skipped)
    }

    /// The unpriced summaries of the sessions of `agent` last active at or after `since` (a
    /// recap's), one per session id: from the index, only the sources that recent are read.
    /// `listed`: the call's listing (the touches of these sessions are read from it too).
    pub fn summaries_since(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        since: crate::model::Timestamp,
        listed: &CallSources,
    ) -> Vec<SessionSummary> {
        // Listed once, for the index and the kept store.
        let sources = (listed.of(agent).cloned()).unwrap_or_else(|| self.watch.sources(ctx, agent));
        let for_keep = kept::wanted(ctx).then(|| sources.clone());
        let Some(listing) = index::summaries_since(ctx, agent, since, sources) else {
            let mut v = self.summaries(ctx, agent);
            v.retain(|s| s.updated_at >= since);
            return v;
        };
        self.cache.note_skipped(listing.skipped);
        // The copy a whole listing keeps of a session (its latest) is as recent as any other.
        let v = dedupe_by_id(listing.summaries);
        self.with_archived(ctx, agent, v, for_keep, &|s| s.updated_at >= since)
    }

    /// A listing `v` of `agent` with its archived sessions that `wanted` accepts and that `v`
    /// does not hold, each session once, with its project. `for_keep`: the sources as this call
    /// listed them, when the kept store is to take what changed first.
    fn with_archived(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        mut v: Vec<SessionSummary>,
        for_keep: Option<Vec<agents::Source>>,
        wanted: &dyn Fn(&SessionSummary) -> bool,
    ) -> Vec<SessionSummary> {
        // After the listing: the index (or the cache) holds what each changed source holds.
        let just_kept = for_keep.is_some();
        let live: HashSet<String> = v.iter().map(|s| s.session_id.clone()).collect();
        if let Some(sources) = for_keep {
            let live = Some(&live);
            kept::keep_changed(&self.kept, &self.cache, ctx, agent, &sources, live, None);
        }
        let mut archived = kept::archived(
            &self.kept,
            &self.cache,
            ctx,
            agent,
            &|id| live.contains(id),
            just_kept,
            false,
        );
        archived.retain(|s| wanted(s));
        if !archived.is_empty() {
            v.extend(without_requests(archived));
            v = dedupe_by_id(v);
        }
        Projects::default().fill(v.iter_mut());
        v
    }

    /// When the index was last brought up to date by `update_index` or `rebuild_index`, and how
    /// long that took.
    pub fn index_last_update(&self, ctx: &Context) -> Option<last_update::LastUpdate> {
        last_update::read(&index::dir::resolve(ctx)?)
    }

    /// A fingerprint of what `agent` holds here now: its sources (paths and stamps) and the
    /// sessions kept for it. While it is the same, its sessions list, cost and read the same.
    pub fn fingerprint(&self, ctx: &Context, agent: &dyn Agent) -> String {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for src in self.watch.sources(ctx, agent) {
            let path = src.path.to_string_lossy();
            h.update(&(path.len() as u64).to_le_bytes());
            h.update(path.as_bytes());
            h.update(&index::sync::key(&src));
        }
        let mut kept: Vec<String> = self.kept_ids(ctx, agent.name()).into_iter().collect();
        kept.sort_unstable();
        for id in kept {
            h.update(id.as_bytes());
            h.update(&[0]);
        }
        format!("{:032x}", h.digest128())
    }

    /// Every summary of `agent` with its `requests`, `passes` times over in the same order,
    /// passed to `f` with the pass's number: for a caller that must see them all before it can
    /// use any. From the index without holding them all, else read through the cache.
    pub fn each_summary(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        passes: usize,
        f: &mut dyn FnMut(usize, SessionSummary),
    ) {
        let mut projects = Projects::default();
        let f = &mut |pass: usize, mut s: SessionSummary| {
            projects.fill([&mut s]);
            f(pass, s)
        };
        // Listed once, for the index and the kept store.
        let sources = self.watch.sources(ctx, agent);
        // Kept first (once the index holds what each changed source holds), so that a session a
        // database lost since it was last kept is found archived below.
        let just_kept = kept::wanted(ctx);
        if just_kept {
            if crate::keep::place::is_on(ctx).0 {
                let _ = index::sync_summaries(ctx, agent, sources.clone());
            }
            kept::keep_changed(&self.kept, &self.cache, ctx, agent, &sources, None, None);
        }
        let archived = kept::archived(
            &self.kept,
            &self.cache,
            ctx,
            agent,
            &|_| false,
            just_kept,
            true,
        );
        if archived.is_empty() {
            self.each_live_summary(ctx, agent, passes, f, sources);
            return;
        }
        // The archived sessions join each pass before the next begins (a caller may need all of
        // one pass before the next: the cost engine's dedupe).
        let mut at = 0;
        let mut g = |pass: usize, s: SessionSummary| {
            while at < pass {
                archived.iter().for_each(|a| f(at, a.clone()));
                at += 1;
            }
            f(pass, s)
        };
        self.each_live_summary(ctx, agent, passes, &mut g, sources);
        while at < passes {
            archived.iter().for_each(|a| f(at, a.clone()));
            at += 1;
        }
    }

    fn each_live_summary(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        passes: usize,
        f: &mut dyn FnMut(usize, SessionSummary),
        sources: Vec<agents::Source>,
    ) {
        match index::each_summary(ctx, agent, passes, f, sources.clone()) {
            Some(skipped) => self.cache.note_skipped(skipped),
            None => {
                let (v, _) = self.cache.all_and_skipped_of(ctx, agent, &sources);
                for pass in 0..passes.saturating_sub(1) {
                    v.iter().for_each(|s| f(pass, s.clone()));
                }
                if passes > 0 {
                    v.into_iter().for_each(|s| f(passes - 1, s));
                }
            }
        }
    }

    /// The same for the sessions whose id is in `ids` only (the hits of an agent's own search,
    /// in a store of tens of thousands of sessions).
    pub fn summaries_with_ids(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        ids: &HashSet<&str>,
    ) -> Vec<SessionSummary> {
        match index::summaries(ctx, agent, &self.listed, self.watch.sources(ctx, agent)) {
            Some(listing) => {
                self.cache.note_skipped(listing.skipped);
                let mut v = dedupe_by_id(listing.summaries);
                v.retain(|s| ids.contains(s.session_id.as_str()));
                v
            }
            None => {
                let mut v = without_requests(self.cache.summaries_with_ids(ctx, agent, ids));
                Projects::default().fill(v.iter_mut());
                v
            }
        }
    }

    /// The documents a search of `agents` can read, best first: the index's when it can be
    /// used, then the agents' own. A search answers from the first that does not fail: a fault
    /// in the index (reported as it is met, a damaged index removed) sends it to the agents'.
    /// Unless the client's `IndexUpdates` says to wait, the index is not written first: the
    /// sources changed since are scanned by the search and written after it (`updates`).
    /// `kept`: the restored copies of archived sessions (`archived_sources`), which the index
    /// holds for the agents it serves.
    pub fn documents<'a>(
        &self,
        ctx: &Context,
        agents: &'a [&'static dyn Agent],
        kept: &[KeptSource],
        listed: &CallSources,
    ) -> impl Iterator<Item = Documents<'a>> {
        let write = ctx.options.index_updates == IndexUpdates::Wait;
        let (indexable, mut others): (Vec<KeptSource>, Vec<KeptSource>) =
            (kept.iter().cloned()).partition(|(a, ..)| agents.iter().any(|x| x.name() == a.name()));
        // No agent to read: the index is not even opened.
        // The sources this call listed for the kept store, when it listed every agent's.
        let listed = listed.of_all(agents);
        let indexed = match agents.is_empty() {
            true => None,
            false => index::snapshot(
                ctx,
                agents,
                write,
                &self.watch,
                &self.warm,
                &indexable,
                listed,
            ),
        };
        indexed
            .map(|(s, left)| {
                others.extend(left);
                Documents::Indexed(self.updates.lookup(ctx, agents, s), others)
            })
            .into_iter()
            .chain(std::iter::once(Documents::Agents(agents)))
    }

    /// Bring the index up to date for every search now (`amux index update`), once this
    /// process's own writing of it is done. Another process writing it is waited for, unless
    /// `if_idle` (then it is left to finish).
    pub fn update_index(&self, ctx: &Context, if_idle: bool) -> Result<Status> {
        let Some(dir) = index::dir::resolve(ctx) else {
            return Err(off());
        };
        self.updates.take_pending();
        updates::wait(&dir);
        // Every agent: those searched by their own engine have their touches in the index.
        let (began, agents) = (updates::began(), agents::all().to_vec());
        let started = std::time::SystemTime::now();
        // Every agent's sources listed once, for the index and the kept store (the agents the
        // index does not hold only when the kept store wants them).
        let keeping = kept::wanted(ctx);
        let listed_agents: Vec<&'static dyn Agent> = match keeping {
            true => agents::all().to_vec(),
            false => agents.clone(),
        };
        let listed = self.watch.sources_of(ctx, &listed_agents);
        let listed: Vec<(&'static dyn Agent, Vec<agents::Source>)> =
            listed_agents.into_iter().zip(listed).collect();
        let indexed: Vec<(&'static dyn Agent, Vec<agents::Source>)> = (listed.iter())
            .filter(|(a, _)| agents.iter().any(|x| x.name() == a.name()))
            .cloned()
            .collect();
        // The chunks of what changed are stored beside the index's write (no manifest names
        // them until the index says which sessions each source holds).
        let (wrote, mut ahead) = std::thread::scope(|s| {
            let ahead = keeping.then(|| s.spawn(|| kept::chunks_ahead(&self.kept, ctx, &listed)));
            let wrote = index::update_listed(ctx, &indexed, !if_idle);
            (wrote, ahead.and_then(|h| h.join().ok()).unwrap_or_default())
        });
        let wrote = wrote.ok_or_else(|| Error::internal("the index could not be written"))?;
        drop(indexed);
        if wrote {
            updates::written(ctx, &dir, &agents, began);
        }
        // After the update: the index holds what each changed source holds.
        if keeping {
            for (a, sources) in &listed {
                let ahead = ahead.remove(a.name());
                let ahead = ahead.as_ref();
                kept::keep_changed(&self.kept, &self.cache, ctx, *a, sources, None, ahead);
            }
        }
        if wrote {
            last_update::record(&dir, started);
        }
        Ok(self.index_status(ctx))
    }

    /// What this client's searches left for the index that this process has not written.
    pub fn index_left(&self) -> Vec<updates::Left> {
        self.updates.left()
    }

    /// Wait until no thread of this process writes the index of `ctx`, or one that this client's
    /// searches left changes for, nor keeps what this client's answers left; with `close`, what
    /// they left is then forgotten.
    pub fn index_idle(&self, ctx: &Context, close: bool) {
        self.updates.wait_all(index::dir::resolve(ctx).as_ref());
        self.kept.settle(None);
        if close {
            self.updates.forget_left();
        }
    }

    /// Keep the sources of `agents` that changed since they were kept, when keeping is on: before
    /// a call asks which sessions are archived, so that one a database lost since is found. The
    /// sources listed for it are returned, for the rest of the call (`documents`) to use.
    pub fn keep_changed(&self, ctx: &Context, agents: &[&'static dyn Agent]) -> CallSources {
        if !kept::wanted(ctx) {
            return CallSources::default();
        }
        self.listed(ctx, agents, true)
    }

    /// The sources of `agents`, listed once for a call that asks the index more than one
    /// question (`file:` with words: the touches, then the terms); the kept store takes what
    /// changed first, when keeping is on, as `keep_changed`.
    pub fn listing(&self, ctx: &Context, agents: &[&'static dyn Agent]) -> CallSources {
        self.listed(ctx, agents, kept::wanted(ctx))
    }

    /// The sources of `agents`, listed once for a call that reads them more than once (the
    /// recap: the summaries, then the touches), the kept store left to the reads.
    pub fn sources_of(&self, ctx: &Context, agents: &[&'static dyn Agent]) -> CallSources {
        self.listed(ctx, agents, false)
    }

    fn listed(&self, ctx: &Context, agents: &[&'static dyn Agent], kept: bool) -> CallSources {
        let listed = self.watch.sources_of(ctx, agents);
        let mut out = CallSources {
            kept,
            ..Default::default()
        };
        for (a, sources) in agents.iter().zip(listed) {
            if kept {
                kept::keep_changed(&self.kept, &self.cache, ctx, *a, &sources, None, None);
            }
            out.listed.insert(a.name(), sources);
        }
        out
    }

    /// The restored sources of the kept sessions of `agent` whose source is gone, each with the
    /// ids it serves (a search reads them beside the live documents). `listed`: what this call's
    /// `keep_changed` returned, which tells which sources are gone.
    pub fn archived_sources(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        listed: &CallSources,
    ) -> Vec<(agents::Source, HashSet<String>)> {
        kept::archived_sources(&self.kept, ctx, agent, listed.has(agent))
    }

    /// The restored copies of `agent`'s archived sessions as contexts whose stores are the
    /// copies, each with the ids it serves (an agent's own search engine searches them).
    pub fn archived_contexts(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        listed: &CallSources,
    ) -> Vec<(Context, HashSet<String>)> {
        kept::archived_contexts(&self.kept, ctx, agent, listed.has(agent))
    }

    /// The summaries of `agent`'s archived sessions whose id is in `ids`, marked archived.
    pub fn archived_with_ids(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        ids: &HashSet<&str>,
        listed: &CallSources,
    ) -> Vec<SessionSummary> {
        let not_asked = |id: &str| !ids.contains(id);
        let v = kept::archived(
            &self.kept,
            &self.cache,
            ctx,
            agent,
            &not_asked,
            listed.has(agent),
            false,
        );
        without_requests(v)
    }

    /// One session by id, from its source, else from its kept copy when the source no longer
    /// holds it; and whether it came from the kept copy (it is archived).
    pub fn load(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        id: &str,
        mode: agents::Mode,
    ) -> Result<(crate::model::Session, bool)> {
        match agent.load(ctx, id, mode) {
            Err(e) if e.code == crate::error::ErrorCode::SessionNotFound => {
                // A session a database lost since it was last kept is archived once it is kept.
                let just_kept = kept::wanted(ctx);
                if just_kept {
                    let sources = self.watch.sources(ctx, agent);
                    kept::keep_changed(&self.kept, &self.cache, ctx, agent, &sources, None, None);
                }
                match kept::load(&self.kept, ctx, agent, id, mode, just_kept) {
                    Err(k) if k.code == crate::error::ErrorCode::SessionNotFound => Err(e),
                    r => r.map(|s| (s, true)),
                }
            }
            r => r.map(|s| (s, false)),
        }
    }

    /// Whether keeping is on, where, and how much is kept (`client.keep.status()`); the
    /// retention figures are the caller's.
    pub fn keep_status(&self, ctx: &Context, verify: bool) -> kept::KeepStatus {
        kept::status(&self.kept, &self.cache, ctx, verify)
    }

    /// The native ids of `agent`'s kept sessions.
    pub fn kept_ids(&self, ctx: &Context, agent: &str) -> HashSet<String> {
        kept::ids(&self.kept, ctx, agent)
    }

    /// Turn keeping on or off in the setting (`amux keep on|off`).
    pub fn set_keep(&self, ctx: &Context, on: bool) -> Result<()> {
        crate::keep::place::write_setting(ctx, on)
            .map(|_| ())
            .map_err(|e| Error::internal(format!("the keep setting could not be written: {e}")))
    }

    /// Forget kept sessions: those named (agent, native id), or last updated before `before_ms`.
    pub fn forget_kept(
        &self,
        ctx: &Context,
        ids: &HashSet<(String, String)>,
        before_ms: Option<i64>,
    ) -> Result<usize> {
        let Some(k) = crate::keep::Kept::of(ctx) else {
            return Ok(0);
        };
        self.kept.settle(None);
        k.forget(ids, before_ms)
            .map_err(|e| Error::internal(format!("{}: {e}", k.dir.display())))
    }

    /// Whether a search left changes for the caller to write (`IndexUpdates::Deferred`).
    pub fn index_pending(&self) -> bool {
        self.updates.pending()
    }

    /// Whether a thread of this process is writing the index of `ctx`.
    pub fn index_writing(&self, ctx: &Context) -> bool {
        index::dir::resolve(ctx).is_some_and(|d| updates::writing(&d))
    }

    /// The index's directory, size and freshness (`amux index status`).
    pub fn index_status(&self, ctx: &Context) -> Status {
        let mut status = index::status(ctx, &searched_from_documents(), &self.watch);
        status.watch = self.watch.status(ctx);
        status.watch.reused = self.warm.reused();
        status.watch.restamped = self.warm.restamped();
        status
    }

    /// Delete the index and build it again for every agent (`amux index rebuild`).
    pub fn rebuild_index(&self, ctx: &Context) -> Result<Status> {
        let Some(dir) = index::dir::resolve(ctx) else {
            return Err(off());
        };
        updates::wait(&dir);
        let started = std::time::SystemTime::now();
        index::rebuild(ctx, agents::all(), agents::all()).map_err(Error::internal)?;
        last_update::record(&dir, started);
        Ok(self.index_status(ctx))
    }

    /// Delete the index (`amux index clear`), once this process's own writing of it is done;
    /// false when it is off.
    pub fn clear_index(&self, ctx: &Context) -> Result<bool> {
        if let Some(dir) = index::dir::resolve(ctx) {
            updates::wait(&dir);
            last_update::forget(&dir);
        }
        index::clear(ctx).map_err(|e| Error::internal(e.to_string()))
    }
}

fn off() -> Error {
    Error::validation("the index is off (cacheDir: false or AGENT_MUX_NO_CACHE)")
}

/// Summaries as list and search return them: each request (`SessionSummary::requests`) is for
/// the cost engine only, and the index does not decode them for a listing either.
pub fn without_requests(mut v: Vec<SessionSummary>) -> Vec<SessionSummary> {
    for s in &mut v {
        s.requests = Vec::new();
    }
    v
}

/// The agents whose search reads documents (the index's or their own): those without a search
/// engine of their own.
fn searched_from_documents() -> Vec<&'static dyn Agent> {
    agents::all()
        .iter()
        .copied()
        .filter(|a| a.native_search().is_none())
        .collect()
}
