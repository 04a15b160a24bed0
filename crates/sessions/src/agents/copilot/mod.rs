//! GitHub Copilot CLI sessions.
//!
//! Store `<COPILOT_HOME|~/.copilot>`, three layouts (the CLI migrated twice), newest first:
//! `session-state/<id>/events.jsonl` (+ `workspace.yaml`: title and cwd), the flat
//! `session-state/<id>.jsonl`, and `history-session-state/<id>.json` (whole-file chat document);
//! then the spec's `~/.config/github-copilot/sessions/<id>.json` last. The native id is
//! `session.start.data.sessionId` (= the directory name), else the file or directory name.
mod events;
mod legacy;
mod workspace;

use std::path::{Path, PathBuf};

use crate::agents::adapter::{
    existing_dirs, Agent, FileTools, FormatVersion, Mode, Place, Source, ToolKind, SESSION_DIRS,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Session, SessionSummary, Timestamp};
use crate::read::fs::{files_noted, stamp, subdirs};
use crate::read::head;

pub struct Copilot;

impl Agent for Copilot {
    fn name(&self) -> &'static str {
        "copilot"
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        session_files(ctx)
            .into_iter()
            .filter_map(|p| {
                let side: Vec<PathBuf> = workspace_file(&p).into_iter().collect();
                Source::new(p, &side)
            })
            .collect()
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        places(ctx)
    }

    /// The release of the CLI that started the session (`session.start`, the first event).
    fn format_version(&self, _ctx: &Context, source: &Source) -> Option<FormatVersion> {
        if source.path.extension().is_none_or(|e| e != "jsonl") {
            return None;
        }
        let v = head::first_string_field(&source.path, "copilotVersion", 16 << 10)?;
        Some(FormatVersion::release("copilotVersion", v))
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        Ok(vec![parse(&source.path, Mode::Summary)?.summary])
    }

    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session> {
        let path = locate(ctx, session_id)
            .ok_or_else(|| Error::session_not_found(self.name(), session_id))?;
        parse(&path, mode)
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        Ok(vec![parse(&source.path, Mode::Messages)?])
    }

    fn file_tools(&self) -> FileTools {
        &[
            ("view", ToolKind::Read),
            ("create", ToolKind::Write),
            ("edit", ToolKind::Edit),
            ("str_replace", ToolKind::Edit),
            ("str_replace_editor", ToolKind::Editor),
            ("apply_patch", ToolKind::Patch),
            ("bash", ToolKind::Shell),
            ("shell", ToolKind::Shell),
            ("powershell", ToolKind::Shell),
        ]
    }
}

fn parse(path: &Path, mode: Mode) -> Result<Session> {
    let id = name_id(path);
    if is_doc(path) {
        return legacy::parse_doc(path, mode, &id);
    }
    let ws = workspace_file(path)
        .map(|w| workspace::read(&w))
        .unwrap_or_default();
    events::parse_events(path, mode, &id, &ws)
}

fn is_doc(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}

