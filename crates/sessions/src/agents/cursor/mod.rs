//! Cursor (cursor-agent CLI) sessions, from two stores that are each incomplete
//! (native-formats.md §5): the chat store `<root>/chats/<md5>/<id>/store.db` (+ `meta.json`) and the
//! agent transcripts `<root>/projects/<slug>/agent-transcripts/` (`<id>/<id>.jsonl`, older flat
//! `<id>.jsonl`, subagents `<parent>/subagents/<id>.jsonl`). `<root>` is the `sessionDirs` override,
//! else `CURSOR_CONFIG_DIR`, else `~/.cursor`.
//!
//! One source per session id: the store.db when there is one (its `-wal` and the transcript are
//! side files), else the transcript. Neither store records token usage, so `usage` stays empty and
//! the cost is unknown rather than zero.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agents::adapter::{
    existing_dirs, Agent, FileTools, Mode, Place, SearchSupport, Source, ToolKind, SESSION_DIRS,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{
    from_epoch_guess, truncate_title, Message, Raw, Role, Session, SessionSummary, Timestamp,
    ToolResult,
};
use crate::query::ByteFilter;
use crate::read::fs::{files, read_capped, stamp, subdirs};

mod store;
mod transcript;

pub struct Cursor;

const AGENT: &str = "cursor";

fn roots(ctx: &Context) -> Vec<PathBuf> {
    existing_dirs(place(ctx).map(|p| p.path))
}

/// `roots`' one directory, with what chose it.
fn place(ctx: &Context) -> Option<Place> {
    if let Some(dir) = ctx.session_dir(AGENT) {
        return Some(Place::new(dir, Some(SESSION_DIRS)));
    }
    match ctx.env.path_var(CONFIG_VAR) {
        Some(d) => Some(Place::new(d, Some(CONFIG_VAR))),
        None => Some(Place::new(ctx.env.home_join(".cursor")?, None)),
    }
}

const CONFIG_VAR: &str = "CURSOR_CONFIG_DIR";

fn is_jsonl(n: &str) -> bool {
    n.ends_with(".jsonl")
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("")
        .to_string()
}

/// `store.db` files by session id (the directory name).
fn stores(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for bucket in subdirs(&root.join("chats")) {
        for dir in subdirs(&bucket) {
            let db = dir.join("store.db");
            if db.is_file() {
                out.insert(dir.file_name().unwrap().to_string_lossy().into_owned(), db);
            }
        }
    }
    out
}

/// Transcript files by session id, in every layout.
fn transcripts(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for project in subdirs(&root.join("projects")) {
        let dir = project.join("agent-transcripts");
        for f in files(&dir, is_jsonl) {
            out.insert(stem(&f), f);
        }
        for d in subdirs(&dir) {
            for f in files(&d, is_jsonl) {
                out.insert(stem(&f), f);
            }
            for f in files(&d.join("subagents"), is_jsonl) {
                out.insert(stem(&f), f);
            }
        }
    }
    out
}

/// The transcript of session `id` under `root`, by the layouts' fixed paths (no full scan).
fn transcript_of(root: &Path, id: &str) -> Option<PathBuf> {
    let file = format!("{id}.jsonl");
    for project in subdirs(&root.join("projects")) {
        let dir = project.join("agent-transcripts");
        for c in [dir.join(id).join(&file), dir.join(&file)] {
            if c.is_file() {
                return Some(c);
            }
        }
    }
    None
}

/// A subagent transcript's parent session: `<parent>/subagents/<id>.jsonl`.
fn parent_of_transcript(p: &Path) -> Option<String> {
    let dir = p.parent()?;
    (dir.file_name()? == "subagents").then(|| {
        dir.parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
    })?
}

/// `<user_query>\n…\n</user_query>` → the text inside.
pub(crate) fn strip_user_query(s: &str) -> String {
    let t = s.trim();
    match t
        .strip_prefix("<user_query>")
        .and_then(|r| r.strip_suffix("</user_query>"))
    {
        Some(inner) => inner.trim().to_string(),
        None => s.to_string(),
    }
}

/// `<user_info>` blocks are context the CLI injects, not a user turn.
pub(crate) fn is_injected_context(s: &str) -> bool {
    s.trim_start().starts_with("<user_info>")
}

