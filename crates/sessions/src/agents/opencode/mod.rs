//! OpenCode sessions: the SQLite store `$OPENCODE_DB | <XDG_DATA_HOME|~/.local/share>/opencode/
//! opencode*.db` (one file per release channel) and the legacy `storage/` JSON tree beside it.
//! Sub-agent sessions are sessions of their own whose `parent_id` becomes `forkedFrom`.
use std::path::{Path, PathBuf};

use crate::agents::adapter::{
    existing_dirs, sqlite_noted, Agent, FileTools, Fingerprint, ManySessions, Mode, Place,
    SearchSupport, Source, ToolKind, SESSION_DIRS,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Session, SessionSummary};
use crate::query::ByteFilter;
use crate::read::fs::{files, files_noted};
use crate::read::sqlite::open_read_only;

mod build;
mod db;
mod legacy;

pub struct OpenCode;

const AGENT: &str = "opencode";

/// Where to look: SQLite files and legacy storage directories.
struct Stores {
    dbs: Vec<PathBuf>,
    storages: Vec<PathBuf>,
}

fn is_db_name(n: &str) -> bool {
    n.starts_with("opencode") && n.ends_with(".db")
}

fn stores(ctx: &Context) -> Stores {
    let mut dbs = Vec::new();
    let mut storages = Vec::new();
    if let Some(dir) = ctx.session_dir(AGENT) {
        // The override names the data directory, or a storage directory itself.
        for d in existing_dirs([dir]) {
            if d.join("session").is_dir() {
                storages.push(d);
            } else {
                dbs.extend(files(&d, is_db_name));
                storages.push(d.join("storage"));
            }
        }
    } else {
        let data = ctx
            .env
            .path_var("XDG_DATA_HOME")
            .or_else(|| ctx.env.home_join(".local/share"))
            .map(|d| d.join("opencode"));
        // OPENCODE_DB: absolute, or relative to the data directory; `:memory:` has nothing on disk.
        match (ctx.env.var("OPENCODE_DB"), &data) {
            (Some(":memory:"), _) => {}
            (Some(p), _) if Path::new(p).is_absolute() => dbs.push(PathBuf::from(p)),
            (Some(p), Some(d)) => dbs.push(d.join(p)),
            (None, Some(d)) => dbs.extend(files_noted(ctx, d, is_db_name)),
            (_, None) => {}
        }
        storages.extend(data.map(|d| d.join("storage")));
    }
    storages.retain(|s| s.join("session").is_dir());
    Stores { dbs, storages }
}

/// The data directory (or database) `stores` reads, with what chose it.
fn places(ctx: &Context) -> Vec<Place> {
    if let Some(dir) = ctx.session_dir(AGENT) {
        return vec![Place::new(dir, Some(SESSION_DIRS))];
    }
    let data_by = ctx.env.var("XDG_DATA_HOME").map(|_| "XDG_DATA_HOME");
    let data = ctx
        .env
        .path_var("XDG_DATA_HOME")
        .or_else(|| ctx.env.home_join(".local/share"))
        .map(|d| d.join("opencode"));
    let mut out = Vec::new();
    match (ctx.env.var(DB_VAR), &data) {
        (Some(":memory:"), _) => {}
        (Some(p), _) if Path::new(p).is_absolute() => {
            out.push(Place::new(PathBuf::from(p), Some(DB_VAR)))
        }
        (Some(p), Some(d)) => out.push(Place::new(d.join(p), Some(DB_VAR))),
        _ => {}
    }
    out.extend(data.map(|d| Place::new(d, data_by)));
    out
}

const DB_VAR: &str = "OPENCODE_DB";

fn is_legacy(source: &Path) -> bool {
    source.extension().and_then(|e| e.to_str()) == Some("json")
}