/// The id the layout gives: the directory of an `events.jsonl`, else the file stem.
fn name_id(path: &Path) -> String {
    let name = if path.file_name().is_some_and(|n| n == "events.jsonl") {
        path.parent().and_then(Path::file_name)
    } else {
        path.file_stem()
    };
    name.map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn workspace_file(path: &Path) -> Option<PathBuf> {
    (path.file_name()? == "events.jsonl").then(|| path.with_file_name("workspace.yaml"))
}

/// Where sessions may be, by layout: directories of `<id>/events.jsonl`, of flat `<id>.jsonl`,
/// and of `<id>.json` documents.
struct Roots {
    dir_layout: Vec<PathBuf>,
    flat: Vec<PathBuf>,
    docs: Vec<PathBuf>,
}

/// The homes `roots` starts from, each with the variable that gave it.
fn places(ctx: &Context) -> Vec<Place> {
    if let Some(d) = ctx.session_dir("copilot") {
        return vec![Place::new(d, Some(SESSION_DIRS))];
    }
    let mut out: Vec<Place> = match ctx.env.path_var(HOME_VAR) {
        Some(h) => vec![Place::new(h, Some(HOME_VAR))],
        None => (ctx.env.home_join(".copilot").into_iter())
            .map(|h| Place::new(h, None))
            .collect(),
    };
    out.extend(
        (ctx.env
            .home_join(".config/github-copilot/sessions")
            .into_iter())
        .map(|p| Place::new(p, None)),
    );
    out
}

const HOME_VAR: &str = "COPILOT_HOME";

fn roots(ctx: &Context) -> Roots {
    let (homes, spec): (Vec<PathBuf>, Vec<PathBuf>) = match ctx.session_dir("copilot") {
        // The override replaces every default: taken as a Copilot home, or as its `session-state`.
        Some(d) => (vec![d.clone()], vec![d.join("sessions")]),
        None => {
            let home = ctx
                .env
                .path_var("COPILOT_HOME")
                .or_else(|| ctx.env.home_join(".copilot"));
            let spec = ctx.env.home_join(".config/github-copilot/sessions");
            (home.into_iter().collect(), spec.into_iter().collect())
        }
    };
    let state: Vec<PathBuf> = homes.iter().map(|h| h.join("session-state")).collect();
    let history: Vec<PathBuf> = homes
        .iter()
        .map(|h| h.join("history-session-state"))
        .collect();
    let mut dir_layout = state.clone();
    let mut flat = state;
    if ctx.session_dir("copilot").is_some() {
        dir_layout.extend(homes.iter().cloned());
        flat.extend(homes.iter().cloned());
    }
    flat.extend(history.iter().cloned());
    flat.extend(spec.iter().cloned());
    let mut docs = history;
    docs.extend(spec);
    Roots {
        dir_layout: existing_dirs(dir_layout),
        flat: existing_dirs(flat),
        docs: existing_dirs(docs),
    }
}

fn session_files(ctx: &Context) -> Vec<PathBuf> {
    let r = roots(ctx);
    let mut out = Vec::new();
    for d in &r.dir_layout {
        for s in subdirs(d) {
            let ev = s.join("events.jsonl");
            if stamp(&ev).is_some() {
                out.push(ev);
            }
        }
    }
    for d in &r.flat {
        out.extend(files_noted(ctx, d, |n| n.ends_with(".jsonl")));
    }
    for d in &r.docs {
        out.extend(files_noted(ctx, d, |n| n.ends_with(".json")));
    }
    out
}

/// The file of `id`: the paths the layouts give it, newest layout first, then (for files whose
/// name is not their session id) the head of every session file.
fn locate(ctx: &Context, id: &str) -> Option<PathBuf> {
    let r = roots(ctx);
    let direct = r
        .dir_layout
        .iter()
        .map(|d| d.join(id).join("events.jsonl"))
        .chain(r.flat.iter().map(|d| d.join(format!("{id}.jsonl"))))
        .chain(r.docs.iter().map(|d| d.join(format!("{id}.json"))));
    for p in direct {
        if stamp(&p).is_some() {
            return Some(p);
        }
    }
    session_files(ctx)
        .into_iter()
        .find(|p| head_session_id(p).as_deref() == Some(id))
}

fn head_session_id(path: &Path) -> Option<String> {
    if is_doc(path) {
        return head::first_string_field(path, "sessionId", 64 * 1024);
    }
    let first = head::first_record(path)?;
    if first.get("type")?.as_str()? != "session.start" {
        return None;
    }
    first
        .get("data")?
        .get("sessionId")?
        .as_str()
        .map(str::to_string)
}

/// File modification time: the last resort for dates.
pub(crate) fn mtime(path: &Path) -> Option<Timestamp> {
    let s = stamp(path)?;
    (s.mtime_ns > 0).then(|| Timestamp::from_timestamp_nanos(s.mtime_ns as i64))
}
