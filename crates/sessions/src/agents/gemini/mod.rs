//! Gemini CLI sessions.
//!
//! Store: `<GEMINI_CLI_HOME|~>/.gemini/tmp/<project slug or sha256>/chats/session-<time>-<8 hex>.jsonl`
//! (legacy whole-file `.json` beside them; a resumed legacy chat gets a `.jsonl` twin, which wins),
//! then the spec's `~/.gemini/sessions/<id>.jsonl` last. Subagent chats live in
//! `chats/<parentSessionId>/` and are not sessions of their own (Gemini's listing skips them too).
//! The native id is the `sessionId` in the records; the file name only carries its first 8 chars.
mod parse;

use std::path::{Path, PathBuf};

use crate::agents::adapter::Mode;
use crate::agents::adapter::{
    existing_dirs, Agent, FileTools, Place, Source, ToolKind, SESSION_DIRS,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Session, SessionSummary, Timestamp};
use crate::read::fs::{files_noted, stamp, subdirs, without_shadowed};
use crate::read::head;
use parse::parse_file;
use serde_json::Value;

pub struct Gemini;

impl Agent for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        session_files(ctx)
            .into_iter()
            .filter_map(|p| {
                let side = project_root_file(&p).into_iter().collect::<Vec<_>>();
                Source::new(p, &side)
            })
            .collect()
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        places(ctx)
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        Ok(vec![parse_file(&source.path, Mode::Summary)?.summary])
    }

    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session> {
        let path = locate(ctx, session_id)
            .ok_or_else(|| Error::session_not_found(self.name(), session_id))?;
        parse_file(&path, mode)
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        Ok(vec![parse_file(&source.path, Mode::Messages)?])
    }

    fn file_tools(&self) -> FileTools {
        &[
            ("read_file", ToolKind::Read),
            ("read_many_files", ToolKind::Read),
            ("write_file", ToolKind::Write),
            ("replace", ToolKind::Edit),
            ("edit", ToolKind::Edit),
            ("run_shell_command", ToolKind::Shell),
        ]
    }
}

/// The directories `chat_dirs` starts from, each with the variable that gave it.
fn places(ctx: &Context) -> Vec<Place> {
    if let Some(d) = ctx.session_dir("gemini") {
        return vec![Place::new(d, Some(SESSION_DIRS))];
    }
    let by = ctx.env.var(HOME_VAR).map(|_| HOME_VAR);
    let mut out: Vec<Place> = (gemini_dir(ctx).into_iter())
        .map(|g| Place::new(g, by))
        .collect();
    out.extend((ctx.env.home_join(".gemini/sessions").into_iter()).map(|p| Place::new(p, None)));
    out
}

const HOME_VAR: &str = "GEMINI_CLI_HOME";

/// `<GEMINI_CLI_HOME|~>/.gemini`.
fn gemini_dir(ctx: &Context) -> Option<PathBuf> {
    ctx.env
        .path_var("GEMINI_CLI_HOME")
        .or_else(|| ctx.env.home())
        .map(|h| h.join(".gemini"))
}

/// Directories holding chat files, in priority order: the caller's override alone when given
/// (taken as a `.gemini` dir, a `tmp` dir or a project dir, whichever it looks like), else the
/// current layout, then the spec's path.
fn chat_dirs(ctx: &Context) -> Vec<(PathBuf, bool)> {
    let mut out: Vec<(PathBuf, bool)> = Vec::new();
    let add_gemini_dir = |g: &Path, out: &mut Vec<(PathBuf, bool)>| {
        for project in subdirs(&g.join("tmp")) {
            out.push((project.join("chats"), false));
        }
    };
    match ctx.session_dir("gemini") {
        Some(d) => {
            add_gemini_dir(&d, &mut out);
            for project in subdirs(&d) {
                out.push((project.join("chats"), false));
            }
            out.push((d.join("chats"), false));
            out.push((d.join("sessions"), true));
            out.push((d.clone(), false));
        }
        None => {
            if let Some(g) = gemini_dir(ctx) {
                add_gemini_dir(&g, &mut out);
                out.push((g.join("sessions"), true));
            }
            if let Some(h) = ctx.env.home_join(".gemini/sessions") {
                out.push((h, true));
            }
        }
    }
    let dirs = existing_dirs(out.iter().map(|(d, _)| d.clone()));
    dirs.into_iter()
        .map(|d| {
            let any = out.iter().any(|(p, any)| *p == d && *any);
            (d, any)
        })
        .collect()
}