/// Text worth showing: `[REDACTED]` (privacy mode) is a placeholder, not the model's words.
pub(crate) fn clean_text(s: &str) -> Option<String> {
    (s.trim() != "[REDACTED]").then(|| s.to_string())
}

/// Give a tool result's output to the call it answers.
pub(crate) fn pair_result(earlier: &mut [Message], r: &ToolResult) {
    if r.tool_call_id.is_empty() {
        return;
    }
    if let Some(c) = earlier
        .iter_mut()
        .rev()
        .flat_map(|m| m.tool_calls.iter_mut())
        .find(|c| c.tool_call_id == r.tool_call_id)
    {
        c.output = Some(r.output.clone());
    }
}

fn mtime(p: &Path) -> Option<Timestamp> {
    let s = stamp(p)?;
    chrono::DateTime::from_timestamp_nanos(s.mtime_ns as i64).into()
}

fn wal_of(p: &Path) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push("-wal");
    PathBuf::from(s)
}

/// Assemble one session from its store.db (if any) and transcript (if any).
fn load_session(id: &str, db: Option<&Path>, transcript: Option<&Path>) -> Result<Session> {
    let st = match db {
        Some(p) => store::read(p)?,
        None => store::Store::default(),
    };
    // meta.json beside store.db: title and times kept by newer builds.
    let meta_file: Option<Value> = db
        .and_then(|p| p.parent())
        .map(|d| d.join("meta.json"))
        .and_then(|f| read_capped(&f, 1 << 20).ok())
        .and_then(|b| serde_json::from_slice(&b).ok());
    // The store's messages win (they have results and times); the transcript fills in when the
    // store has none.
    let (messages, raw_lines) = match transcript {
        Some(t) if st.messages.is_empty() => transcript::read(t)?,
        _ => (st.messages, Vec::new()),
    };
    let meta = st.meta.unwrap_or(Value::Null);
    let mf = meta_file.clone().unwrap_or(Value::Null);
    let str_of = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    };
    let ms = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).and_then(from_epoch_guess);

    let file_times: Vec<Timestamp> = [db.map(Path::to_path_buf), db.map(wal_of)]
        .into_iter()
        .flatten()
        .chain(transcript.map(Path::to_path_buf))
        .filter_map(|p| mtime(&p))
        .collect();
    let msg_times: Vec<Timestamp> = messages.iter().filter_map(|m| m.timestamp).collect();
    let created = ms(&mf, "createdAtMs")
        .or_else(|| ms(&meta, "createdAt"))
        .or_else(|| msg_times.iter().min().copied())
        .or_else(|| file_times.iter().min().copied())
        .unwrap_or_default();
    let recorded = ms(&mf, "updatedAtMs")
        .into_iter()
        .chain(msg_times.iter().copied())
        .max();
    let updated = recorded
        .or_else(|| file_times.iter().max().copied())
        .unwrap_or(created)
        .max(created);

    let mut s = SessionSummary::new(AGENT, id, created, updated);
    s.title = str_of(&mf, "title")
        .or_else(|| str_of(&meta, "name"))
        .or_else(|| {
            messages
                .iter()
                .find(|m| m.role == Role::User && !m.content.trim().is_empty())
                .map(|m| truncate_title(&m.content, 100))
        })
        .unwrap_or_default();
    s.cwd = str_of(&meta, "workspacePath").or_else(|| workspace_from_context(&messages));
    s.forked_from = transcript.and_then(parent_of_transcript);
    let mut session = Session {
        summary: s,
        messages,
        raw: Some(
            serde_json::json!({
                "meta": meta,
                "metaJson": mf,
                "blobs": st.raw_blobs,
                "transcript": raw_lines,
            })
            .into(),
        ),
    };
    session.derive_summary_fields();
    if session.summary.model.is_none() {
        session.summary.model = session.raw.as_ref().and_then(|r| match r {
            Raw::Value(v) => str_of(&v["meta"], "lastUsedModel"),
            Raw::Lines(_) => None,
        });
    }
    Ok(session)
}

