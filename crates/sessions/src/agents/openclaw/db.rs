//! OpenClaw 2026.9+: transcripts in the agent's SQLite database (`openclaw-agent.sqlite`).
//!
//! `session_windows` has one row per session id (with `previous_session_id` and the `reason` a new
//! window was opened), `session_nodes` one per session key (`current_session_id`, the index
//! entry `entry_json`, `label`/`display_name`, fork lineage), and `transcript_events` the Pi-style
//! records by `seq` (0 = header), each inline in `event_json` or zstd-compressed in `event_zstd`.
//! Columns are detected, so a database missing an optional column still reads.
//!
//! Many sessions are read in two steps (`build_all`): their rows one after another on the one
//! connection (its read transaction is one snapshot, so every session is of the same commit),
//! then decoded and built in parallel, a bounded batch at a time.
use rayon::prelude::*;
use rusqlite::{Connection, Row};
use serde_json::{json, Value};
use std::path::Path;

use crate::agents::openclaw::apply_index_totals;
use crate::agents::pi_family;
use crate::error::{Error, Result};
use crate::model::{Session, SessionSummary};
use crate::read::fingerprint::{session_fingerprints, Fingerprint, Rows};
use crate::read::sqlite::{columns, has_table, open_read_only};
use crate::read::tree::TreeDoc;

/// The largest event OpenClaw stores (its CHECK constraint): a bound on what we decompress.
const MAX_EVENT_BYTES: usize = 4 << 20;

struct Window {
    session_id: String,
    session_key: Option<String>,
    previous_session_id: Option<String>,
    reason: Option<String>,
    created_at: Option<i64>,
    updated_at: Option<i64>,
    title: Option<String>,
    /// The node's index entry, when this window is the node's current session.
    entry: Option<Value>,
    fork_source: Option<String>,
}

/// `w.<col>` or `n.<col>` when the column exists, else NULL (older or newer schemas).
fn col(cols: &[String], alias: &str, name: &str) -> String {
    if cols.iter().any(|c| c == name) {
        format!("{alias}.{name}")
    } else {
        "NULL".to_string()
    }
}

/// The windows of `only` (in that order; an id the database does not hold gives none), or of
/// every session by id.
fn windows(conn: &Connection, path: &Path, only: Option<&[&str]>) -> Result<Vec<Window>> {
    if !has_table(conn, "session_windows") || !has_table(conn, "transcript_events") {
        return Err(Error::parse(
            path.display(),
            "no session_windows/transcript_events tables",
        ));
    }
    let w = columns(conn, "session_windows");
    let n = columns(conn, "session_nodes");
    let join = if n.is_empty() {
        String::new()
    } else {
        "LEFT JOIN session_nodes n ON n.session_key = w.session_key".to_string()
    };
    let sql = format!(
        "SELECT w.session_id, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {} FROM session_windows w {join} {}",
        col(&w, "w", "session_key"),
        col(&w, "w", "previous_session_id"),
        col(&w, "w", "reason"),
        col(&w, "w", "created_at"),
        col(&w, "w", "updated_at"),
        col(&w, "w", "display_name"),
        col(&n, "n", "display_name"),
        col(&n, "n", "label"),
        col(&n, "n", "current_session_id"),
        col(&n, "n", "entry_json"),
        col(&n, "n", "fork_source_session_id"),
        if only.is_some() { "WHERE w.session_id = ?1" } else { "ORDER BY w.session_id" },
    );
    let parse = |e: rusqlite::Error| Error::parse(path.display(), e);
    let mut stmt = conn.prepare(&sql).map_err(parse)?;
    let Some(ids) = only else {
        let rows = stmt.query_map([], window).map_err(parse)?;
        return rows.collect::<rusqlite::Result<Vec<_>>>().map_err(parse);
    };
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        for w in stmt.query_map([id], window).map_err(parse)? {
            out.push(w.map_err(parse)?);
        }
    }
    Ok(out)
}

/// One row of `windows`' query.
fn window(r: &Row<'_>) -> rusqlite::Result<Window> {
    let id: String = r.get(0)?;
    let current: Option<String> = r.get(9)?;
    let is_current = current.as_deref() == Some(id.as_str());
    let entry: Option<String> = r.get(10)?;
    let title = [r.get::<_, Option<String>>(7)?, r.get(8)?, r.get(6)?]
        .into_iter()
        .flatten()
        .find(|t| !t.trim().is_empty());
    Ok(Window {
        session_key: r.get(1)?,
        previous_session_id: r.get(2)?,
        reason: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
        title,
        entry: entry
            .filter(|_| is_current)
            .and_then(|e| serde_json::from_str(&e).ok()),
        fork_source: r.get::<_, Option<String>>(11)?.filter(|_| is_current),
        session_id: id,
    })
}

