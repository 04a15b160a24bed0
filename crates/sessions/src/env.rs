//! A snapshot of HOME and every override variable, taken on the calling thread at each call so
//! that a caller (or a test) that changes `process.env` is seen at once, and worker threads never
//! call getenv while the JS thread may be calling setenv.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::model::{parse_time_str, Timestamp};

/// Every variable any agent reads. Kept in one place so the snapshot is complete.
pub const VARIABLES: &[&str] = &[
    "HOME",
    "USERPROFILE",
    "AGENT_MUX_CONFIG_DIR",
    "AGENT_MUX_NOW",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "OPENCODE_DB",
    "PI_CODING_AGENT_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "OMP_PROFILE",
    "OMP_HOME",
    "OPENCLAW_STATE_DIR",
    "OPENCLAW_HOME",
    "CLAWDBOT_STATE_DIR",
    "HERMES_HOME",
    "CURSOR_CONFIG_DIR",
    "TZ",
    // The index's cache directory (index::dir).
    "AGENT_MUX_CACHE_DIR",
    "AGENT_MUX_NO_CACHE",
    "XDG_CACHE_HOME",
    "LOCALAPPDATA",
    // How often a long write of the index commits (index::sync).
    "AGENT_MUX_INDEX_CHECKPOINT_MS",
    // Where kept sessions live (keep::place), and a test's pause in a keep write (keep::pause).
    "AGENT_MUX_DATA_DIR",
    "AGENT_MUX_KEEP_PAUSE",
];

#[derive(Debug, Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
    /// The time of the call, for search's recency decay: `AGENT_MUX_NOW` (ISO 8601) when set,
    /// else the clock. Snapshots built from explicit pairs have none unless pinned (`at`), so
    /// tests never depend on the wall clock.
    now: Option<Timestamp>,
    /// The caller's working directory, which a relative file path is taken from (`touched`,
    /// `file:`); `None` in snapshots built from pairs unless set (`in_dir`).
    cwd: Option<String>,
}

impl Env {
    /// Read the process environment now.
    pub fn from_process() -> Self {
        let vars = VARIABLES
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
            .collect();
        let cwd = std::env::current_dir()
            .ok()
            .map(|d| d.to_string_lossy().into_owned());
        let env = Env {
            vars,
            now: None,
            cwd,
        };
        let now = env.var("AGENT_MUX_NOW").and_then(parse_time_str);
        env.at(now.unwrap_or_else(chrono::Utc::now))
    }

    /// Build a snapshot from explicit pairs (tests, benchmarks).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            now: None,
            cwd: None,
        }
    }

    /// The same snapshot taken in the working directory `dir`.
    pub fn in_dir(mut self, dir: &str) -> Self {
        self.cwd = Some(dir.to_string());
        self
    }

    /// The caller's working directory, when known.
    pub fn cwd(&self) -> Option<&str> {
        self.cwd.as_deref()
    }

    /// The same snapshot with its time pinned to `now`.
    pub fn at(mut self, now: Timestamp) -> Self {
        self.now = Some(now);
        self
    }

    /// When the call was made (`None`: not known, see `now`'s field).
    pub fn now(&self) -> Option<Timestamp> {
        self.now
    }

    /// A snapshot whose home is `home` and that has no overrides.
    pub fn with_home(home: &Path) -> Self {
        Env::from_pairs([("HOME", home.to_str().unwrap_or_default())])
    }

    /// A variable's value; empty values count as unset, as the agents themselves treat them.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.trim().is_empty())
    }

    /// A variable holding a path.
    pub fn path_var(&self, name: &str) -> Option<PathBuf> {
        self.var(name).map(|v| expand_tilde(v, self.home()))
    }

    /// Every variable of `VARIABLES` with its value as read (`None`: unset), for a process of
    /// our own that must read the stores as this snapshot does.
    pub fn variables(&self) -> impl Iterator<Item = (&'static str, Option<&str>)> {
        VARIABLES
            .iter()
            .map(|k| (*k, self.vars.get(*k).map(String::as_str)))
    }

    /// Whether `other` holds the same variables (its time aside).
    pub fn same_variables(&self, other: &Env) -> bool {
        self.vars == other.vars
    }

    pub fn set(&mut self, name: &str, value: &str) {
        self.vars.insert(name.to_string(), value.to_string());
    }

    /// `$HOME`, else `%USERPROFILE%`.
    pub fn home(&self) -> Option<PathBuf> {
        self.var("HOME")
            .or_else(|| self.var("USERPROFILE"))
            .map(PathBuf::from)
    }

    /// `~/<rel>` when a home is known.
    pub fn home_join(&self, rel: &str) -> Option<PathBuf> {
        self.home().map(|h| h.join(rel))
    }
}

fn expand_tilde(value: &str, home: Option<PathBuf>) -> PathBuf {
    match (value.strip_prefix("~/"), home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ if value == "~" => PathBuf::from(value),
        _ => PathBuf::from(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_values_are_unset_and_tilde_expands() {
        let env = Env::from_pairs([("HOME", "/h"), ("CODEX_HOME", ""), ("HERMES_HOME", "~/x")]);
        assert_eq!(env.var("CODEX_HOME"), None);
        assert_eq!(env.path_var("HERMES_HOME"), Some(PathBuf::from("/h/x")));
        assert_eq!(env.home_join(".claude"), Some(PathBuf::from("/h/.claude")));
    }
}