impl Agent for OpenCode {
    fn name(&self) -> &'static str {
        AGENT
    }

    /// Databases first: when a session is in both (the JSON tree left behind by the migration),
    /// listing keeps the database's copy unless the JSON one is newer.
    fn sources(&self, ctx: &Context) -> Vec<Source> {
        let st = stores(ctx);
        let mut out: Vec<Source> = (st.dbs.into_iter())
            .filter_map(|db| sqlite_noted(ctx, db))
            .collect();
        for storage in &st.storages {
            for f in legacy::session_files(storage) {
                let side = legacy::side_files(storage, &f);
                out.extend(Source::new(f, &side));
            }
        }
        out
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        places(ctx)
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        if is_legacy(&source.path) {
            return Ok(vec![legacy::load(&source.path)?.summary]);
        }
        let conn = open_read_only(&source.path)?;
        db::summaries(&conn, None).map_err(|e| Error::parse(source.path.display(), e))
    }

    /// The databases by `WHERE id = ?`, then the legacy tree. A database that cannot be read is
    /// reported (PARSE_ERROR naming it) only when no other store has the session.
    fn load(&self, ctx: &Context, session_id: &str, _mode: Mode) -> Result<Session> {
        let st = stores(ctx);
        let mut failure = None;
        for path in st.dbs.iter().filter(|p| p.is_file()) {
            let found = open_read_only(path).and_then(|c| {
                db::sessions(&c, Some(session_id)).map_err(|e| Error::parse(path.display(), e))
            });
            match found {
                Ok(mut v) if !v.is_empty() => return Ok(v.swap_remove(0)),
                Ok(_) => {}
                Err(e) => failure = failure.or(Some(e)),
            }
        }
        for storage in &st.storages {
            if let Some(f) = legacy::find(storage, session_id) {
                return legacy::load(&f);
            }
        }
        Err(failure.unwrap_or_else(|| Error::session_not_found(AGENT, session_id)))
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        if is_legacy(&source.path) {
            return Ok(vec![legacy::load(&source.path)?]);
        }
        let conn = open_read_only(&source.path)?;
        db::sessions(&conn, None).map_err(|e| Error::parse(source.path.display(), e))
    }

    fn search_support(&self) -> Option<&dyn SearchSupport> {
        Some(self)
    }

    fn many_sessions(&self) -> Option<&dyn ManySessions> {
        Some(self)
    }

    fn file_tools(&self) -> FileTools {
        &[
            ("read", ToolKind::Read),
            ("write", ToolKind::Write),
            ("edit", ToolKind::Edit),
            ("multiedit", ToolKind::Edit),
            ("patch", ToolKind::Patch),
            ("apply_patch", ToolKind::Patch),
            ("bash", ToolKind::Shell),
        ]
    }
}

/// Each of `ids` read from the database `source` with `read`, in their order.
fn each_of<T>(
    source: &Source,
    ids: &[&str],
    read: impl Fn(&rusqlite::Connection, &str) -> rusqlite::Result<Vec<T>>,
) -> Result<Vec<T>> {
    let conn = open_read_only(&source.path)?;
    let mut out = Vec::new();
    for id in ids {
        out.extend(read(&conn, id).map_err(|e| Error::parse(source.path.display(), e))?);
    }
    Ok(out)
}

/// A database is read session by session; a legacy file is one session anyway.
impl ManySessions for OpenCode {
    fn fingerprints(
        &self,
        _ctx: &Context,
        source: &Source,
    ) -> Option<Result<Vec<(String, Fingerprint)>>> {
        if is_legacy(&source.path) {
            return None;
        }
        Some(open_read_only(&source.path).and_then(|conn| {
            db::fingerprints(&conn).map_err(|e| Error::parse(source.path.display(), e))
        }))
    }

    fn summaries_of(
        &self,
        _ctx: &Context,
        source: &Source,
        ids: &[&str],
    ) -> Result<Vec<SessionSummary>> {
        each_of(source, ids, |conn, id| db::summaries(conn, Some(id)))
    }

    fn sessions_of(&self, _ctx: &Context, source: &Source, ids: &[&str]) -> Result<Vec<Session>> {
        each_of(source, ids, |conn, id| db::sessions(conn, Some(id)))
    }
}

impl SearchSupport for OpenCode {
    /// A database is searched session by session on its raw text; legacy JSON files are left to
    /// the file engine (with their message and part files as side files).
    fn load_matching(
        &self,
        _ctx: &Context,
        source: &Source,
        filter: &ByteFilter,
    ) -> Option<Result<Vec<Session>>> {
        if is_legacy(&source.path) {
            return None;
        }
        Some(open_read_only(&source.path).and_then(|conn| {
            db::matching(&conn, filter).map_err(|e| Error::parse(source.path.display(), e))
        }))
    }
}
