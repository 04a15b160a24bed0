//! The adapter trait and the registry of the ten built-in agents.
//!
//! Adapters know formats and paths; they never sort, filter, rank, price or serialise.
use std::path::{Path, PathBuf};

use crate::context::Context;
use crate::error::Result;
use crate::model::{Session, SessionSummary};
use crate::query::{ByteFilter, NativeHit, Query, StoreRow};
pub use crate::read::fingerprint::Fingerprint;
use crate::read::fs::{stamp, Stamp};

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;
pub mod hermes;
pub mod omp;
pub mod openclaw;
pub mod opencode;
pub mod pi;
pub mod pi_family;
pub(crate) mod transcript;

/// How much of a session a read builds.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Mode {
    /// The summary only: no message content.
    #[default]
    Summary,
    /// Messages as search reads them: no `raw`, and a call's output may be left to the tool
    /// message that carries it (search reads it once, there).
    MessagesWithoutRaw,
    /// Everything `get` returns, `raw` included.
    Full,
    /// Everything `get` returns but `raw`: an export that does not write it.
    AllButRaw,
    /// Everything `get` returns, each tool output held once: a call answered by a tool message
    /// is marked (`ToolCall::output_at_result`) instead of holding a copy of that message's output.
    /// For a consumer that links the two itself (the JS builder); `Session::link_call_outputs`
    /// makes it `Full`.
    FullOutputsOnce,
}

impl Mode {
    pub fn messages(self) -> bool {
        self != Mode::Summary
    }

    pub fn raw(self) -> bool {
        matches!(self, Mode::Full | Mode::FullOutputsOnce)
    }

    /// Whether a tool call carries its output too, not only the tool message that answers it.
    pub fn call_outputs(self) -> bool {
        matches!(self, Mode::Full | Mode::AllButRaw)
    }
}

/// One place that holds sessions: a JSONL file, a JSON document, or a database with many sessions.
/// `stamps` covers the file and any side files (a `-wal`, a subagent folder's files) so the
/// summary cache can tell when anything that feeds the summary changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub path: PathBuf,
    pub stamps: Vec<Stamp>,
    /// The side files, in the order of `stamps[1..]` (search's prefilter scans them too).
    pub side_files: Vec<PathBuf>,
}

impl Source {
    /// A source for `path` and optional side files; `None` when `path` is not a regular file.
    pub fn new(path: PathBuf, side_files: &[PathBuf]) -> Option<Source> {
        let mut stamps = vec![stamp(&path)?];
        stamps.extend(side_files.iter().map(|p| stamp(p).unwrap_or_default()));
        Some(Source {
            path,
            stamps,
            side_files: side_files.to_vec(),
        })
    }

    /// Sources for many files, each with its side files, in their order. The files are stat'ed
    /// in parallel: a large store is tens of thousands of them at every call.
    pub fn many(files: Vec<(PathBuf, Vec<PathBuf>)>) -> Vec<Source> {
        use rayon::prelude::*;
        files
            .into_par_iter()
            .filter_map(|(path, side)| Source::new(path, &side))
            .collect()
    }

    /// A source for a SQLite database: the file plus its `-wal` (where committed rows may sit).
    pub fn sqlite(path: PathBuf) -> Option<Source> {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        Source::new(path, &[PathBuf::from(wal)])
    }
}

pub trait Agent: Send + Sync {
    /// The agent's name as in `BuiltInAgentName`.
    fn name(&self) -> &'static str;

    /// Every source of this agent's sessions, across current and legacy layouts. A store that
    /// does not exist yields nothing; this never fails.
    fn sources(&self, ctx: &Context) -> Vec<Source>;

