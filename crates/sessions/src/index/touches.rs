//! The files each indexed session touched (`agents::touches`), stored beside its document when
//! the document is written: each distinct path once (`touch_path`), which documents touched a
//! path (`touch_file`, one row per path and document), and each document's touches with the one
//! line of each user request that led to them, packed in one value (`touch_set`,
//! `codec::touches`), so a lookup reads no store. A path is found through its unique index; a
//! glob is matched against the distinct paths, far fewer than the touches. A session is found by
//! its id through a hash of it (the recap's files).
use rusqlite::{params, Connection, OptionalExtension};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::codec;
use super::store::Fault;
use crate::model::{Session, SessionSummary, Touch};

/// The tables, created with the rest of the schema (`store::open`).
pub const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS touch_path(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
-- the documents (rows of `doc`) that touched a path
CREATE TABLE IF NOT EXISTS touch_file(
    path INTEGER NOT NULL,
    doc INTEGER NOT NULL,
    PRIMARY KEY(path, doc)
) WITHOUT ROWID;
-- a document's touches and request lines (codec::touches); `session`: a hash of its session id
CREATE TABLE IF NOT EXISTS touch_set(
    doc INTEGER PRIMARY KEY,
    session INTEGER NOT NULL,
    touches BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS touch_set_by_session ON touch_set(session);
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

/// The key `touch_set` finds a session by.
fn session_key(session_id: &str) -> i64 {
    xxhash_rust::xxh3::xxh3_64(session_id.as_bytes()) as i64
}

/// Store the touches of the document `doc`, whose session is `session_id`.
pub fn insert(
    tx: &Connection,
    doc: i64,
    session_id: &str,
    t: &SessionTouches,
) -> Result<(), Fault> {
    if t.touches.is_empty() {
        return Ok(());
    }
    let mut find = tx.prepare_cached("SELECT id FROM touch_path WHERE path = ?1")?;
    let mut add_path = tx.prepare_cached("INSERT INTO touch_path(path) VALUES (?1)")?;
    let mut ids: HashMap<&str, i64> = HashMap::default();
    let mut packed = Vec::with_capacity(t.touches.len());
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
        packed.push((path, touch));
    }
    let mut file =
        tx.prepare_cached("INSERT OR IGNORE INTO touch_file(path, doc) VALUES (?1, ?2)")?;
    for id in ids.values() {
        file.execute(params![id, doc])?;
    }
    tx.prepare_cached("INSERT INTO touch_set(doc, session, touches) VALUES (?1, ?2, ?3)")?
        .execute(params![
            doc,
            session_key(session_id),
            codec::touches(&packed, &t.requests)
        ])?;
    Ok(())
}

/// The touches of the document `doc` as stored, `None` when it has none.
fn packed_of(conn: &Connection, doc: i64) -> Result<Option<codec::PackedTouches>, Fault> {
    let mut st = conn.prepare_cached("SELECT touches FROM touch_set WHERE doc = ?1")?;
    let mut rows = st.query([doc])?;
    let Some(r) = rows.next()? else {
        return Ok(None);
    };
    let packed = codec::decode_touches(r.get_ref(0)?.as_blob()?).map_err(|_| broken())?;
    Ok(Some(packed))
}

fn broken() -> Fault {
    Fault::Broken("stored touches do not decode".into())
}

/// Forget the touches of the document `doc` (its paths stay: another session may name them).
pub fn delete(tx: &Connection, doc: i64) -> Result<(), Fault> {
    let Some((touches, _)) = packed_of(tx, doc)? else {
        return Ok(());
    };
    let mut file = tx.prepare_cached("DELETE FROM touch_file WHERE path = ?1 AND doc = ?2")?;
    let paths: HashSet<i64> = touches.iter().map(|(p, _)| *p).collect();
    for p in paths {
        file.execute(params![p, doc])?;
    }
    tx.execute("DELETE FROM touch_set WHERE doc = ?1", [doc])?;
    Ok(())
}

/// A session the index holds that touched a matching file: its summary and those touches, with
/// the lines of the requests that led to them.
#[derive(Debug, Clone)]
pub struct Touched {
    pub agent: String,
    pub summary: SessionSummary,
    pub touches: SessionTouches,
    /// Its document, when the index answered (`TouchedIn::generation` numbers it).
    pub doc: Option<i64>,
}

/// The touches of `doc` whose path `paths` names, with the requests that led to them.
fn touches_of_doc(
    conn: &Connection,
    doc: i64,
    paths: &HashMap<i64, String>,
) -> Result<SessionTouches, Fault> {
    Ok(match packed_of(conn, doc)? {
        Some(packed) => resolved(packed, paths),
        None => SessionTouches::default(),
    })
}

/// The touches `packed` whose path `paths` names, with their paths and the requests that led
/// to them.
fn resolved(
    (packed, requests): codec::PackedTouches,
    paths: &HashMap<i64, String>,
) -> SessionTouches {
    let touches: Vec<Touch> = (packed.into_iter())
        .filter_map(|(id, mut t)| {
            t.path = paths.get(&id)?.clone();
            Some(t)
        })
        .collect();
    let wanted: HashSet<u64> = touches.iter().filter_map(|t| t.request_index).collect();
    let requests = (requests.into_iter())
        .filter(|(i, _)| wanted.contains(i))
        .collect();
    SessionTouches { touches, requests }
}

/// The sessions of `agents` (by name) among the sources `sources` (ids) that touched a path
/// `matches` accepts; `exact`: the one path asked for, looked up directly; of each, what `read`
/// says.
pub fn lookup(
    conn: &Connection,
    agents: &[&str],
    sources: &HashSet<i64>,
    exact: Option<&str>,
    matches: &dyn Fn(&str) -> bool,
    read: Read,
) -> Result<Vec<Touched>, Fault> {
    let mut paths: HashMap<i64, String> = HashMap::default();
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
                    paths.insert(r.get(0)?, path.to_string());
                }
            }
        }
    }
    let mut docs: Vec<i64> = Vec::new();
    let mut st = conn.prepare_cached("SELECT doc FROM touch_file WHERE path = ?1")?;
    for id in paths.keys() {
        let mut rows = st.query([id])?;
        while let Some(r) = rows.next()? {
            docs.push(r.get(0)?);
        }
    }
    docs.sort_unstable();
    docs.dedup();
    let mut doc = conn.prepare_cached("SELECT source, agent, summary FROM doc WHERE id = ?1")?;
    let mut out = Vec::with_capacity(docs.len());
    for id in docs {
        let mut rows = doc.query([id])?;
        let Some(r) = rows.next()? else {
            continue;
        };
        let agent = r.get_ref(1)?.as_str()?;
        if !sources.contains(&r.get::<_, i64>(0)?) || !agents.contains(&agent) {
            continue;
        }
        let agent = agent.to_string();
        let blob = r.get_ref(2)?.as_blob()?;
        // Cut, only the sessions kept are decoded whole, once chosen.
        let summary = match read {
            Read::Whole => codec::decode_summary(blob),
            Read::Heads | Read::Cut(_) => codec::decode_summary_head(blob),
        }
        .map_err(|_| undecodable())?;
        let mut touches = match read {
            Read::Heads => SessionTouches::default(),
            _ => touches_of_doc(conn, id, &paths)?,
        };
        if let Read::Cut(c) = read {
            (touches.touches).retain(|t| (c.keep)(t, summary.updated_at));
            if touches.touches.is_empty() {
                continue;
            }
        }
        touches
            .touches
            .sort_by(|a, b| (a.message_index, &a.path).cmp(&(b.message_index, &b.path)));
        out.push(Touched {
            agent,
            summary,
            touches,
            doc: Some(id),
        });
    }
    let Read::Cut(c) = read else {
        return Ok(out);
    };
    let chosen = newest_sessions(&out, c.limit);
    out.retain(|t| chosen.contains(&crate::ids::unified_id(&t.agent, &t.summary.session_id)));
    for t in &mut out {
        let id = t.doc.expect("found in the index");
        let blob: Vec<u8> = doc.query_row([id], |r| r.get(2))?;
        t.summary = codec::decode_summary(&blob).map_err(|_| undecodable())?;
    }
    Ok(out)
}