/// `Workspace Path: /x` in the injected `<user_info>` context.
fn workspace_from_context(messages: &[Message]) -> Option<String> {
    messages
        .iter()
        .filter(|m| m.role == Role::System)
        .flat_map(|m| m.content.lines())
        .find_map(|l| l.trim().strip_prefix("Workspace Path:"))
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
}

/// The session a source stands for: `(id, store.db, transcript)`.
fn resolve(source: &Path) -> (String, Option<PathBuf>, Option<PathBuf>) {
    if source.file_name().is_some_and(|n| n == "store.db") {
        let dir = source.parent().unwrap_or(Path::new(""));
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // <root>/chats/<md5>/<id>/store.db
        let root = dir.parent().and_then(Path::parent).and_then(Path::parent);
        let t = root.and_then(|r| transcript_of(r, &id));
        (id, Some(source.to_path_buf()), t)
    } else {
        (stem(source), None, Some(source.to_path_buf()))
    }
}

impl Agent for Cursor {
    fn name(&self) -> &'static str {
        AGENT
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        let mut out = Vec::new();
        for root in roots(ctx) {
            let mut ts = transcripts(&root);
            for (id, db) in stores(&root) {
                let mut side = vec![wal_of(&db), db.with_file_name("meta.json")];
                side.extend(ts.remove(&id));
                out.extend(Source::new(db, &side));
            }
            out.extend(ts.into_values().filter_map(|t| Source::new(t, &[])));
        }
        out
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        place(ctx).into_iter().collect()
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        let (id, db, t) = resolve(&source.path);
        Ok(vec![
            load_session(&id, db.as_deref(), t.as_deref())?.summary,
        ])
    }

    fn load(&self, ctx: &Context, session_id: &str, _mode: Mode) -> Result<Session> {
        for root in roots(ctx) {
            let db = subdirs(&root.join("chats"))
                .into_iter()
                .map(|b| b.join(session_id).join("store.db"))
                .find(|p| p.is_file());
            let t = transcript_of(&root, session_id).or_else(|| {
                // Subagent transcripts sit under their parent's directory.
                transcripts(&root).remove(session_id)
            });
            if db.is_some() || t.is_some() {
                return load_session(session_id, db.as_deref(), t.as_deref());
            }
        }
        Err(Error::session_not_found(AGENT, session_id))
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        let (id, db, t) = resolve(&source.path);
        Ok(vec![load_session(&id, db.as_deref(), t.as_deref())?])
    }

    fn search_support(&self) -> Option<&dyn SearchSupport> {
        Some(self)
    }

    fn file_tools(&self) -> FileTools {
        &[
            ("Read", ToolKind::Read),
            ("read_file", ToolKind::Read),
            ("Write", ToolKind::Write),
            ("StrReplace", ToolKind::Edit),
            ("Edit", ToolKind::Edit),
            ("MultiEdit", ToolKind::Edit),
            ("edit_file", ToolKind::Edit),
            ("search_replace", ToolKind::Edit),
            ("EditNotebook", ToolKind::Edit),
            ("Delete", ToolKind::Delete),
            ("delete_file", ToolKind::Delete),
            ("ApplyPatch", ToolKind::Patch),
            ("Shell", ToolKind::Shell),
            ("Bash", ToolKind::Shell),
            ("run_terminal_cmd", ToolKind::Shell),
        ]
    }
}

impl SearchSupport for Cursor {
    /// A store.db is judged on its raw meta and blob text plus its side files (`meta.json`, the
    /// transcript; the `-wal` is read through SQLite) and built only when it may match. A
    /// transcript-only session is left to the file engine.
    fn load_matching(
        &self,
        _ctx: &Context,
        source: &Source,
        filter: &ByteFilter,
    ) -> Option<Result<Vec<Session>>> {
        let (id, db, t) = resolve(&source.path);
        let db = db?;
        let mut mask = match store::byte_mask(&db, filter) {
            Ok(m) => m,
            Err(e) => return Some(Err(e)),
        };
        for side in source.side_files.iter().filter(|p| **p != wal_of(&db)) {
            if filter.all_needles_seen(mask) {
                break;
            }
            mask |= filter.scan_file(side);
        }
        if !filter.keep(mask) {
            return Some(Ok(Vec::new()));
        }
        Some(load_session(&id, Some(&db), t.as_deref()).map(|s| vec![s]))
    }
}
