//! When the index takes in what changed in the stores, for a search that did not wait for it
//! (`IndexUpdates`): the search answers from what the index holds and scans the changed sources
//! itself, then a thread of this process writes them (`Background`), or the caller is told there
//! is something to write (`Deferred`: the CLI writes it in a process of its own, after the
//! command).
//!
//! A write is safe to interrupt (the process may exit midway): it commits as it goes, and what it
//! had not committed is written by the next. What a client's searches left and this process has
//! not written yet is kept (`Left`): a process about to exit hands it to one of its own (the JS
//! layer starts it), and `wait` lets a caller see this process's writing done.
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};

use crate::agents::Agent;
use crate::context::{ClientOptions, Context, IndexUpdates};
use crate::env::Env;
use crate::index;
use crate::index::lookup::{At, NeedleFree};
use crate::index::Snapshot;
use crate::options::OnlyDocs;
use crate::query::fields::Field;
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

/// Changes a search left in the stores that this process has not written into the index: the
/// environment the search read the stores with (which stores, which cache), the index's
/// directory, the agent, and when they were left, to tell whether a write that began later saw
/// them.
#[derive(Clone)]
pub struct Left {
    pub env: Env,
    pub dir: PathBuf,
    pub agent: &'static str,
    options: Arc<ClientOptions>,
    seq: u64,
}

impl Left {
    /// Whether a write of `agent` in `ctx`, into `dir`, reads what these changes are of.
    fn same_reads(&self, ctx: &Context, dir: &Path, agent: &str) -> bool {
        self.agent == agent
            && self.dir == dir
            && self.env.same_variables(&ctx.env)
            && self.options.session_dirs == ctx.options.session_dirs
            && self.options.config_dir == ctx.options.config_dir
    }
}

/// Numbers the changes left, in this process, and the writes' beginnings (`began`).
static LEFT_SEQ: AtomicU64 = AtomicU64::new(0);

/// When a write begins: the changes left before it are the ones its listing of the stores sees.
pub fn began() -> u64 {
    LEFT_SEQ.load(Ordering::SeqCst)
}

type Lefts = Mutex<Vec<Left>>;

/// Every client's `LeftList`: a write takes in what any client of this process left.
static LISTS: Mutex<Vec<Weak<Lefts>>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A client's `Left`.
#[derive(Clone)]
struct LeftList(Arc<Lefts>);

impl Default for LeftList {
    fn default() -> Self {
        let list = Arc::new(Mutex::new(Vec::new()));
        let mut lists = lock(&LISTS);
        lists.retain(|l| l.strong_count() > 0);
        lists.push(Arc::downgrade(&list));
        LeftList(list)
    }
}

