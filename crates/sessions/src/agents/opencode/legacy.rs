//! The legacy JSON tree (OpenCode < 1.2; files may remain after the migration to SQLite):
//! `storage/session/<projectID>/<sessionID>.json`, `storage/message/<sessionID>/<messageID>.json`,
//! `storage/part/<messageID>/<partID>.json` (some builds wrote parts flat in `storage/part/`, with
//! `messageID` inside).
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::build;
use super::AGENT;
use crate::error::{Error, Result};
use crate::model::{parse_timestamp, Session, SessionSummary};
use crate::read::fs::{files, read_capped, subdirs};

/// JSON documents here are small; a larger one is not an OpenCode record.
const MAX_JSON: u64 = 64 * 1024 * 1024;

fn is_json(n: &str) -> bool {
    n.ends_with(".json")
}

fn read_json(path: &Path) -> Result<Value> {
    let bytes = read_capped(path, MAX_JSON).map_err(|e| Error::parse(path.display(), e))?;
    serde_json::from_slice(&bytes).map_err(|e| Error::parse(path.display(), e))
}

/// Every session file under `storage/session/*/`.
pub fn session_files(storage: &Path) -> Vec<PathBuf> {
    subdirs(&storage.join("session"))
        .iter()
        .flat_map(|d| files(d, is_json))
        .collect()
}

/// The message directory of a session file. Real ids and file stems are both `ses_…`; some
/// exported trees name the file `ses_<id>.json` for an id without the prefix.
fn message_dir(storage: &Path, session_file: &Path) -> PathBuf {
    let stem = session_file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    let dir = storage.join("message").join(stem);
    match stem.strip_prefix("ses_") {
        Some(bare) if !dir.is_dir() => storage.join("message").join(bare),
        _ => dir,
    }
}

/// Message files of a session file, for the summary cache's stamps.
pub fn side_files(storage: &Path, session_file: &Path) -> Vec<PathBuf> {
    files(&message_dir(storage, session_file), is_json)
}

/// The storage directory a session file lives in (`storage/session/<project>/<file>`).
pub fn storage_of(session_file: &Path) -> Option<&Path> {
    session_file.parent()?.parent()?.parent()
}

/// Find a session file by id: by file name first, then by the id inside.
pub fn find(storage: &Path, id: &str) -> Option<PathBuf> {
    let projects = subdirs(&storage.join("session"));
    for p in &projects {
        for name in [format!("{id}.json"), format!("ses_{id}.json")] {
            let f = p.join(name);
            if f.is_file() {
                return Some(f);
            }
        }
    }
    session_files(storage).into_iter().find(|f| {
        read_json(f)
            .ok()
            .and_then(|v| v.get("id").and_then(Value::as_str).map(|s| s == id))
            .unwrap_or(false)
    })
}

fn time(v: &Value, key: &str) -> Option<crate::model::Timestamp> {
    v.get("time")
        .and_then(|t| t.get(key))
        .and_then(parse_timestamp)
}

/// Parse one session file with its messages and parts.
pub fn load(session_file: &Path) -> Result<Session> {
    let storage = storage_of(session_file)
        .ok_or_else(|| Error::parse(session_file.display(), "not inside storage/session/"))?;
    let info = read_json(session_file)?;
    // OpenCode's session info always has its `id` ("ses_…").
    if !info.get("id").is_some_and(Value::is_string) {
        return Err(crate::error::Error::not_a_session(
            session_file.display(),
            "opencode",
        ));
    }
    let id = info
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            session_file
                .file_stem()
                .and_then(|s| s.to_str())
                .map(str::to_string)
        })
        .unwrap_or_default();

    // Messages ordered by (time.created, id); unreadable message files are skipped.
    let mut msgs: Vec<(Value, String)> = files(&message_dir(storage, session_file), is_json)
        .iter()
        .filter_map(|f| read_json(f).ok())
        .map(|v| {
            let mid = v
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            (v, mid)
        })
        .collect();
    msgs.sort_by(|a, b| {
        let ta = time(&a.0, "created");
        let tb = time(&b.0, "created");
        ta.cmp(&tb).then_with(|| a.1.cmp(&b.1))
    });
    let flat = flat_parts(storage);

    let mut messages = Vec::new();
    let mut raw_messages = Vec::new();
    for (data, mid) in msgs {
        let mut parts: Vec<Value> = files(&storage.join("part").join(&mid), is_json)
            .iter()
            .filter_map(|f| read_json(f).ok())
            .collect();
        parts.extend(
            flat.iter()
                .filter(|p| p.get("messageID").and_then(Value::as_str) == Some(mid.as_str()))
                .cloned(),
        );
        if let Some(m) = build::full(&data, &parts, None) {
            messages.push(m);
        }
        raw_messages.push(serde_json::json!({ "data": data, "parts": parts }));
    }

    let created = time(&info, "created")
        .or_else(|| messages.iter().filter_map(|m| m.timestamp).min())
        .unwrap_or_default();
    let updated = time(&info, "updated")
        .into_iter()
        .chain(messages.iter().filter_map(|m| m.timestamp))
        .max()
        .unwrap_or(created)
        .max(created);
    let mut summary = SessionSummary::new(AGENT, &id, created, updated);
    let text = |k: &str| {
        info.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    summary.cwd = text("directory");
    summary.forked_from = text("parentID");
    summary.title = text("title").unwrap_or_default();
    let mut s = Session {
        summary,
        messages,
        raw: Some(serde_json::json!({ "session": info, "messages": raw_messages }).into()),
    };
    if s.summary.title.is_empty() {
        if let Some(u) = s
            .messages
            .iter()
            .find(|m| m.role == crate::model::Role::User)
        {
            s.summary.title = crate::model::truncate_title(&u.content, 100);
        }
    }
    s.derive_summary_fields();
    Ok(s)
}

/// Parts written flat in `storage/part/` (no per-message directory).
fn flat_parts(storage: &Path) -> Vec<Value> {
    files(&storage.join("part"), is_json)
        .iter()
        .filter_map(|f| read_json(f).ok())
        .collect()
}
