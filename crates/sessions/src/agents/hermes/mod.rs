//! Hermes Agent sessions: `<HERMES_HOME|~/.hermes>/state.db` and every profile's own
//! `profiles/<name>/state.db` (research: hermes.md §1). One database holds many sessions.
//!
//! Schema versions 11 (the spec's), 22 (PyPI 0.19) and 30 (git `main`) differ in columns, so every
//! SELECT is built from `PRAGMA table_info`. Reading sessions never touches the FTS tables: real
//! databases carry trigram indexes that a newer SQLite calls malformed, and `messages_fts_cjk` needs
//! a tokenizer we do not have.
use std::path::{Path, PathBuf};

use crate::agents::adapter::{
    existing_dirs, sqlite_noted, Agent, FileTools, FormatVersion, Mode, NativeSearch, Place,
    SearchSupport, Source, ToolKind, SESSION_DIRS,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Session, SessionSummary};
use crate::query::{NativeHit, Query, StoreRow};
use crate::read::fs::subdirs;
use crate::read::sqlite::open_read_only;

mod content;
mod messages;
pub mod search;
mod summary;

pub struct Hermes;

const AGENT: &str = "hermes";

/// The Hermes homes to read: the caller's override, else `HERMES_HOME`, else `~/.hermes`.
fn roots(ctx: &Context) -> Vec<PathBuf> {
    existing_dirs(place(ctx).map(|p| p.path))
}

/// `roots`' one home, with what chose it.
fn place(ctx: &Context) -> Option<Place> {
    if let Some(dir) = ctx.session_dir(AGENT) {
        return Some(Place::new(dir, Some(SESSION_DIRS)));
    }
    match ctx.env.path_var(HOME_VAR) {
        Some(d) => Some(Place::new(d, Some(HOME_VAR))),
        None => Some(Place::new(ctx.env.home_join(".hermes")?, None)),
    }
}

const HOME_VAR: &str = "HERMES_HOME";

/// The newest `schema_version` this reader was written for (git `main`).
const KNOWN_SCHEMA: u64 = 30;

/// `state.db` of the root and of every named profile (each profile has its own database).
fn databases(ctx: &Context) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for root in roots(ctx) {
        out.push(root.join("state.db"));
        for p in subdirs(&root.join("profiles")) {
            out.push(p.join("state.db"));
        }
    }
    out
}

fn read_db(path: &Path, only: Option<&str>) -> Result<Vec<Session>> {
    let conn = open_read_only(path)?;
    let schema = summary::Schema::probe(&conn);
    let parse = |e| Error::parse(path.display(), e);
    let summaries = summary::query(&conn, &schema, only).map_err(parse)?;
    if summaries.is_empty() {
        return Ok(Vec::new());
    }
    let mut messages = messages::query(&conn, &schema, only).map_err(parse)?;
    let mut out = Vec::with_capacity(summaries.len());
    for (summary, raw) in summaries {
        let msgs = messages.remove(&summary.session_id).unwrap_or_default();
        let mut s = Session {
            summary,
            messages: msgs,
            raw: Some(raw.into()),
        };
        s.derive_summary_fields();
        out.push(s);
    }
    Ok(out)
}

impl Agent for Hermes {
    fn name(&self) -> &'static str {
        AGENT
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        databases(ctx)
            .into_iter()
            .filter_map(|db| sqlite_noted(ctx, db))
            .collect()
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        place(ctx).into_iter().collect()
    }

    /// The database's `schema_version`.
    fn format_version(&self, _ctx: &Context, source: &Source) -> Option<FormatVersion> {
        let conn = open_read_only(&source.path).ok()?;
        let v: i64 =
            (conn.query_row("SELECT max(version) FROM schema_version", [], |r| r.get(0))).ok()?;
        Some(FormatVersion::numbered(
            "schema_version",
            v.try_into().ok()?,
            KNOWN_SCHEMA,
        ))
    }

    /// One SQL statement per database: sessions joined with per-session message aggregates.
    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        let conn = open_read_only(&source.path)?;
        let schema = summary::Schema::probe(&conn);
        let rows = summary::query(&conn, &schema, None)
            .map_err(|e| Error::parse(source.path.display(), e))?;
        Ok(rows.into_iter().map(|(s, _)| s).collect())
    }

    /// Looks the id up in each database with `WHERE id = ?`; a database that cannot be read is
    /// reported (PARSE_ERROR naming it) only if no readable database has the session.
    fn load(&self, ctx: &Context, session_id: &str, _mode: Mode) -> Result<Session> {
        let mut failure = None;
        for db in databases(ctx).into_iter().filter(|p| p.is_file()) {
            match read_db(&db, Some(session_id)) {
                Ok(mut v) if !v.is_empty() => return Ok(v.swap_remove(0)),
                Ok(_) => {}
                Err(e) => failure = failure.or(Some(e)),
            }
        }
        Err(failure.unwrap_or_else(|| Error::session_not_found(AGENT, session_id)))
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        read_db(&source.path, None)
    }

    fn search_support(&self) -> Option<&dyn SearchSupport> {
        Some(self)
    }

    fn file_tools(&self) -> FileTools {
        &[
            ("read_file", ToolKind::Read),
            ("write_file", ToolKind::Write),
            ("patch", ToolKind::Edit),
            ("terminal", ToolKind::Shell),
        ]
    }
}

/// Hermes' own FTS5 tables answer its part of every search.
impl SearchSupport for Hermes {
    fn native_search(&self) -> Option<&dyn NativeSearch> {
        Some(self)
    }
}

/// Three-path dispatch and lineage roots, over the same databases `sources` lists: the root's and
/// every profile's.
impl NativeSearch for Hermes {
    fn search(&self, ctx: &Context, query: &Query) -> Result<Vec<NativeHit>> {
        let dbs: Vec<PathBuf> = databases(ctx).into_iter().filter(|p| p.is_file()).collect();
        search::native_search(&dbs, query)
    }

    fn snippets(&self, query: &Query, rows: &[StoreRow]) -> Vec<Option<String>> {
        search::native_snippets(query, rows)
    }
}