/// Chat files: `session-*.jsonl|json` in `chats/` (temp files `*.tmp-<pid>` and
/// `*.unreadable-<ts>` backups end otherwise and are skipped), any `*.jsonl|json` in the spec's
/// `sessions/`. A legacy `.json` is dropped when its `.jsonl` twin exists.
fn session_files(ctx: &Context) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (dir, any_name) in chat_dirs(ctx) {
        let found = files_noted(ctx, &dir, |n| {
            (any_name || n.starts_with("session-"))
                && (n.ends_with(".jsonl") || n.ends_with(".json"))
        });
        out.extend(without_shadowed(found, |f, all| {
            parse::is_legacy_doc(f) && all.contains(&f.with_extension("jsonl"))
        }));
    }
    out
}

/// Find the file of `id` reading as little as possible: first the files whose name carries the
/// id (`…-<first 8 chars>.jsonl`, or the whole id as the stem), checking their metadata; then the
/// metadata of every chat file. `.jsonl` before `.json`.
fn locate(ctx: &Context, id: &str) -> Option<PathBuf> {
    let mut all = session_files(ctx);
    all.sort_by_key(|p| parse::is_legacy_doc(p));
    let short: String = id.chars().take(8).collect();
    let named = |p: &PathBuf| {
        let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
        stem.is_some_and(|s| s == id || (short.len() == 8 && s.ends_with(&format!("-{short}"))))
    };
    let (likely, rest): (Vec<PathBuf>, Vec<PathBuf>) = all.into_iter().partition(named);
    // A file named exactly as the id is that session even when its records say nothing.
    if let Some(p) = likely
        .iter()
        .find(|p| p.file_stem().is_some_and(|s| s == id))
    {
        return Some(p.clone());
    }
    if let Some(p) = likely
        .iter()
        .find(|p| head_session_id(p).as_deref() == Some(id))
    {
        return Some(p.clone());
    }
    rest.into_iter()
        .find(|p| head_session_id(p).as_deref() == Some(id))
}

/// The `sessionId` at the head of a chat file: the first record of a `.jsonl`, the first
/// `"sessionId"` key of a `.json` document (Gemini writes it before `messages`).
fn head_session_id(path: &Path) -> Option<String> {
    if parse::is_legacy_doc(path) {
        return head::first_string_field(path, "sessionId", 64 * 1024);
    }
    // The metadata record is the first line Gemini writes, but the summary reader takes the id
    // from any metadata record; look a few records further so a foreign first line (found by
    // fuzzing with a 100 MB padding record) does not make `get` miss a session `list` shows.
    let mut found = None;
    let mut seen = 0;
    crate::read::jsonl::read_lines::<Value>(path, |v| {
        seen += 1;
        found = v
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string);
        found.is_none() && seen < HEAD_RECORDS
    })
    .ok()?;
    found
}

/// How many leading records `head_session_id` reads before giving up.
const HEAD_RECORDS: usize = 4;

/// `<project dir>/.project_root` (the absolute project path Gemini records) beside `chats/`.
fn project_root_file(chat_file: &Path) -> Option<PathBuf> {
    let chats = chat_file.parent()?;
    if chats.file_name()? != "chats" {
        return None;
    }
    Some(chats.parent()?.join(".project_root"))
}

pub(crate) fn project_root(chat_file: &Path) -> Option<String> {
    let p = project_root_file(chat_file)?;
    let bytes = crate::read::fs::read_capped(&p, 64 * 1024).ok()?;
    let s = String::from_utf8_lossy(&bytes).trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// File modification time: the last resort for dates.
pub(crate) fn mtime(path: &Path) -> Option<Timestamp> {
    let s = stamp(path)?;
    (s.mtime_ns > 0).then(|| Timestamp::from_timestamp_nanos(s.mtime_ns as i64))
}
