//! When the index takes in what changed in the stores, for a search that did not wait for it
//! (`IndexUpdates`): the search answers from what the index holds and scans the changed sources
//! itself, then a thread of this process writes them (`Background`), or the caller is told there
//! is something to write (`Deferred`: the CLI writes it in a process of its own, after the
//! command).
//!
//! A write is safe to interrupt (the process may exit midway): it commits as it goes, and what it
//! had not committed is written by the next.
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::agents::Agent;
use crate::context::{Context, IndexUpdates};
use crate::index;
use crate::index::lookup::NeedleFree;
use crate::index::Snapshot;
use crate::query::Query;

use super::{DocId, FoundDoc, ReadDoc, Searched, TermLookup};
use crate::index::store::Fault;

/// The index directories a thread of this process is writing, at most one thread each.
struct Running {
    dirs: Mutex<Vec<PathBuf>>,
    finished: Condvar,
}

static RUNNING: Running = Running {
    dirs: Mutex::new(Vec::new()),
    finished: Condvar::new(),
};

fn running_dirs() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    RUNNING.dirs.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a thread of this process is writing the index in `dir`.
pub fn writing(dir: &PathBuf) -> bool {
    running_dirs().contains(dir)
}

/// Wait until no thread of this process writes the index in `dir`.
pub fn wait(dir: &PathBuf) {
    let mut dirs = running_dirs();
    while dirs.contains(dir) {
        dirs = RUNNING
            .finished
            .wait(dirs)
            .unwrap_or_else(|e| e.into_inner());
    }
}

/// Start a thread that brings the documents of `agents` up to date in the index of `ctx`, unless
/// one of this process already writes it.
fn start(ctx: Context, agents: Vec<&'static dyn Agent>) {
    let Some(dir) = index::dir::resolve(&ctx) else {
        return;
    };
    {
        let mut dirs = running_dirs();
        if dirs.contains(&dir) {
            return;
        }
        dirs.push(dir.clone());
    }
    /// Marks the directory free however the thread ends.
    struct Done(PathBuf);
    impl Drop for Done {
        fn drop(&mut self) {
            running_dirs().retain(|d| d != &self.0);
            RUNNING.finished.notify_all();
        }
    }
    let done = Done(dir);
    let spawned = std::thread::Builder::new()
        .name("agent-mux-index".into())
        .spawn(move || {
            let _done = done;
            // A fault is the next call's to meet: the index answers nothing it has not
            // committed.
            let _ =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    match background_pool() {
                        Some(pool) => pool.install(|| index::update(&ctx, &agents, false)),
                        None => index::update(&ctx, &agents, false),
                    }
                }));
        });
    // No thread to be had: the next call tries again (`done` was dropped with the closure).
    drop(spawned);
}

/// The threads a background write reads and writes on, at a low priority: the calls of the
/// process that come while it writes keep the cores and the global pool (whose threads would
/// otherwise be busy reading a large session for the writer), and tantivy's threads, started
/// from these, inherit their priority. `None` when no thread can be started.
fn background_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("amux-index-{i}"))
            .start_handler(|_| low_priority())
            .build()
            .ok()
    })
    .as_ref()
}

/// Give the calling thread a low priority (Linux, where it is per thread; elsewhere nothing):
/// nice 10, a tenth of a core's time beside a busy thread of normal priority, rather than 19,
/// so that a machine kept busy by other work still sees the index written.
fn low_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority take no pointers; a refusal leaves the priority as it was.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}

/// What a client keeps of the index's updates: whether a search left changes for the caller to
/// write (`IndexUpdates::Deferred`).
#[derive(Default)]
pub struct Updates {
    pending: Arc<AtomicBool>,
}

impl Updates {
    /// Whether a search left changes for the caller to write (`Deferred`), since the last
    /// `take_pending`.
    pub fn pending(&self) -> bool {
        self.pending.load(Ordering::Relaxed)
    }

    pub fn take_pending(&self) -> bool {
        self.pending.swap(false, Ordering::Relaxed)
    }

    /// `snapshot` as a search reads it: once the search is done with it, the changes it left
    /// are written as `ctx`'s option says.
    pub fn lookup(
        &self,
        ctx: &Context,
        agents: &[&'static dyn Agent],
        snapshot: Snapshot,
    ) -> Box<dyn TermLookup> {
        let then = match (snapshot.left_changes(), ctx.options.index_updates) {
            (false, _) | (true, IndexUpdates::Wait) => None,
            (true, IndexUpdates::Background) => Some(Then::Write(ctx.clone(), agents.to_vec())),
            (true, IndexUpdates::Deferred) => Some(Then::Tell(self.pending.clone())),
        };
        Box::new(Updating { snapshot, then })
    }
}

/// What follows a search that left changes in the stores.
enum Then {
    Write(Context, Vec<&'static dyn Agent>),
    Tell(Arc<AtomicBool>),
}

/// A snapshot that, once dropped, has its changes written: after the search rather than during
/// it, whose reads would otherwise share the cores with the writing.
struct Updating {
    snapshot: Snapshot,
    then: Option<Then>,
}

impl TermLookup for Updating {
    fn sources(&self) -> &[Searched] {
        self.snapshot.sources()
    }

    fn find(&self, q: &Query) -> Result<Vec<FoundDoc>, Fault> {
        self.snapshot.find(q)
    }

    fn sessions(&self, ids: &[DocId], needle_free: &NeedleFree<'_>) -> Result<Vec<ReadDoc>, Fault> {
        self.snapshot.sessions(ids, needle_free)
    }
}

impl Drop for Updating {
    fn drop(&mut self) {
        match self.then.take() {
            Some(Then::Write(ctx, agents)) => start(ctx, agents),
            Some(Then::Tell(pending)) => pending.store(true, Ordering::Relaxed),
            None => {}
        }
    }
}
