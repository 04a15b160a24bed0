//! What every call carries: the environment snapshot and the client's options.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::env::Env;

/// Client options that matter to the session API (the binding makes them: `agent-mux-wire`).
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    /// `ClientOptions.configDir`: where the run index lives (absolute path).
    pub config_dir: Option<PathBuf>,
    /// `ClientOptions.sessionDirs`: per-agent store override (absolute paths).
    pub session_dirs: BTreeMap<String, PathBuf>,
    /// `ClientOptions.pricing`: per-model price overrides, as given (their rules are
    /// `cost::prices::price_overrides`, checked when the client is made).
    pub pricing: Option<serde_json::Value>,
    /// The spec's run defaults, validated and kept. This package starts no runs, so nothing here
    /// reads them.
    pub run_defaults: RunDefaults,
    /// `ClientOptions.cacheDir`: where the persistent index lives (`index::dir`). Off unless
    /// asked for: the binding asks for the environment's default.
    pub cache: CacheSetting,
    /// `ClientOptions.onProgress`: told how building or updating the index advances.
    pub progress: Option<ProgressFn>,
    /// `ClientOptions.indexUpdates`: whether a call waits for the index to take in what changed.
    pub index_updates: IndexUpdates,
    /// `ClientOptions.redact`: every result of this client has its secrets redacted
    /// (by the `redact` module), unless a call says otherwise.
    pub redact: bool,
    /// `ClientOptions.keep`: keep a copy of every session seen (`None`: the setting decides).
    pub keep: Option<bool>,
    /// `ClientOptions.watch`: a client that lives learns what changed in the stores from the
    /// OS's file events instead of stat'ing every source at every call (`index::watch`).
    pub watch: bool,
    /// `ClientOptions.source`: a team database's URL (`postgres://…`); the client then reads it
    /// (`team::read`) instead of this machine's agents.
    pub source: Option<String>,
}

/// When the index takes in the sources that changed since it was written. A call that does not
/// wait answers from what the index holds and reads the changed sources themselves: the same
/// answer, without writing first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IndexUpdates {
    /// A search writes them first, then answers from the index.
    #[default]
    Wait,
    /// A search answers at once; a thread of this process writes them after it.
    Background,
    /// A search answers at once and writes nothing; the caller updates the index when it
    /// chooses (the CLI, in a process of its own once the command is done).
    Deferred,
}

/// `ClientOptions` fields that configure runs (core-types.md 5.1.1); `None` when not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunDefaults {
    pub default_agent: Option<String>,
    pub default_model: Option<String>,
    /// 'yolo', 'prompt' or 'deny'.
    pub approval_mode: Option<String>,
    pub timeout_ms: Option<u64>,
    pub inactivity_timeout_ms: Option<u64>,
    pub retry_policy: Option<RetryPolicy>,
    /// `Some(true)`/`Some(false)`, or `None` for 'auto' (and when not given).
    pub stream: Option<bool>,
    pub project_config_dir: Option<PathBuf>,
    pub debug: Option<bool>,
}

/// The spec's `RetryPolicy`; `None` when not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RetryPolicy {
    pub max_attempts: Option<u64>,
    pub base_delay_ms: Option<u64>,
    pub max_delay_ms: Option<u64>,
    pub jitter_factor: Option<f64>,
    pub retry_on: Option<Vec<String>>,
}

/// Where the index goes: nowhere, where the environment says, or a directory given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CacheSetting {
    #[default]
    Off,
    FromEnv,
    Dir(PathBuf),
}

/// How far an index update has got: `done` of `total` sources of `agent` read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    pub agent: &'static str,
    pub done: u64,
    pub total: u64,
}

/// A progress callback (called from worker threads).
#[derive(Clone)]
pub struct ProgressFn(pub Arc<dyn Fn(&Progress) + Send + Sync>);

impl std::fmt::Debug for ProgressFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressFn")
    }
}

#[derive(Debug, Clone)]
pub struct Context {
    pub env: Env,
    pub options: Arc<ClientOptions>,
    /// Where an adapter tells what it passed over (`note`); `None` unless a caller asked
    /// (`noting`), so a listing nobody examines pays nothing for it.
    notes: Option<Arc<Notes>>,
}

/// Why an adapter passed over something that looked like a store or a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipKind {
    /// Not a regular file where one was expected (a directory, a FIFO, a symlink, a dangling
    /// link), or a file that could not be opened or read.
    Unreadable,
    /// Its format version is newer than the adapter knows (read as far as it is understood).
    UnknownVersion,
    /// Larger than the adapter reads.
    TooLarge,
    /// Read, but not understood as sessions (garbage, another format, a damaged database).
    NotUnderstood,
}

impl SkipKind {
    /// The name the reports give the kind.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipKind::Unreadable => "unreadable",
            SkipKind::UnknownVersion => "unknown format version",
            SkipKind::TooLarge => "too large",
            SkipKind::NotUnderstood => "not understood",
        }
    }
}

/// One thing passed over: where, why, and the detail an adapter gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub path: PathBuf,
    pub kind: SkipKind,
    pub detail: String,
}

/// What adapters noted during one call (from any thread).
#[derive(Debug, Default)]
pub struct Notes(std::sync::Mutex<Vec<Note>>);

impl Notes {
    /// Everything noted so far, in the order it was noted.
    pub fn taken(&self) -> Vec<Note> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl Context {
    pub fn new(env: Env, options: Arc<ClientOptions>) -> Self {
        Context {
            env,
            options,
            notes: None,
        }
    }

    /// The same context with a place for adapters' notes, and that place.
    pub fn noting(&self) -> (Context, Arc<Notes>) {
        let notes = Arc::new(Notes::default());
        let mut ctx = self.clone();
        ctx.notes = Some(notes.clone());
        (ctx, notes)
    }

    /// Whether a caller collects notes: an adapter checks this before any work that only a
    /// note needs (reading a header for its version).
    pub fn notes_wanted(&self) -> bool {
        self.notes.is_some()
    }

    /// Tell the caller, if it asked, that `path` was passed over and why.
    pub fn note(&self, path: &std::path::Path, kind: SkipKind, detail: impl Into<String>) {
        if let Some(n) = &self.notes {
            let note = Note {
                path: path.to_path_buf(),
                kind,
                detail: detail.into(),
            };
            n.0.lock().unwrap_or_else(|e| e.into_inner()).push(note);
        }
    }

    /// A context with default options (tests, benchmarks).
    pub fn with_env(env: Env) -> Self {
        Context::new(env, Arc::new(ClientOptions::default()))
    }

    /// The caller's override for `agent`'s store, if any. When set, it replaces every default root.
    pub fn session_dir(&self, agent: &str) -> Option<PathBuf> {
        self.options.session_dirs.get(agent).cloned()
    }

    /// `configDir` option, else `AGENT_MUX_CONFIG_DIR`, else `~/.agent-mux`.
    pub fn config_dir(&self) -> Option<PathBuf> {
        self.options
            .config_dir
            .clone()
            .or_else(|| self.env.path_var("AGENT_MUX_CONFIG_DIR"))
            .or_else(|| self.env.home_join(".agent-mux"))
    }
}