fn undecodable() -> Fault {
    Fault::Broken("a stored summary does not decode".into())
}

/// What a lookup reads of each session it finds.
#[derive(Clone, Copy)]
pub enum Read<'a> {
    /// Its whole summary, and its touches of the paths.
    Whole,
    /// The head of its summary (`SessionSummary::new`) alone: which sessions they are (`file:`
    /// with words).
    Heads,
    /// `Whole`, of the sessions `touched` keeps (`Cut`) alone.
    Cut(&'a Cut<'a>),
}

/// What `touched` keeps of the sessions the index finds, when it answers alone: the touches it
/// counts (`keep`, given a touch and its session's last update), and at most `limit` sessions,
/// the newest first.
pub struct Cut<'a> {
    pub keep: &'a (dyn Fn(&Touch, crate::model::Timestamp) -> bool + Sync),
    pub limit: usize,
}

/// The unified ids of the `limit` sessions of `found` that `touched` lists first: newest by
/// their latest touch (else their latest update), a session found twice taken as one.
fn newest_sessions(found: &[Touched], limit: usize) -> HashSet<String> {
    type Newest = (Option<crate::model::Timestamp>, crate::model::Timestamp);
    let mut by_id: HashMap<String, Newest> = HashMap::default();
    for t in found {
        let at = t.touches.touches.iter().filter_map(|x| x.at).max();
        let id = crate::ids::unified_id(&t.agent, &t.summary.session_id);
        let e = by_id.entry(id).or_insert((None, t.summary.updated_at));
        e.0 = e.0.max(at);
        e.1 = e.1.max(t.summary.updated_at);
    }
    let mut order: Vec<(crate::model::Timestamp, String)> = (by_id.into_iter())
        .map(|(id, (at, updated))| (at.unwrap_or(updated), id))
        .collect();
    order.sort_unstable_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    order.into_iter().take(limit).map(|(_, id)| id).collect()
}

