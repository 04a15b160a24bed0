//! What every agent implements: the `Agent` trait, with `Source` (a place that holds sessions)
//! and `Mode` (how much of a session a read builds), and the optional parts an agent may add:
//! `ManySessions` (a store read session by session) and `SearchSupport` (a search read, a raw-text
//! filter, a search engine of its own).
//!
//! Adapters know formats and paths; they never sort, filter, rank, price or serialise.
use std::path::{Path, PathBuf};

pub use crate::agents::touches::{FileTools, ToolKind};
use crate::context::{Context, SkipKind};
use crate::error::Result;
use crate::model::{Session, SessionSummary};
use crate::query::fields::Field;
use crate::query::{ByteFilter, NativeHit, Query, StoreRow};
pub use crate::read::fingerprint::Fingerprint;
use crate::read::fs::{not_a_file, stamp, stamps, Stamp};

/// How much of a session a read builds.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Mode {
    /// The summary only: no message content.
    #[default]
    Summary,
    /// The messages as search reads them: a call's output may be left to the tool message that
    /// carries it (search reads it once, there); no `raw`.
    Messages,
    /// Everything `get` returns, `raw` included.
    Full,
    /// The messages as a reader reads them, each call with its output (an export that writes no
    /// `raw`).
    Readable,
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
        matches!(self, Mode::Full | Mode::Readable)
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

/// Files stat'ed by listings of whole stores (`Source::many`) in this process.
static LISTED_FILES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many files listings of whole stores have stat'ed in this process: what a test reads to
/// tell that a call did not list a store again.
pub fn listed_files() -> u64 {
    LISTED_FILES.load(std::sync::atomic::Ordering::Relaxed)
}

impl Source {
    /// A source for `path` and optional side files; `None` when `path` is not a regular file.
    pub fn new(path: PathBuf, side_files: &[PathBuf]) -> Option<Source> {
        let main = stamp(&path);
        let side = side_files.iter().map(|p| stamp(p));
        Source::stamped(path, main, side, side_files.to_vec())
    }

    /// A source from its stamps as stat'ed: `None` without the main file's; a side file that is
    /// missing stamps as the default.
    fn stamped(
        path: PathBuf,
        main: Option<Stamp>,
        side: impl Iterator<Item = Option<Stamp>>,
        side_files: Vec<PathBuf>,
    ) -> Option<Source> {
        let mut stamps = Vec::with_capacity(1 + side_files.len());
        stamps.push(main?);
        stamps.extend(side.map(Option::unwrap_or_default));
        Some(Source {
            path,
            stamps,
            side_files,
        })
    }

    /// Sources for many files, each with its side files, in their order. The files are stat'ed
    /// together (`stamps`): a large store is tens of thousands of them at every call.
    pub fn many(files: Vec<(PathBuf, Vec<PathBuf>)>) -> Vec<Source> {
        let paths: Vec<&Path> = (files.iter())
            .flat_map(|(path, side)| std::iter::once(path).chain(side))
            .map(PathBuf::as_path)
            .collect();
        LISTED_FILES.fetch_add(paths.len() as u64, std::sync::atomic::Ordering::Relaxed);
        let mut stamped = stamps(&paths).into_iter();
        drop(paths);
        let mut out = Vec::with_capacity(files.len());
        for (path, side_files) in files {
            let main = stamped.next().flatten();
            // Every side file's stamp is taken, whether or not the main file has one.
            let side: Vec<Option<Stamp>> = stamped.by_ref().take(side_files.len()).collect();
            out.extend(Source::stamped(path, main, side.into_iter(), side_files));
        }
        out
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

    /// The agent's own search engine, when its `SearchSupport` has one.
    fn native_search(&self) -> Option<&dyn NativeSearch> {
        self.search_support()?.native_search()
    }

    /// Reading a store of many sessions session by session. `None` (the default): a source is
    /// always read whole.
    fn many_sessions(&self) -> Option<&dyn ManySessions> {
        None
    }

    /// The places `sources` looks in, in its order, each with what chose it (for `doctor`:
    /// a store that is not where the agent writes is the first reason sessions go missing).
    fn looked_at(&self, _ctx: &Context) -> Vec<Place> {
        Vec::new()
    }

    /// The directories a watcher of this store watches (`index::watch`): every file of every
    /// source lies beneath one of them. The default: the places `looked_at`. An agent whose
    /// place holds much else that changes often (caches, to-do lists) names the part of it that
    /// holds its sessions, so that their writes do not make the store be listed again.
    fn watched(&self, ctx: &Context) -> Vec<PathBuf> {
        self.looked_at(ctx).into_iter().map(|p| p.path).collect()
    }

    /// The agent's own setting that deletes its history, where it has one.
    fn retention(&self, _ctx: &Context) -> Option<Retention> {
        None
    }

    /// The agent's tools that touch files, by name, with what each does (`agents::touches`
    /// reads their inputs). Empty (the default): its sessions touch no file that can be told.
    fn file_tools(&self) -> FileTools {
        &[]
    }

    /// The version of the format (or of the agent that wrote it) `source` declares, read from as
    /// little of it as tells: a header, a first line, a schema table. `None`: it declares none.
    fn format_version(&self, _ctx: &Context, _source: &Source) -> Option<FormatVersion> {
        None
    }
}

/// A place an agent looks for its sessions, and what chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub path: PathBuf,
    /// The variable (or the client's `sessionDirs` option, `SESSION_DIRS`) whose value gave this
    /// path; `None`: the agent's default under the home directory.
    pub chosen_by: Option<&'static str>,
}

