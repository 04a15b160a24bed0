//! The files each indexed session touched (`agents::touches`), stored beside its document when
//! the document is written: each distinct path once (`touch_path`), each touch as a row of small
//! numbers keyed by path and by document, and the one line of each user request that led to a
//! touch (`touch_request`), so a lookup reads no store. A path is found through its unique
//! index; a glob is matched against the distinct paths, far fewer than the touches.
use rusqlite::{params, Connection, OptionalExtension};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::codec;
use super::store::Fault;
use crate::model::{FileAction, Session, SessionSummary, Touch};

/// The tables, created with the rest of the schema (`store::open`).
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS touch_path(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
-- one file a session's tool call touched: `doc` is the session's row in `doc`, `action` a
-- model::FileAction code, `at` epoch milliseconds, `message` and `request` message indexes
CREATE TABLE IF NOT EXISTS touch(
    path INTEGER NOT NULL,
    doc INTEGER NOT NULL,
    action INTEGER NOT NULL,
    at INTEGER,
    message INTEGER NOT NULL,
    added INTEGER,
    removed INTEGER,
    request INTEGER
);
CREATE INDEX IF NOT EXISTS touch_by_path ON touch(path, doc);
CREATE INDEX IF NOT EXISTS touch_by_doc ON touch(doc);
-- the first line of a user's request that led to a touch
CREATE TABLE IF NOT EXISTS touch_request(
    doc INTEGER NOT NULL,
    message INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY(doc, message)
) WITHOUT ROWID;
";

/// How long a request's line is kept.
pub const REQUEST_CHARS: usize = 160;

/// The touches of one session and the lines of the requests that led to them, ready to store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionTouches {
    pub touches: Vec<Touch>,
    pub requests: Vec<(u64, String)>,
}

impl SessionTouches {
    /// Of `session`, whose agent's tools are `tools`.
    pub fn of(tools: crate::agents::FileTools, session: &Session) -> SessionTouches {
        let touches = crate::agents::touches::of_session(tools, session);
        let requests = requests_of(session, &touches);
        SessionTouches { touches, requests }
    }
}

/// The first line of each request the touches name.
pub fn requests_of(session: &Session, touches: &[Touch]) -> Vec<(u64, String)> {
    let mut at: Vec<u64> = touches.iter().filter_map(|t| t.request_index).collect();
    at.sort_unstable();
    at.dedup();
    at.into_iter()
        .filter_map(|i| {
            let m = session.messages.get(i as usize)?;
            Some((i, request_line(&m.content)))
        })
        .collect()
}

/// A request as one line: its first line that is not blank, cut to `REQUEST_CHARS`.
pub fn request_line(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    crate::model::truncate_title(first, REQUEST_CHARS)
}

