//! The SQLite store (`opencode*.db`, OpenCode ≥ 1.2): `session`, `message` and `part` rows whose
//! `data` column holds the JSON minus the ids. Columns differ between releases (1.18 added `path`,
//! `metadata`, `agent`, `model`, aggregates…), so every SELECT is built from `PRAGMA table_info`.
use std::collections::HashMap;

use rusqlite::{Connection, Row};
use serde_json::Value;

use super::build;
use super::AGENT;
use crate::model::{from_epoch_guess, truncate_title, Message, Session, SessionSummary};
use crate::read::fingerprint::{session_fingerprints, Fingerprint, Rows};
use crate::read::sqlite::{all_columns, cell_f64, cell_string, col_or_null, columns, row_to_json};

const SESSION_COLUMNS: &[&str] = &[
    "id",
    "title",
    "directory",
    "parent_id",
    "time_created",
    "time_updated",
    "model",
];

/// Messages with invalid JSON are read as empty instead of failing the whole statement.
const MESSAGES: &str = "(SELECT id, session_id, time_created, \
     CASE WHEN json_valid(data) THEN data END AS d FROM message)";

fn session_select(conn: &Connection) -> String {
    let cols = columns(conn, "session");
    SESSION_COLUMNS
        .iter()
        .map(|c| format!("{} AS \"s_{c}\"", col_or_null(&cols, "s", c)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every session's summary (or the one with id `only`) in one statement: one row per message with
/// only the fields a summary needs (role, model, tokens, cost, time), never the parts.
pub fn summaries(conn: &Connection, only: Option<&str>) -> rusqlite::Result<Vec<SessionSummary>> {
    let sql = format!(
        "SELECT {sess}, m.time_created AS m_time, \
           json_object('role', json_extract(m.d, '$.role'), \
                       'modelID', json_extract(m.d, '$.modelID'), \
                       'model', json_extract(m.d, '$.model'), \
                       'tokens', json_extract(m.d, '$.tokens'), \
                       'cost', json_extract(m.d, '$.cost'), \
                       'time', json_extract(m.d, '$.time')) AS m_data, \
           CASE WHEN s.title IS NULL OR s.title = '' THEN ({first}) END AS first_user \
         FROM session s LEFT JOIN {MESSAGES} m ON m.session_id = s.id {filter} \
         ORDER BY s.id, m.time_created, m.id",
        sess = session_select(conn),
        first = first_user_text(conn),
        filter = only_filter(only),
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(only))?;
    let mut out: Vec<(Session, Option<String>)> = Vec::new();
    while let Some(row) = rows.next()? {
        let id = cell_string(row.get_ref("s_id")?).unwrap_or_default();
        if out
            .last()
            .map(|s| s.0.summary.session_id != id)
            .unwrap_or(true)
        {
            out.push(new_session(row, &id)?);
        }
        let data: Option<Value> =
            cell_string(row.get_ref("m_data")?).and_then(|d| serde_json::from_str(&d).ok());
        let ms = cell_f64(row.get_ref("m_time")?).map(|x| x as i64);
        if let Some(m) = data.and_then(|d| build::light(&d, ms)) {
            out.last_mut().expect("pushed above").0.messages.push(m);
        }
    }
    Ok(out
        .into_iter()
        .map(|(mut s, model)| {
            finish(&mut s, model);
            s.summary
        })
        .collect())
}

/// The text of the first user message's first text part (titles are almost always set; this is
/// the fallback for an empty one).
fn first_user_text(conn: &Connection) -> String {
    let part_cols = columns(conn, "part");
    let order = if part_cols.iter().any(|c| c == "time_created") {
        "p.time_created, p.id"
    } else {
        "p.id"
    };
    format!(
        "SELECT json_extract(p.data, '$.text') FROM {MESSAGES} um JOIN part p ON p.message_id = um.id \
         WHERE um.session_id = s.id AND json_extract(um.d, '$.role') = 'user' \
         AND json_valid(p.data) AND json_extract(p.data, '$.type') = 'text' \
         ORDER BY um.time_created, um.id, {order} LIMIT 1"
    )
}

/// The session's summary fields, and its own model (1.18's `session.model`) as a fallback.
fn new_session(row: &Row<'_>, id: &str) -> rusqlite::Result<(Session, Option<String>)> {
    let time = |k: &str| -> rusqlite::Result<_> {
        Ok(cell_f64(row.get_ref(k)?).and_then(from_epoch_guess))
    };
    let created = time("s_time_created")?.unwrap_or_default();
    let updated = time("s_time_updated")?.unwrap_or(created);
    let mut s = SessionSummary::new(AGENT, id, created, updated.max(created));
    let text = |k: &str| -> rusqlite::Result<_> {
        Ok(cell_string(row.get_ref(k)?).filter(|v| !v.is_empty()))
    };
    s.title = match text("s_title")? {
        Some(t) => t,
        None => text("first_user")?
            .map(|t| truncate_title(&t, 100))
            .unwrap_or_default(),
    };
    s.cwd = text("s_directory")?;
    s.forked_from = text("s_parent_id")?;
    // 1.18's `session.model` JSON `{id, providerID, variant}`: the fallback when no message names one.
    let session_model = text("s_model")?
        .and_then(|m| serde_json::from_str::<Value>(&m).ok())
        .and_then(|m| m.get("id").and_then(Value::as_str).map(str::to_string));
    let session = Session {
        summary: s,
        messages: Vec::new(),
        raw: None,
    };
    Ok((session, session_model))
}

/// Counts, usage and model from the messages; the session's own model only as a fallback.
fn finish(s: &mut Session, fallback: Option<String>) {
    s.derive_summary_fields();
    if s.summary.model.is_none() {
        s.summary.model = fallback;
    }
}

fn only_filter(only: Option<&str>) -> &'static str {
    if only.is_some() {
        "WHERE s.id = ?1"
    } else {
        ""
    }
}

/// Full sessions: every one, or the one with id `only`.
pub fn sessions(conn: &Connection, only: Option<&str>) -> rusqlite::Result<Vec<Session>> {
    let sql = format!(
        "SELECT {sess}, NULL AS first_user, {all} FROM session s {filter} ORDER BY s.id",
        sess = session_select(conn),
        all = all_columns(conn, "session", "s"),
        filter = only_filter(only),
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(only))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let id = cell_string(row.get_ref("s_id")?).unwrap_or_default();
        let (mut s, model) = new_session(row, &id)?;
        let mut raw = row_to_json(row);
        if let Some(o) = raw.as_object_mut() {
            o.retain(|k, _| !k.starts_with("s_") && k != "first_user");
        }
        s.raw = Some(serde_json::json!({ "session": raw }).into());
        out.push((s, model));
    }
    drop(rows);
    let mut done = Vec::with_capacity(out.len());
    for (mut s, model) in out {
        let (messages, raw_messages) = messages(conn, &s.summary.session_id)?;
        s.messages = messages;
        if let Some(raw) = s.raw.as_mut().and_then(|r| r.as_value_mut()) {
            raw["messages"] = Value::Array(raw_messages);
        }
        finish(&mut s, model);
        done.push(s);
    }
    Ok(done)
}

/// Each session's fingerprint (`read::fingerprint`), in the order `summaries` and `sessions` give
/// them: its session row, its messages, and the parts of those messages (reached as `messages`
/// reaches them, through the message).
pub fn fingerprints(conn: &Connection) -> rusqlite::Result<Vec<(String, Fingerprint)>> {
    session_fingerprints(
        conn,
        "SELECT s.id, s.* FROM session s ORDER BY s.id",
        &[
            Rows {
                sql: "SELECT m.session_id, m.id, m.* FROM message m",
                of: None,
                names: Some(1),
            },
            Rows {
                sql: "SELECT p.message_id, p.* FROM part p",
                of: Some(0),
                names: None,
            },
        ],
    )
}

/// One session's messages (ordered by `time_created, id`) with their parts.
fn messages(conn: &Connection, session_id: &str) -> rusqlite::Result<(Vec<Message>, Vec<Value>)> {
    let part_cols = columns(conn, "part");
    let part_order = if part_cols.iter().any(|c| c == "time_created") {
        "p.time_created, p.id"
    } else {
        "p.id"
    };
    let mut parts: HashMap<String, Vec<Value>> = HashMap::new();
    let mut stmt = conn.prepare(&format!(
        "SELECT p.message_id, p.data FROM part p JOIN message m ON m.id = p.message_id \
         WHERE m.session_id = ?1 ORDER BY p.message_id, {part_order}"
    ))?;
    let mut rows = stmt.query([session_id])?;
    while let Some(row) = rows.next()? {
        let mid = cell_string(row.get_ref(0)?).unwrap_or_default();
        if let Some(v) = cell_string(row.get_ref(1)?).and_then(|d| serde_json::from_str(&d).ok()) {
            parts.entry(mid).or_default().push(v);
        }
    }
    let mut stmt = conn.prepare(
        "SELECT id, time_created, data FROM message WHERE session_id = ?1 ORDER BY time_created, id",
    )?;
    let mut rows = stmt.query([session_id])?;
    let mut out = Vec::new();
    let mut raw = Vec::new();
    while let Some(row) = rows.next()? {
        let id = cell_string(row.get_ref(0)?).unwrap_or_default();
        let ms = cell_f64(row.get_ref(1)?).map(|x| x as i64);
        let data: Value = cell_string(row.get_ref(2)?)
            .and_then(|d| serde_json::from_str(&d).ok())
            .unwrap_or(Value::Null);
        let p = parts.remove(&id).unwrap_or_default();
        if let Some(m) = build::full(&data, &p, ms) {
            out.push(m);
        }
        raw.push(serde_json::json!({ "id": id, "data": data, "parts": p }));
    }
    Ok((out, raw))
}

/// Search: only the sessions whose raw text (title, message and part `data`) `filter` says may
/// match are built. The text is streamed row by row and tested on its bytes, with the same exact
/// prefilter the file engine uses; SQLite's own `lower()`/`LIKE` fold ASCII only and would
/// miss "CAFÉ" for "café".
pub fn matching(
    conn: &Connection,
    filter: &crate::query::ByteFilter,
) -> rusqlite::Result<Vec<Session>> {
    let mut masks = crate::query::SessionMasks::new(filter);
    // Sessions come from the session table; rows of other ids belong to nothing listed.
    let mut feed = |sql: &str, new_ids: bool| -> rusqlite::Result<()> {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let Some(id) = cell_string(row.get_ref(0)?) else {
                continue;
            };
            if new_ids {
                masks.add(id.clone());
            }
            if let rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) =
                row.get_ref(1)?
            {
                masks.scan(&id, b);
            }
        }
        Ok(())
    };
    feed("SELECT id, title FROM session", true)?;
    feed("SELECT session_id, data FROM message", false)?;
    if columns(conn, "part").iter().any(|c| c == "session_id") {
        feed("SELECT session_id, data FROM part", false)?;
    } else {
        feed(
            "SELECT m.session_id, p.data FROM part p JOIN message m ON m.id = p.message_id",
            false,
        )?;
    }
    let mut out = Vec::new();
    for id in masks.kept() {
        out.extend(sessions(conn, Some(&id))?);
    }
    Ok(out)
}
