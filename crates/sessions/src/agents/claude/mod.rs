//! Claude Code: `<root>/projects/<cwd-slug>/<sessionId>.jsonl`, with subagent transcripts in
//! `<cwd-slug>/<sessionId>/subagents/agent-<agentId>.jsonl` that belong to the parent session.
//!
//! Roots, in order: every entry of a comma-separated `CLAUDE_CONFIG_DIR` (a value may already end in
//! `/projects`), `~/.claude`, `$XDG_CONFIG_HOME/claude` (`~/.config/claude`). The project directory
//! name is a lossy slug of the cwd, so it is never derived: directories are walked and the cwd is
//! read from the lines. Older layouts keep `agent-<id>.jsonl` sidechains beside the sessions or in a
//! project-level `subagents/` folder; those carry no link to a parent file we could follow without
//! reading them, so they are listed as sessions of their own (their messages marked as subagent).
use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::agents::adapter::{
    existing_dirs, Agent, FileTools, FormatVersion, Mode, Place, Retention, SearchSupport, Source,
    ToolKind, SESSION_DIRS,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ids::is_safe_native_id;
use crate::model::{Session, SessionSummary};
use crate::read::fs::{files, is_plain_file, list, read_capped, subdirs, Listing};
use crate::read::head::first_string_field;

mod parse;

pub struct Claude;

const NAME: &str = "claude";

impl Agent for Claude {
    fn name(&self) -> &'static str {
        NAME
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        Source::many(
            project_dirs(ctx)
                .iter()
                .flat_map(|d| session_files(ctx, d))
                .collect(),
        )
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        let parsed = parse::read(&source.path, &subagent_files(&source.path), Mode::Summary)?;
        Ok(vec![parsed.into_summary()])
    }

    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session> {
        let path =
            locate(ctx, session_id).ok_or_else(|| Error::session_not_found(NAME, session_id))?;
        load_path(&path, mode)
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        Ok(vec![load_path(&source.path, Mode::Messages)?])
    }

    fn search_support(&self) -> Option<&dyn SearchSupport> {
        Some(self)
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        places(ctx)
    }

    /// Of each place, its `projects` directory when it has one (`project_dirs` reads only that):
    /// the rest of `~/.claude` (to-do lists, shell snapshots, statistics) changes as Claude Code
    /// works.
    fn watched(&self, ctx: &Context) -> Vec<PathBuf> {
        (places(ctx).into_iter())
            .map(|p| match p.path.join("projects") {
                projects if projects.is_dir() => projects,
                _ => p.path,
            })
            .collect()
    }

    fn retention(&self, ctx: &Context) -> Option<Retention> {
        retention(ctx)
    }

    /// The release of Claude Code that wrote the first line carrying one.
    fn format_version(&self, _ctx: &Context, source: &Source) -> Option<FormatVersion> {
        let v = first_string_field(&source.path, "version", 64 << 10)?;
        Some(FormatVersion::release("version", v))
    }

    fn file_tools(&self) -> FileTools {
        &[
            ("Read", ToolKind::Read),
            ("Write", ToolKind::Write),
            ("Edit", ToolKind::Edit),
            ("MultiEdit", ToolKind::Edit),
            ("NotebookEdit", ToolKind::Edit),
            ("Bash", ToolKind::Shell),
        ]
    }
}

impl SearchSupport for Claude {
    fn load_for_search(
        &self,
        _ctx: &Context,
        source: &Source,
        needle_free: &dyn Fn(&str) -> bool,
    ) -> Option<Result<Vec<Session>>> {
        let path = &source.path;
        let parsed = parse::read_for_search(path, &subagent_files(path), needle_free);
        Some(parsed.map(|p| vec![p.into_session()]))
    }
}

fn load_path(path: &Path, mode: Mode) -> Result<Session> {
    Ok(parse::read(path, &subagent_files(path), mode)?.into_session())
}

/// Every root that may hold a `projects/` directory, in priority order.
fn roots(ctx: &Context) -> Vec<PathBuf> {
    places(ctx).into_iter().map(|p| p.path).collect()
}

/// `roots`, each with the variable that gave it.
fn places(ctx: &Context) -> Vec<Place> {
    if let Some(dir) = ctx.session_dir(NAME) {
        return vec![Place::new(dir, Some(SESSION_DIRS))];
    }
    let mut candidates = Vec::new();
    if let Some(list) = ctx.env.var(CONFIG_VAR) {
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let p = PathBuf::from(part);
            let p = match (part.strip_prefix("~/"), ctx.env.home()) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => p,
            };
            candidates.push(Place::new(p, Some(CONFIG_VAR)));
        }
    }
    candidates.extend(ctx.env.home_join(".claude").map(|p| Place::new(p, None)));
    match ctx.env.path_var("XDG_CONFIG_HOME") {
        Some(xdg) => candidates.push(Place::new(xdg.join("claude"), Some("XDG_CONFIG_HOME"))),
        None => {
            candidates.extend((ctx.env.home_join(".config/claude")).map(|p| Place::new(p, None)))
        }
    }
    candidates
}