/// The touches `keep` accepts of the documents of `agent` whose session id is in `ids` (the
/// recap's files), each with the head of its summary (`SessionSummary::new`). Read in two
/// statements whatever the number of sessions: their documents' touches, found by the hashes of
/// the ids, then the paths those touches name.
pub fn of_sessions(
    conn: &Connection,
    agent: &str,
    ids: &std::collections::HashSet<&str>,
    keep: &dyn Fn(&Touch) -> bool,
) -> Result<Vec<Touched>, Fault> {
    let mut keys: Vec<i64> = ids.iter().map(|id| session_key(id)).collect();
    keys.sort_unstable();
    keys.dedup();
    let mut by_keys = conn.prepare_cached(
        "SELECT t.doc, d.summary, t.touches FROM touch_set t JOIN doc d ON d.id = t.doc
         WHERE t.session IN (SELECT value FROM json_each(?1)) AND d.agent = ?2",
    )?;
    let mut rows = by_keys.query(params![json_ints(&keys), agent])?;
    let mut found = Vec::new();
    let mut path_ids: HashSet<i64> = HashSet::default();
    while let Some(r) = rows.next()? {
        let summary =
            codec::decode_summary_head(r.get_ref(1)?.as_blob()?).map_err(|_| undecodable())?;
        // Another session of the same hash.
        if !ids.contains(summary.session_id.as_str()) {
            continue;
        }
        let (mut touches, requests) =
            codec::decode_touches(r.get_ref(2)?.as_blob()?).map_err(|_| broken())?;
        touches.retain(|(_, t)| keep(t));
        path_ids.extend(touches.iter().map(|(p, _)| *p));
        found.push((r.get::<_, i64>(0)?, summary, (touches, requests)));
    }
    let paths = paths_named(conn, &path_ids)?;
    if paths.len() != path_ids.len() {
        return Err(Fault::Broken("a stored touch names no path".into()));
    }
    let touched = (found.into_iter()).map(|(doc, summary, packed)| Touched {
        agent: agent.to_string(),
        summary,
        touches: resolved(packed, &paths),
        doc: Some(doc),
    });
    Ok(touched.collect())
}

/// The paths of the ids `ids`, in one statement.
fn paths_named(conn: &Connection, ids: &HashSet<i64>) -> Result<HashMap<i64, String>, Fault> {
    let ids: Vec<i64> = ids.iter().copied().collect();
    let mut st = conn.prepare_cached(
        "SELECT id, path FROM touch_path WHERE id IN (SELECT value FROM json_each(?1))",
    )?;
    let mut rows = st.query([json_ints(&ids)])?;
    let mut out = HashMap::default();
    while let Some(r) = rows.next()? {
        out.insert(r.get(0)?, r.get(1)?);
    }
    Ok(out)
}

/// `v` as a JSON array, the list `json_each` reads.
fn json_ints(v: &[i64]) -> String {
    serde_json::to_string(v).expect("integers serialise")
}
