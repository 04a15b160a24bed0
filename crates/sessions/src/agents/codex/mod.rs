//! Codex CLI: `<CODEX_HOME|~/.codex>/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl`, plus
//! `archived_sessions/` and zstd-compressed `.jsonl.zst` rollouts (when both a plain and a
//! compressed copy exist, the plain one is read, as Codex itself does). `CODEX_HOME` may list
//! several homes separated by commas. The spec's flat `~/.codex/sessions/<id>.jsonl` is covered by
//! the same walk.
//!
//! The session id is the uuid at the end of a rollout file name (what `codex resume` takes), or the
//! file stem for files not named like rollouts, so `get` finds a file by name alone.
use std::path::{Path, PathBuf};

use crate::agents::adapter::{
    existing_dirs, Agent, FileTools, FormatVersion, Mode, Place, SearchSupport, Source, ToolKind,
    SESSION_DIRS,
};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ids::is_safe_native_id;
use crate::model::{Session, SessionSummary};
use crate::query::fields::Field;
use crate::read::fs::{walk_files, without_shadowed};
use crate::read::head::first_string_field;

mod parse;

pub struct Codex;

const NAME: &str = "codex";
/// sessions/YYYY/MM/DD/file: three levels of date directories.
const DEPTH: usize = 4;

impl Agent for Codex {
    fn name(&self) -> &'static str {
        NAME
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        Source::many(
            rollout_files(ctx)
                .into_iter()
                .map(|p| (p, Vec::new()))
                .collect(),
        )
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        let id = session_id(&source.path);
        Ok(vec![
            parse::read(&source.path, &id, Mode::Summary)?.into_summary()
        ])
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        places(ctx)
    }

    /// The release of Codex that wrote the rollout (its `session_meta` line comes first); a
    /// compressed rollout is not opened for it.
    fn format_version(&self, _ctx: &Context, source: &Source) -> Option<FormatVersion> {
        if source.path.extension().is_some_and(|e| e == "zst") {
            return None;
        }
        let v = first_string_field(&source.path, "cli_version", 64 << 10)?;
        Some(FormatVersion::release("cli_version", v))
    }

    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session> {
        let not_found = || Error::session_not_found(NAME, session_id);
        if !is_safe_native_id(session_id) {
            return Err(not_found());
        }
        let path = rollout_files(ctx)
            .into_iter()
            .find(|p| self::session_id(p) == session_id)
            .ok_or_else(not_found)?;
        Ok(parse::read(&path, session_id, mode)?.into_session())
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        let id = session_id(&source.path);
        Ok(vec![
            parse::read(&source.path, &id, Mode::Messages)?.into_session()
        ])
    }

    fn search_support(&self) -> Option<&dyn SearchSupport> {
        Some(self)
    }

    fn file_tools(&self) -> FileTools {
        &[
            ("apply_patch", ToolKind::Patch),
            ("shell", ToolKind::Shell),
            ("shell_command", ToolKind::Shell),
            ("exec_command", ToolKind::Shell),
            ("local_shell", ToolKind::Shell),
            ("container.exec", ToolKind::Shell),
            ("exec", ToolKind::Script),
        ]
    }
}

impl SearchSupport for Codex {
    fn load_for_search(
        &self,
        _ctx: &Context,
        source: &Source,
        needle_free: &dyn Fn(&str) -> bool,
    ) -> Option<Result<Vec<Session>>> {
        let id = session_id(&source.path);
        let parsed = parse::read_for_search(&source.path, &id, needle_free);
        Some(parsed.map(|p| vec![p.into_session()]))
    }

    fn load_field(
        &self,
        _ctx: &Context,
        source: &Source,
        field: Field,
    ) -> Option<Result<Vec<Session>>> {
        if field != Field::Conversation {
            return None;
        }
        let id = session_id(&source.path);
        let parsed = parse::read_conversation(&source.path, &id);
        Some(parsed.map(|p| vec![p.into_session()]))
    }
}

fn homes(ctx: &Context) -> Vec<PathBuf> {
    places(ctx).into_iter().map(|p| p.path).collect()
}

/// `homes`, each with the variable that gave it.
fn places(ctx: &Context) -> Vec<Place> {
    if let Some(dir) = ctx.session_dir(NAME) {
        return vec![Place::new(dir, Some(SESSION_DIRS))];
    }
    match ctx.env.var(HOME_VAR) {
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| match (p.strip_prefix("~/"), ctx.env.home()) {
                (Some(rest), Some(home)) => home.join(rest),
                _ => PathBuf::from(p),
            })
            .map(|p| Place::new(p, Some(HOME_VAR)))
            .collect(),
        None => (ctx.env.home_join(".codex").into_iter())
            .map(|p| Place::new(p, None))
            .collect(),
    }
}

const HOME_VAR: &str = "CODEX_HOME";

/// Directories to walk: each home's `sessions/` then `archived_sessions/` (so a live copy wins
/// over an archived one with the same id); an override without them is walked itself.
fn store_dirs(ctx: &Context) -> Vec<PathBuf> {
    let overridden = ctx.session_dir(NAME).is_some();
    let mut dirs = Vec::new();
    for home in homes(ctx) {
        let sessions = home.join("sessions");
        let archived = home.join("archived_sessions");
        if sessions.is_dir() || archived.is_dir() {
            dirs.push(sessions);
            dirs.push(archived);
        } else if overridden || home.file_name().is_some_and(|n| n == "sessions") {
            dirs.push(home);
        }
    }
    existing_dirs(dirs)
}

fn is_rollout_name(name: &str) -> bool {
    name.ends_with(".jsonl") || name.ends_with(".jsonl.zst")
}

/// Every rollout file, the plain copy preferred where a `.zst` sits beside it.
fn rollout_files(ctx: &Context) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in store_dirs(ctx) {
        let found = walk_files(ctx, &dir, DEPTH, &is_rollout_name);
        // Compressed copies are rare: only they look for their plain name (compared as bytes,
        // which also holds for names that are not UTF-8).
        out.extend(without_shadowed(found, |p, all| {
            let bytes = p.as_os_str().as_encoded_bytes();
            bytes.strip_suffix(b".zst").is_some_and(|plain| {
                all.iter()
                    .any(|q| q.as_os_str().as_encoded_bytes() == plain)
            })
        }));
    }
    out
}

/// `rollout-2025-01-02T03-04-05-<uuid>.jsonl[.zst]` → `<uuid>`; other names → their stem.
pub(crate) fn session_id(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".zst").unwrap_or(&name);
    let stem = stem.strip_suffix(".jsonl").unwrap_or(stem);
    if stem.starts_with("rollout-") && stem.len() >= 36 + 8 {
        let tail = &stem[stem.len() - 36..];
        if is_uuid(tail) && stem.as_bytes()[stem.len() - 37] == b'-' {
            return tail.to_string();
        }
    }
    stem.to_string()
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_file_names() {
        let p =
            Path::new("/x/rollout-2026-08-20T11-16-43-01a01ee3-393c-7cb1-818e-268d8e2ae938.jsonl");
        assert_eq!(session_id(p), "01a01ee3-393c-7cb1-818e-268d8e2ae938");
        let z = Path::new(
            "/x/rollout-2026-08-20T11-16-43-01a01ee3-393c-7cb1-818e-268d8e2ae938.jsonl.zst",
        );
        assert_eq!(session_id(z), "01a01ee3-393c-7cb1-818e-268d8e2ae938");
        assert_eq!(session_id(Path::new("/x/abc.jsonl")), "abc");
        assert_eq!(
            session_id(Path::new("/x/rollout-short.jsonl")),
            "rollout-short"
        );
    }
}