/// Whether any client left changes of the stores a write of `agents` in `ctx` into `dir` reads
/// since `began`: searches made while it wrote, which found a thread writing and started none.
fn left_since(ctx: &Context, dir: &Path, agents: &[&'static dyn Agent], began: u64) -> bool {
    let lists: Vec<Arc<Lefts>> = lock(&LISTS).iter().filter_map(Weak::upgrade).collect();
    lists.iter().any(|list| {
        (lock(list).iter())
            .any(|l| l.seq >= began && agents.iter().any(|a| l.same_reads(ctx, dir, a.name())))
    })
}

/// A write of `agents` in `ctx` into `dir`, begun at `began`, is done: what any client left
/// before it of the same stores is written.
pub fn written(ctx: &Context, dir: &Path, agents: &[&'static dyn Agent], began: u64) {
    let lists: Vec<Arc<Lefts>> = lock(&LISTS).iter().filter_map(Weak::upgrade).collect();
    for list in lists {
        lock(&list).retain(|l| {
            !(l.seq < began && agents.iter().any(|a| l.same_reads(ctx, dir, a.name())))
        });
    }
}

impl LeftList {
    fn lock(&self) -> MutexGuard<'_, Vec<Left>> {
        lock(&self.0)
    }

    /// A search of `agents` in `ctx` left changes for the index in `dir`.
    fn note(&self, ctx: &Context, dir: &Path, agents: &[&'static dyn Agent]) {
        let seq = LEFT_SEQ.fetch_add(1, Ordering::SeqCst);
        let mut left = self.lock();
        for a in agents {
            match left.iter_mut().find(|l| l.same_reads(ctx, dir, a.name())) {
                Some(l) => l.seq = seq,
                None => left.push(Left {
                    env: ctx.env.clone(),
                    dir: dir.to_path_buf(),
                    agent: a.name(),
                    options: ctx.options.clone(),
                    seq,
                }),
            }
        }
    }
}

/// Start a thread that brings the documents of `agents` up to date in the index of `ctx`, unless
/// one of this process already writes it; once it has, what was left before it began is
/// written (`written`). What searches left while it wrote, it writes in one more pass: those
/// searches found it writing and started no thread of their own.
fn start(ctx: Context, agents: Vec<&'static dyn Agent>) {
    let Some(dir) = index::dir::resolve(&ctx) else {
        return;
    };
    let mut from = began();
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
            let done = done;
            loop {
                // A fault is the next call's to meet: the index answers nothing it has not
                // committed.
                let wrote =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(
                        || match background_pool() {
                            Some(pool) => pool.install(|| index::update(&ctx, &agents, false)),
                            None => index::update(&ctx, &agents, false),
                        },
                    ));
                if !matches!(wrote, Ok(Some(true))) {
                    break;
                }
                written(&ctx, &done.0, &agents, from);
                // Checked with the directory still marked as written: a search that leaves
                // changes after this finds it free and starts a thread of its own.
                let mut dirs = running_dirs();
                if !left_since(&ctx, &done.0, &agents, from) {
                    dirs.retain(|d| d != &done.0);
                    break;
                }
                drop(dirs);
                from = began();
            }
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
/// write (`IndexUpdates::Deferred`), and what its searches left that this process has not
/// written (`Left`, either way).
#[derive(Default)]
pub struct Updates {
    pending: Arc<AtomicBool>,
    left: LeftList,
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

    /// What this client's searches left that this process has not written, one per environment
    /// and directory.
    pub fn left(&self) -> Vec<Left> {
        let mut out: Vec<Left> = Vec::new();
        for l in self.left.lock().iter() {
            if !out
                .iter()
                .any(|o| o.dir == l.dir && o.env.same_variables(&l.env))
            {
                out.push(l.clone());
            }
        }
        out
    }

    /// Wait until no thread of this process writes the index in `dir` or in any directory this
    /// client's searches left changes for.
    pub fn wait_all(&self, dir: Option<&PathBuf>) {
        let mut dirs: Vec<PathBuf> = self.left().into_iter().map(|l| l.dir).collect();
        dirs.extend(dir.cloned());
        for d in &dirs {
            wait(d);
        }
    }

    /// Forget what the searches left: the client is closed, and no process is to write it.
    pub fn forget_left(&self) {
        self.left.lock().clear();
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
            (true, IndexUpdates::Background) => Some(Then::Write),
            (true, IndexUpdates::Deferred) => Some(Then::Tell(self.pending.clone())),
        };
        let then = then.map(|then| (then, ctx.clone(), agents.to_vec(), self.left.clone()));
        Box::new(Updating { snapshot, then })
    }
}

/// What follows a search that left changes in the stores.
enum Then {
    Write,
    Tell(Arc<AtomicBool>),
}

/// A snapshot that, once dropped, has its changes written: after the search rather than during
/// it, whose reads would otherwise share the cores with the writing.
struct Updating {
    snapshot: Snapshot,
    then: Option<(Then, Context, Vec<&'static dyn Agent>, LeftList)>,
}

impl TermLookup for Updating {
    fn sources(&self) -> &[Searched] {
        self.snapshot.sources()
    }

    fn find(
        &self,
        q: &Query,
        later: bool,
        among: Option<&OnlyDocs>,
        heads: bool,
    ) -> Result<Vec<FoundDoc>, Fault> {
        self.snapshot.find(q, later, among, heads)
    }

    fn side_by_side(&self, q: &Query, at: &[At]) -> Result<Vec<u32>, Fault> {
        self.snapshot.side_by_side(q, at)
    }

    fn sessions(&self, ids: &[DocId], needle_free: &NeedleFree<'_>) -> Result<Vec<ReadDoc>, Fault> {
        self.snapshot.sessions(ids, needle_free)
    }

    fn field_texts(&self, ids: &[DocId], field: Field) -> Result<Vec<ReadDoc>, Fault> {
        self.snapshot.field_texts(ids, field)
    }
}

impl Drop for Updating {
    fn drop(&mut self) {
        let Some((then, ctx, agents, left)) = self.then.take() else {
            return;
        };
        if let Some(dir) = index::dir::resolve(&ctx) {
            left.note(&ctx, &dir, &agents);
        }
        match then {
            Then::Write => start(ctx, agents),
            Then::Tell(pending) => pending.store(true, Ordering::Relaxed),
        }
    }
}
