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

use crate::agents::adapter::{existing_dirs, Agent, Mode, SearchSupport, Source};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ids::is_safe_native_id;
use crate::model::{Session, SessionSummary};
use crate::read::fs::{files, is_plain_file, list, subdirs, Listing};

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
                .flat_map(|d| session_files(d))
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
    if let Some(dir) = ctx.session_dir(NAME) {
        return vec![dir];
    }
    let mut candidates = Vec::new();
    if let Some(list) = ctx.env.var("CLAUDE_CONFIG_DIR") {
        for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let p = PathBuf::from(part);
            let p = match (part.strip_prefix("~/"), ctx.env.home()) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => p,
            };
            candidates.push(p);
        }
    }
    candidates.extend(ctx.env.home_join(".claude"));
    match ctx.env.path_var("XDG_CONFIG_HOME") {
        Some(xdg) => candidates.push(xdg.join("claude")),
        None => candidates.extend(ctx.env.home_join(".config/claude")),
    }
    candidates
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
fn session_files(dir: &Path) -> Vec<(PathBuf, Vec<PathBuf>)> {
    let Listing { files: jsonl, dirs } = list(dir).files_named(|n| n.ends_with(".jsonl"));
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
