//! What every call carries: the environment snapshot and the client's options.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::env::Env;

/// Client options that matter to the session API (validated by `options::client_options`).
#[derive(Debug, Clone, Default)]
pub struct ClientOptions {
    /// `ClientOptions.configDir`: where the run index lives (absolute path).
    pub config_dir: Option<PathBuf>,
    /// `ClientOptions.sessionDirs`: per-agent store override (absolute paths).
    pub session_dirs: BTreeMap<String, PathBuf>,
    /// `ClientOptions.pricing`: per-model price overrides, as given (validated by the cost engine).
    pub pricing: Option<serde_json::Value>,
    /// `ClientOptions.cacheDir`: where the persistent index lives (`index::dir`). Off unless
    /// asked for: the binding asks for the environment's default.
    pub cache: CacheSetting,
    /// `ClientOptions.onProgress`: told how building or updating the index advances.
    pub progress: Option<ProgressFn>,
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
}

impl Context {
    pub fn new(env: Env, options: Arc<ClientOptions>) -> Self {
        Context { env, options }
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