const CONFIG_VAR: &str = "CLAUDE_CONFIG_DIR";

/// Claude Code's default `cleanupPeriodDays`.
const CLEANUP_DEFAULT_DAYS: f64 = 30.0;

/// `cleanupPeriodDays` of the user settings Claude Code reads: `settings.json` in the first
/// directory of `CLAUDE_CONFIG_DIR`, else in `~/.claude`.
fn retention(ctx: &Context) -> Option<Retention> {
    let dir = ctx
        .env
        .var(CONFIG_VAR)
        .and_then(|l| l.split(',').map(str::trim).find(|p| !p.is_empty()))
        .map(|first| match (first.strip_prefix("~/"), ctx.env.home()) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(first),
        })
        .or_else(|| ctx.env.home_join(".claude"))?;
    let file = dir.join("settings.json");
    let set = read_capped(&file, 1 << 20)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v.get("cleanupPeriodDays")?.as_f64())
        .filter(|d| *d >= 0.0);
    Some(Retention {
        setting: "cleanupPeriodDays",
        file,
        days: Some(set.unwrap_or(CLEANUP_DEFAULT_DAYS)),
        default: set.is_none(),
        effect: "Claude Code deletes the transcripts older than this when it starts",
    })
}

/// Directories that directly hold session files. A root's `projects/` holds one directory per
/// project; an override (or a root given as `…/projects`) may also hold session files itself.
fn project_dirs(ctx: &Context) -> Vec<PathBuf> {
    let overridden = ctx.session_dir(NAME).is_some();
    let mut tops = Vec::new();
    for root in roots(ctx) {
        if root.join("projects").is_dir() {
            tops.push(root.join("projects"));
        } else if overridden || root.file_name().is_some_and(|n| n == "projects") {
            tops.push(root);
        }
    }
    let mut out = Vec::new();
    for top in existing_dirs(tops) {
        for dir in subdirs(&top) {
            if !is_session_side_dir(&dir) {
                out.push(dir);
            }
        }
        out.push(top);
    }
    out
}

/// `<id>/` beside `<id>.jsonl` holds that session's subagents and spilled tool results.
fn is_session_side_dir(dir: &Path) -> bool {
    let mut file = dir.as_os_str().to_owned();
    file.push(".jsonl");
    is_plain_file(Path::new(&file))
}

/// Session files of one project directory with their subagent files: `*.jsonl` in it, plus the
/// legacy project-level `subagents/*.jsonl` (not the subagent journal, which is not a transcript).
/// One listing tells which sessions have an `<id>/` folder: the others cost no failed open.
fn session_files(ctx: &Context, dir: &Path) -> Vec<(PathBuf, Vec<PathBuf>)> {
    let Listing {
        files: jsonl, dirs, ..
    } = list(dir).files_named(|n| n.ends_with(".jsonl")).noted(ctx);
    let side_dirs: HashSet<&OsStr> = dirs.iter().filter_map(|d| d.file_name()).collect();
    let mut out: Vec<(PathBuf, Vec<PathBuf>)> = jsonl
        .into_iter()
        .map(|f| {
            let has_side = f.file_stem().is_some_and(|s| side_dirs.contains(s));
            let side = if has_side {
                subagent_files(&f)
            } else {
                Vec::new()
            };
            (f, side)
        })
        .collect();
    let legacy = dir.join("subagents");
    if side_dirs.contains(OsStr::new("subagents")) && !is_session_side_dir(&legacy) {
        out.extend(
            files(&legacy, |n| n.ends_with(".jsonl") && n != "journal.jsonl")
                .into_iter()
                .map(|f| (f, Vec::new())),
        );
    }
    out
}

/// Subagent transcripts of the session stored at `file`: `<id>/subagents/agent-*.jsonl`.
pub(crate) fn subagent_files(file: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(stem)) = (file.parent(), file.file_stem()) else {
        return Vec::new();
    };
    if parent.file_name().is_some_and(|n| n == "subagents") {
        return Vec::new(); // a subagent file itself has no subagents of its own here
    }
    files(&parent.join(stem).join("subagents"), |n| {
        n.starts_with("agent-") && n.ends_with(".jsonl")
    })
}

/// The file of session `id`, found by name (no other session is read).
fn locate(ctx: &Context, id: &str) -> Option<PathBuf> {
    if !is_safe_native_id(id) {
        return None;
    }
    let name = format!("{id}.jsonl");
    for dir in project_dirs(ctx) {
        for candidate in [dir.join(&name), dir.join("subagents").join(&name)] {
            if is_plain_file(&candidate) {
                return Some(candidate);
            }
        }
    }
    None
}