    /// The cheapest read that yields full summaries for the sessions one source holds
    /// (one for a session file, many for a database). `cost` and `tags` are left to the engines.
    fn summaries(&self, ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>>;

    /// Find one session by native id without reading the others, then parse it with its
    /// messages: `Mode::Full` for `get`, a mode without `raw` for an export that does not write
    /// it (an adapter whose `raw` costs little to build may keep it; the caller drops it).
    /// `SESSION_NOT_FOUND` when absent, `PARSE_ERROR` (naming the path) when unreadable.
    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session>;

    /// Parse every session a source holds with all its messages (search reads these; `raw` may
    /// be left out).
    fn load_source(&self, ctx: &Context, source: &Source) -> Result<Vec<Session>>;

    /// The parts of search this agent answers itself. `None` (the default): the engine
    /// prefilters the source's files and reads those that may match with `load_source`.
    fn search_support(&self) -> Option<&dyn SearchSupport> {
        None
    }

    /// Reading a store of many sessions session by session. `None` (the default): a source is
    /// always read whole.
    fn many_sessions(&self) -> Option<&dyn ManySessions> {
        None
    }
}

/// A database of many sessions, read session by session: when it changes, only the sessions
/// whose fingerprint changed need reading again.
pub trait ManySessions: Sync {
    /// Each session of `source` with a fingerprint of every row a read of it uses
    /// (`read::fingerprint`), in the order `summaries` and `load_source` give them (a session
    /// they leave out, one that cannot be built, is here too). `None`: `source` is not such a
    /// store (a legacy file beside the database).
    fn fingerprints(
        &self,
        ctx: &Context,
        source: &Source,
    ) -> Option<Result<Vec<(String, Fingerprint)>>>;

    /// `Agent::summaries` of the sessions of `source` named in `ids` only.
    fn summaries_of(
        &self,
        ctx: &Context,
        source: &Source,
        ids: &[&str],
    ) -> Result<Vec<SessionSummary>>;

    /// `Agent::load_source` of the sessions of `source` named in `ids` only.
    fn sessions_of(&self, ctx: &Context, source: &Source, ids: &[&str]) -> Result<Vec<Session>>;
}

/// What an agent may add to search; every part is optional and the engine falls back to its
/// own file scan and `Agent::load_source` where a part answers `None`.
pub trait SearchSupport: Sync {
    /// Search's read of a source the prefilter kept: `load_source`, except that a text for which
    /// `needle_free` holds (no needle in it) may be left out of its message, its length added to
    /// `Message::elided` (so a 200 MB session's tool outputs are not all kept to be measured).
    fn load_for_search(
        &self,
        _ctx: &Context,
        _source: &Source,
        _needle_free: &dyn Fn(&str) -> bool,
    ) -> Option<Result<Vec<Session>>> {
        None
    }

    /// Search in a database: parse only the sessions of `source` whose raw text `filter` says
    /// may match (streaming the text columns instead of building every session). `None`: the
    /// engine prefilters the source's files itself.
    fn load_matching(
        &self,
        _ctx: &Context,
        _source: &Source,
        _filter: &ByteFilter,
    ) -> Option<Result<Vec<Session>>> {
        None
    }

    /// Search with the agent's own index instead of the generic file scan (Hermes: FTS5).
    /// `None`: no native search. `Some(Err)`: the store is unreadable and is skipped. Hits name
    /// sessions by native id; the engine joins them to `summaries`.
    fn native_search(&self, _ctx: &Context, _query: &Query) -> Option<Result<Vec<NativeHit>>> {
        None
    }

    /// Snippets of natively found rows (`NativeHit::snippet_row`), one per row, made only for
    /// the results a search returns.
    fn native_snippets(&self, _query: &Query, rows: &[StoreRow]) -> Vec<Option<String>> {
        vec![None; rows.len()]
    }
}

static AGENTS: [&dyn Agent; 10] = [
    &claude::Claude,
    &codex::Codex,
    &gemini::Gemini,
    &copilot::Copilot,
    &cursor::Cursor,
    &opencode::OpenCode,
    &pi::Pi,
    &omp::Omp,
    &openclaw::OpenClaw,
    &hermes::Hermes,
];

/// All built-in agents, in the spec's order.
pub fn all() -> &'static [&'static dyn Agent] {
    &AGENTS
}

pub fn find(name: &str) -> Option<&'static dyn Agent> {
    AGENTS.iter().copied().find(|a| a.name() == name)
}

pub use crate::ids::is_built_in;

/// Every existing directory among `candidates`, in their order and without repeats (several
/// roots are normal: env override, current default, legacy location).
pub fn existing_dirs(candidates: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for c in candidates {
        if c.is_dir() && !out.iter().any(|o| same_dir(o, &c)) {
            out.push(c);
        }
    }
    out
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_has_the_ten_agents_in_spec_order() {
        let names: Vec<_> = all().iter().map(|a| a.name()).collect();
        assert_eq!(names, crate::ids::AGENT_NAMES);
        assert!(is_built_in("hermes") && !is_built_in("Claude"));
    }
}