/// Store the touches of the document `doc`.
pub fn insert(tx: &Connection, doc: i64, t: &SessionTouches) -> Result<(), Fault> {
    if t.touches.is_empty() {
        return Ok(());
    }
    let mut find = tx.prepare_cached("SELECT id FROM touch_path WHERE path = ?1")?;
    let mut add_path = tx.prepare_cached("INSERT INTO touch_path(path) VALUES (?1)")?;
    let mut add = tx.prepare_cached(
        "INSERT INTO touch(path, doc, action, at, message, added, removed, request)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    let mut ids: HashMap<&str, i64> = HashMap::default();
    for touch in &t.touches {
        let path = match ids.get(touch.path.as_str()) {
            Some(&id) => id,
            None => {
                let id = match find
                    .query_row([&touch.path], |r| r.get::<_, i64>(0))
                    .optional()?
                {
                    Some(id) => id,
                    None => {
                        add_path.execute([&touch.path])?;
                        tx.last_insert_rowid()
                    }
                };
                ids.insert(&touch.path, id);
                id
            }
        };
        add.execute(params![
            path,
            doc,
            touch.action.code(),
            touch.at.map(|t| t.timestamp_millis()),
            touch.message_index as i64,
            touch.added.map(|n| n as i64),
            touch.removed.map(|n| n as i64),
            touch.request_index.map(|n| n as i64),
        ])?;
    }
    let mut req = tx.prepare_cached(
        "INSERT OR REPLACE INTO touch_request(doc, message, text) VALUES (?1, ?2, ?3)",
    )?;
    for (i, text) in &t.requests {
        req.execute(params![doc, *i as i64, text])?;
    }
    Ok(())
}

/// Forget the touches of the document `doc` (its paths stay: another session may name them).
pub fn delete(tx: &Connection, doc: i64) -> Result<(), Fault> {
    tx.execute("DELETE FROM touch WHERE doc = ?1", [doc])?;
    tx.execute("DELETE FROM touch_request WHERE doc = ?1", [doc])?;
    Ok(())
}

/// A session the index holds that touched a matching file: its summary and those touches, with
/// the lines of the requests that led to them.
#[derive(Debug, Clone)]
pub struct Touched {
    pub agent: String,
    pub summary: SessionSummary,
    pub touches: SessionTouches,
}

/// The sessions of `agents` (by name) among the sources `sources` (ids) that touched a path
/// `matches` accepts; `exact`: the one path asked for, looked up directly.
pub fn lookup(
    conn: &Connection,
    agents: &[&str],
    sources: &HashSet<i64>,
    exact: Option<&str>,
    matches: &dyn Fn(&str) -> bool,
) -> Result<Vec<Touched>, Fault> {
    let mut paths: Vec<(i64, String)> = Vec::new();
    match exact {
        Some(p) => {
            let id = conn
                .query_row("SELECT id FROM touch_path WHERE path = ?1", [p], |r| {
                    r.get::<_, i64>(0)
                })
                .optional()?;
            paths.extend(id.map(|id| (id, p.to_string())));
        }
        None => {
            let mut st = conn.prepare_cached("SELECT id, path FROM touch_path")?;
            let mut rows = st.query([])?;
            while let Some(r) = rows.next()? {
                let path = r.get_ref(1)?.as_str()?;
                if matches(path) {
                    paths.push((r.get(0)?, path.to_string()));
                }
            }
        }
    }
    let mut by_doc: HashMap<i64, Vec<Touch>> = HashMap::default();
    let mut st = conn.prepare_cached(
        "SELECT doc, action, at, message, added, removed, request FROM touch WHERE path = ?1",
    )?;
    for (id, path) in &paths {
        let mut rows = st.query([id])?;
        while let Some(r) = rows.next()? {
            let action = FileAction::from_code(r.get(1)?)
                .ok_or_else(|| Fault::Broken("a stored touch has no action".into()))?;
            let at: Option<i64> = r.get(2)?;
            let n = |i: usize| r.get::<_, Option<i64>>(i).map(|v| v.map(|v| v as u64));
            by_doc.entry(r.get(0)?).or_default().push(Touch {
                path: path.clone(),
                action,
                at: at.and_then(chrono::DateTime::from_timestamp_millis),
                message_index: r.get::<_, i64>(3)? as u64,
                added: n(4)?,
                removed: n(5)?,
                request_index: n(6)?,
            });
        }
    }
    let mut doc = conn.prepare_cached("SELECT source, agent, summary FROM doc WHERE id = ?1")?;
    let mut req =
        conn.prepare_cached("SELECT text FROM touch_request WHERE doc = ?1 AND message = ?2")?;
    let mut out = Vec::with_capacity(by_doc.len());
    for (id, mut touches) in by_doc {
        let row = doc
            .query_row([id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Vec<u8>>(2)?,
                ))
            })
            .optional()?;
        let Some((source, agent, blob)) = row else {
            continue;
        };
        if !sources.contains(&source) || !agents.contains(&agent.as_str()) {
            continue;
        }
        let summary = codec::decode_summary(&blob)
            .map_err(|_| Fault::Broken("a stored summary does not decode".into()))?;
        touches.sort_by_key(|t| (t.message_index, t.path.clone()));
        let mut wanted: Vec<u64> = touches.iter().filter_map(|t| t.request_index).collect();
        wanted.sort_unstable();
        wanted.dedup();
        let mut requests = Vec::with_capacity(wanted.len());
        for i in wanted {
            let text: Option<String> = req
                .query_row(params![id, i as i64], |r| r.get(0))
                .optional()?;
            requests.extend(text.map(|t| (i, t)));
        }
        out.push(Touched {
            agent,
            summary,
            touches: SessionTouches { touches, requests },
        });
    }
    Ok(out)
}

/// Every touch of the documents of `agent` whose session id is in `ids` (the recap's files).
pub fn of_sessions(
    conn: &Connection,
    agent: &str,
    ids: &std::collections::HashSet<&str>,
) -> Result<Vec<Touched>, Fault> {
    let mut docs = conn.prepare_cached("SELECT id, summary FROM doc WHERE agent = ?1")?;
    let mut rows = docs.query([agent])?;
    let mut wanted = Vec::new();
    while let Some(r) = rows.next()? {
        let blob = r.get_ref(1)?.as_blob()?;
        let head = codec::decode_summary_head(blob)
            .map_err(|_| Fault::Broken("a stored summary does not decode".into()))?;
        if ids.contains(head.session_id.as_str()) {
            let summary = codec::decode_summary(blob)
                .map_err(|_| Fault::Broken("a stored summary does not decode".into()))?;
            wanted.push((r.get::<_, i64>(0)?, summary));
        }
    }
    let mut st = conn.prepare_cached(
        "SELECT p.path, t.action, t.at, t.message, t.added, t.removed, t.request
         FROM touch t JOIN touch_path p ON p.id = t.path WHERE t.doc = ?1 ORDER BY t.rowid",
    )?;
    let mut req = conn.prepare_cached("SELECT message, text FROM touch_request WHERE doc = ?1")?;
    let mut out = Vec::new();
    for (doc, summary) in wanted {
        let mut touches = Vec::new();
        let mut rows = st.query([doc])?;
        while let Some(r) = rows.next()? {
            let action = FileAction::from_code(r.get(1)?)
                .ok_or_else(|| Fault::Broken("a stored touch has no action".into()))?;
            let at: Option<i64> = r.get(2)?;
            let n = |i: usize| r.get::<_, Option<i64>>(i).map(|v| v.map(|v| v as u64));
            touches.push(Touch {
                path: r.get(0)?,
                action,
                at: at.and_then(chrono::DateTime::from_timestamp_millis),
                message_index: r.get::<_, i64>(3)? as u64,
                added: n(4)?,
                removed: n(5)?,
                request_index: n(6)?,
            });
        }
        let requests = req
            .query_map([doc], |r| Ok((r.get::<_, i64>(0)? as u64, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        out.push(Touched {
            agent: agent.to_string(),
            summary,
            touches: SessionTouches { touches, requests },
        });
    }
    Ok(out)
}