/// One `transcript_events` row as stored: its JSON inline, or zstd-compressed with its size.
struct Event {
    inline: Option<String>,
    packed: Option<Vec<u8>>,
    size: Option<i64>,
}

/// The session's rows in `seq` order, as stored (decoded by `decode`).
fn events(conn: &Connection, path: &Path, session_id: &str) -> Result<Vec<Event>> {
    let parse = |e: rusqlite::Error| Error::parse(path.display(), e);
    let mut stmt = conn
        .prepare_cached(
            "SELECT event_json, event_zstd, event_utf8_bytes FROM transcript_events \
             WHERE session_id = ?1 ORDER BY seq",
        )
        .map_err(parse)?;
    let rows = stmt
        .query_map([session_id], |r| {
            Ok(Event {
                inline: r.get(0)?,
                packed: r.get(1)?,
                size: r.get(2)?,
            })
        })
        .map_err(parse)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(parse)
}

/// How many bytes a compressed event may decompress to: its recorded size, within OpenClaw's
/// bound.
fn decompressed_cap(size: Option<i64>) -> usize {
    size.and_then(|s| usize::try_from(s).ok())
        .unwrap_or(MAX_EVENT_BYTES)
        .clamp(1, MAX_EVENT_BYTES)
}

/// The session's records, decompressing zstd events. An event that cannot be decoded counts as
/// a bad line, as a torn JSONL line would.
fn decode(events: Vec<Event>) -> TreeDoc {
    let mut records = Vec::with_capacity(events.len());
    let mut bad = 0;
    for e in events {
        let value = match (e.inline, e.packed) {
            (Some(text), _) => serde_json::from_str::<Value>(&text).ok(),
            (None, Some(blob)) => zstd::bulk::decompress(&blob, decompressed_cap(e.size))
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok()),
            (None, None) => None,
        };
        match value {
            Some(v) if v.is_object() => records.push(v),
            _ => bad += 1,
        }
    }
    let mut doc = TreeDoc::from_records(records);
    doc.bad_lines = bad;
    doc
}

fn build(path: &Path, w: Window, events: Vec<Event>, want_raw: bool) -> Result<Session> {
    let doc = decode(events);
    let created = w
        .created_at
        .and_then(chrono::DateTime::from_timestamp_millis)
        .unwrap_or_default();
    let built =
        pi_family::build("openclaw", &doc, &w.session_id, created, want_raw).map_err(|why| {
            Error::parse(
                format!("{} (session {})", path.display(), w.session_id),
                why,
            )
        })?;
    let mut session = built.session;
    let s = &mut session.summary;
    if let Some(t) = w
        .updated_at
        .and_then(chrono::DateTime::from_timestamp_millis)
    {
        s.updated_at = s.updated_at.max(t);
    }
    if let Some(t) = &w.title {
        s.title = crate::model::truncate_title(t, 100);
    }
    if s.forked_from.is_none() {
        s.forked_from = w.fork_source.clone().or(w.previous_session_id.clone());
    }
    if built.compacted {
        if let Some(e) = &w.entry {
            apply_index_totals(s, e);
        }
    }
    if let Some(Value::Object(r)) = session.raw.as_mut().and_then(|r| r.as_value_mut()) {
        r.insert(
            "window".into(),
            json!({
                "sessionKey": w.session_key,
                "previousSessionId": w.previous_session_id,
                "reason": w.reason,
            }),
        );
    }
    Ok(session)
}

/// How many sessions' rows are held at once, read and waiting to be built.
const BATCH: usize = 64;

/// The sessions of `windows`, in their order; a session whose rows cannot be read or built is
/// left out (one bad session must not hide the others). The rows are read on `conn`, one
/// session after another, and each batch is decoded and built in parallel.
fn build_all(conn: &Connection, path: &Path, windows: Vec<Window>, want_raw: bool) -> Vec<Session> {
    let mut out = Vec::with_capacity(windows.len());
    let mut windows = windows.into_iter();
    while !windows.as_slice().is_empty() {
        let batch: Vec<(Window, Vec<Event>)> = (windows.by_ref().take(BATCH))
            .filter_map(|w| {
                let events = events(conn, path, &w.session_id).ok()?;
                Some((w, events))
            })
            .collect();
        out.par_extend(
            batch
                .into_par_iter()
                .filter_map(|(w, events)| build(path, w, events, want_raw).ok()),
        );
    }
    out
}

