//! The summaries of every source of an agent, read through the agent in parallel and kept per
//! client while the source's stamps (size, mtime, inode) are unchanged: what the storage layer
//! answers from when there is no index to use.
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::model::SessionSummary;
use crate::read::fs::Stamp;
use crate::read::page_cache::install_for;

type CacheKey = (&'static str, PathBuf);
/// One source's summaries, shared by the cache and the calls that read it.
type Shared = Arc<Vec<SessionSummary>>;
/// A source's summaries, or the source's path and why it was skipped.
type Summarised = Result<Shared, (PathBuf, String)>;

/// Summaries per source, reused while the source's stamps are unchanged.
#[derive(Default)]
pub struct SummaryCache {
    entries: Mutex<HashMap<CacheKey, (Vec<Stamp>, Shared)>>,
    skipped: Mutex<Vec<(PathBuf, String)>>,
    reads: std::sync::atomic::AtomicU64,
}

impl SummaryCache {
    /// Sources skipped by the last listing of any agent, with the reason (a corrupt db, a file
    /// that could not be read).
    pub fn skipped(&self) -> Vec<(PathBuf, String)> {
        lock(&self.skipped).clone()
    }

    /// Record the sources a listing skipped (the index's listing reports them here too).
    pub fn note_skipped(&self, skipped: Vec<(PathBuf, String)>) {
        if let Ok(mut s) = self.skipped.lock() {
            s.retain(|(p, _)| !skipped.iter().any(|(q, _)| q == p));
            s.extend(skipped);
        }
    }

    /// How many sources have been read (not served from cache) since the client was made.
    pub fn reads(&self) -> u64 {
        self.reads.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn lookup(&self, key: &CacheKey, stamps: &[Stamp]) -> Option<Arc<Vec<SessionSummary>>> {
        let entries = lock(&self.entries);
        let (s, v) = entries.get(key)?;
        (s.as_slice() == stamps).then(|| v.clone())
    }

    fn store(&self, key: CacheKey, stamps: Vec<Stamp>, v: Arc<Vec<SessionSummary>>) {
        lock(&self.entries).insert(key, (stamps, v));
    }

    /// Forget the summaries of `agent`'s sources that are gone (deleted sessions, a home that
    /// changed): a long-lived client must not keep every session it ever saw.
    fn forget_gone(&self, agent: &str, present: &[Source]) {
        let present: HashSet<&Path> = present.iter().map(|s| s.path.as_path()).collect();
        lock(&self.entries).retain(|(a, p), _| *a != agent || present.contains(p.as_path()));
    }

    /// How many sources have summaries cached (for tests of the pruning).
    pub fn cached_sources(&self) -> usize {
        lock(&self.entries).len()
    }

    /// Unpriced, untagged summaries of every session `agent` has. Unreadable sources are skipped
    /// and remembered in `skipped`; this never fails the whole call.
    pub fn all_summaries(&self, ctx: &Context, agent: &dyn Agent) -> Vec<SessionSummary> {
        self.summaries_where(ctx, agent, &|_| true)
    }

    /// The same for the sessions whose id is in `ids` only (search's hits in a store of tens of
    /// thousands of sessions): the others are not copied out of the cache.
    pub fn summaries_with_ids(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        ids: &std::collections::HashSet<&str>,
    ) -> Vec<SessionSummary> {
        self.summaries_where(ctx, agent, &|s| ids.contains(s.session_id.as_str()))
    }

    fn summaries_where(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        keep: &(dyn Fn(&SessionSummary) -> bool + Sync),
    ) -> Vec<SessionSummary> {
        let (out, skipped) = self.summaries_and_skipped(ctx, agent, keep);
        self.note_skipped(skipped);
        out
    }

    /// `all_summaries`, with the sources this read skipped and why.
    pub fn all_and_skipped(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
    ) -> (Vec<SessionSummary>, Vec<(PathBuf, String)>) {
        let (out, skipped) = self.summaries_and_skipped(ctx, agent, &|_| true);
        self.note_skipped(skipped.clone());
        (out, skipped)
    }

    /// `all_and_skipped` of `sources`, `agent`'s as the call listed them.
    pub fn all_and_skipped_of(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        sources: &[Source],
    ) -> (Vec<SessionSummary>, Vec<(PathBuf, String)>) {
        let (out, skipped) = self.read_sources(ctx, agent, sources, &|_| true);
        self.note_skipped(skipped.clone());
        (out, skipped)
    }

    fn summaries_and_skipped(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        keep: &(dyn Fn(&SessionSummary) -> bool + Sync),
    ) -> (Vec<SessionSummary>, Vec<(PathBuf, String)>) {
        self.read_sources(ctx, agent, &agent.sources(ctx), keep)
    }

    fn read_sources(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        sources: &[Source],
        keep: &(dyn Fn(&SessionSummary) -> bool + Sync),
    ) -> (Vec<SessionSummary>, Vec<(PathBuf, String)>) {
        self.forget_gone(agent.name(), sources);
        let results: Vec<Summarised> =
            install_for(sources.iter().map(|s| s.path.as_path()), || {
                sources
                    .par_iter()
                    .map(|src| self.summarise(ctx, agent, src))
                    .collect()
            });
        let mut out = Vec::new();
        let mut skipped = Vec::new();
        for r in results {
            match r {
                Ok(v) => out.extend(v.iter().filter(|s| keep(s)).cloned()),
                Err(s) => skipped.push(s),
            }
        }
        (dedupe_by_id(out), skipped)
    }

    /// The summaries of one source (with their requests), read through the cache.
    pub fn of_source(
        &self,
        ctx: &Context,
        agent: &dyn Agent,
        src: &Source,
    ) -> Result<Arc<Vec<SessionSummary>>, String> {
        self.summarise(ctx, agent, src).map_err(|(_, why)| why)
    }

    fn summarise(&self, ctx: &Context, agent: &dyn Agent, src: &Source) -> Summarised {
        let key = (agent.name(), src.path.clone());
        if let Some(hit) = self.lookup(&key, &src.stamps) {
            return Ok(hit);
        }
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match agent.summaries(ctx, src) {
            Ok(v) => {
                let v = Arc::new(v);
                self.store(key, src.stamps.clone(), v.clone());
                Ok(v)
            }
            Err(e) => Err((key.1, e.message)),
        }
    }
}

/// A lock whose holder panicked still guards consistent data here (every critical section is a
/// single insert, retain or clone), so it is recovered rather than read as "no cache".
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The same session can be found twice (a plain and a compressed copy, a legacy and a current
/// layout); keep the one updated last.
pub fn dedupe_by_id(mut v: Vec<SessionSummary>) -> Vec<SessionSummary> {
    v.sort_by(|a, b| {
        a.session_id
            .cmp(&b.session_id)
            .then(b.updated_at.cmp(&a.updated_at))
    });
    v.dedup_by(|later, first| later.session_id == first.session_id);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_cache_is_still_used() {
        let cache = SummaryCache::default();
        let key: CacheKey = ("claude", PathBuf::from("/s.jsonl"));
        let stamps = vec![Stamp {
            size: 1,
            mtime_ns: 2,
            inode: 3,
        }];
        cache.store(key.clone(), stamps.clone(), Arc::new(Vec::new()));
        let poisoned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _held = cache.entries.lock().unwrap();
            let _also = cache.skipped.lock().unwrap();
            panic!("a reader panicked while holding the locks");
        }));
        assert!(poisoned.is_err() && cache.entries.is_poisoned() && cache.skipped.is_poisoned());
        assert!(
            cache.lookup(&key, &stamps).is_some(),
            "the entry is still served"
        );
        cache.store(
            ("codex", PathBuf::from("/t.jsonl")),
            stamps,
            Arc::new(Vec::new()),
        );
        assert_eq!(cache.cached_sources(), 2, "and new ones are stored");
        assert!(cache.skipped().is_empty());
    }
}