/// What names the client's `sessionDirs` option in a `Place`.
pub const SESSION_DIRS: &str = "sessionDirs";

impl Place {
    pub fn new(path: PathBuf, chosen_by: Option<&'static str>) -> Place {
        Place { path, chosen_by }
    }
}

/// An agent's setting that deletes sessions older than some days.
#[derive(Debug, Clone, PartialEq)]
pub struct Retention {
    /// The setting's name as the agent spells it.
    pub setting: &'static str,
    /// The file it was read from (or would be: `days` is then the default).
    pub file: PathBuf,
    /// The days in effect; `None` when the setting turns deletion off.
    pub days: Option<f64>,
    /// Whether `days` is the agent's default (the file or the setting absent).
    pub default: bool,
    /// What the agent does with it, as a sentence.
    pub effect: &'static str,
}

/// A format version a source declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatVersion {
    /// What declares it: `version` (a format), `cli_version` (the writer's release), `schema`.
    pub field: &'static str,
    pub version: String,
    /// Newer than the newest this adapter was written for: read as far as it is understood.
    pub newer_than_known: bool,
}

impl FormatVersion {
    /// A version that only tells which release wrote the source (every one is read alike).
    pub fn release(field: &'static str, version: String) -> FormatVersion {
        FormatVersion {
            field,
            version,
            newer_than_known: false,
        }
    }

    /// A numbered format version, compared with the newest `known`.
    pub fn numbered(field: &'static str, version: u64, known: u64) -> FormatVersion {
        FormatVersion {
            field,
            version: version.to_string(),
            newer_than_known: version > known,
        }
    }
}

/// `Source::new` for `path`, telling a caller that collects notes (`Context::noting`) when
/// something that is not a regular file stands where the file was expected.
pub fn source_noted(ctx: &Context, path: PathBuf, side_files: &[PathBuf]) -> Option<Source> {
    let source = Source::new(path.clone(), side_files);
    if source.is_none() {
        note_not_a_file(ctx, &path);
    }
    source
}

/// `Source::sqlite` with the same note as `source_noted`.
pub fn sqlite_noted(ctx: &Context, path: PathBuf) -> Option<Source> {
    let source = Source::sqlite(path.clone());
    if source.is_none() {
        note_not_a_file(ctx, &path);
    }
    source
}

fn note_not_a_file(ctx: &Context, path: &Path) {
    if ctx.notes_wanted() && std::fs::symlink_metadata(path).is_ok() {
        ctx.note(path, SkipKind::Unreadable, not_a_file(path));
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

    /// The texts of one field of `source`'s sessions, for a snippet known to lie in that field
    /// (`search::score::snippet_field`): every text of `field`, as `load_source` reads it and in
    /// its order, parsing as little else as the format allows. Nothing else of these sessions is
    /// to be relied on (the summary, the other fields may be partial). `None` (the default): the
    /// agent reads no field alone.
    fn load_field(
        &self,
        _ctx: &Context,
        _source: &Source,
        _field: Field,
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

    /// The agent's own search engine (Hermes: FTS5), which answers the agent's part of every
    /// search in place of the engine's. `None` (the default): the engine finds its hits.
    fn native_search(&self) -> Option<&dyn NativeSearch> {
        None
    }
}

/// An agent's own search engine over its stores.
pub trait NativeSearch: Sync {
    /// The sessions that match `query`, named by native id (the engine joins them to
    /// `Agent::summaries`). `Err`: the store is unreadable, and skipped.
    fn search(&self, ctx: &Context, query: &Query) -> Result<Vec<NativeHit>>;

    /// Snippets of found rows (`NativeHit::snippet_row`), one per row, made only for the results
    /// a search returns.
    fn snippets(&self, query: &Query, rows: &[StoreRow]) -> Vec<Option<String>>;
}

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