/// Summaries of every session in the database; a session whose records cannot be built is left
/// out (one bad session must not hide the others).
pub fn summaries(path: &Path) -> Result<Vec<SessionSummary>> {
    Ok(load_sessions(path, false)?
        .into_iter()
        .map(|s| s.summary)
        .collect())
}

pub fn load_all(path: &Path) -> Result<Vec<Session>> {
    load_sessions(path, true)
}

fn load_sessions(path: &Path, want_raw: bool) -> Result<Vec<Session>> {
    let conn = open_read_only(path)?;
    let ws = windows(&conn, path, None)?;
    Ok(build_all(&conn, path, ws, want_raw))
}

/// The sessions named in `ids` (those that can be built), in that order, as `summaries` and
/// `load_all` read them.
pub fn load_ids(path: &Path, ids: &[&str], want_raw: bool) -> Result<Vec<Session>> {
    let conn = open_read_only(path)?;
    let ws = windows(&conn, path, Some(ids))?;
    Ok(build_all(&conn, path, ws, want_raw))
}

/// Each session's fingerprint (`read::fingerprint`), in the order `windows` gives them: its
/// window with its node (as `windows` joins them), and its events.
pub fn fingerprints(path: &Path) -> Result<Vec<(String, Fingerprint)>> {
    let conn = open_read_only(path)?;
    let (nodes, join) = if has_table(&conn, "session_nodes") {
        (
            ", n.*",
            "LEFT JOIN session_nodes n ON n.session_key = w.session_key",
        )
    } else {
        ("", "")
    };
    session_fingerprints(
        &conn,
        &format!(
            "SELECT w.session_id, w.*{nodes} FROM session_windows w {join} ORDER BY w.session_id"
        ),
        &[Rows {
            sql: "SELECT session_id, * FROM transcript_events",
            of: None,
            names: None,
        }],
    )
    .map_err(|e| Error::parse(path.display(), e))
}

/// One session by id: `Ok(None)` when this database does not hold it.
pub fn load(path: &Path, session_id: &str, want_raw: bool) -> Result<Option<Session>> {
    let conn = open_read_only(path)?;
    match windows(&conn, path, Some(&[session_id]))?
        .into_iter()
        .next()
    {
        Some(w) => {
            let events = events(&conn, path, &w.session_id)?;
            build(path, w, events, want_raw).map(Some)
        }
        None => Ok(None),
    }
}

/// Search: every event's raw text (inline, or decompressed) and each window's title and index
/// entry go through `filter` in one pass over `transcript_events`; only the sessions that may
/// match are built.
pub fn matching(path: &Path, filter: &crate::query::ByteFilter) -> Result<Vec<Session>> {
    let conn = open_read_only(path)?;
    let ws = windows(&conn, path, None)?;
    let parse = |e: rusqlite::Error| Error::parse(path.display(), e);
    let mut masks = crate::query::SessionMasks::new(filter);
    for w in &ws {
        masks.add(w.session_id.clone());
        if let Some(t) = &w.title {
            masks.scan(&w.session_id, t.as_bytes());
        }
        if let Some(e) = &w.entry {
            masks.scan(&w.session_id, e.to_string().as_bytes());
        }
    }
    let mut stmt = conn
        .prepare(
            "SELECT session_id, event_json, event_zstd, event_utf8_bytes FROM transcript_events",
        )
        .map_err(parse)?;
    let mut rows = stmt.query([]).map_err(parse)?;
    while let Some(r) = rows.next().map_err(parse)? {
        let id: Option<String> = r.get(0).map_err(parse)?;
        let Some(id) = id.filter(|id| masks.wants(id)) else {
            continue;
        };
        if let rusqlite::types::ValueRef::Text(b) = r.get_ref(1).map_err(parse)? {
            masks.scan(&id, b);
        } else if let rusqlite::types::ValueRef::Blob(blob) = r.get_ref(2).map_err(parse)? {
            let size: Option<i64> = r.get(3).map_err(parse)?;
            // An event that cannot be decoded is a bad line when built: it holds no text.
            if let Ok(b) = zstd::bulk::decompress(blob, decompressed_cap(size)) {
                masks.scan(&id, &b);
            }
        }
    }
    drop(rows);
    let kept = ws.into_iter().filter(|w| masks.keeps(&w.session_id));
    Ok(build_all(&conn, path, kept.collect(), true))
}
