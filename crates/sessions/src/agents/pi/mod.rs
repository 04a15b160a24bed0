//! Pi (`@mariozechner/pi-coding-agent`, now `@earendil-works/pi-coding-agent`) sessions:
//! `<sessions>/--<cwd>--/<ISO ts>_<uuid>.jsonl`, one id/parentId tree per file (versions 1–3).
//! The sessions directory is the agent's own choice, in its order: `PI_CODING_AGENT_SESSION_DIR`,
//! `sessionDir` in `<agent dir>/settings.json`, `<agent dir>/sessions`, where the agent dir is
//! `PI_CODING_AGENT_DIR` or `~/.pi/agent`. The spec's `sessions/<id>/*.jsonl` layout is the same
//! one-level walk.
use serde_json::Value;
use std::path::PathBuf;

use crate::agents::adapter::{
    existing_dirs, Agent, FileTools, FormatVersion, Mode, Place, Source, SESSION_DIRS,
};
use crate::agents::pi_family::{self, session_files};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Session, SessionSummary};
use crate::read::fs::read_capped;

pub struct Pi;

fn is_session_file(name: &str) -> bool {
    name.ends_with(".jsonl")
}

/// The sessions directory Pi itself would use (one; an override replaces the defaults).
fn roots(ctx: &Context) -> Vec<PathBuf> {
    existing_dirs(place(ctx).map(|p| p.path))
}

const SESSION_DIR_VAR: &str = "PI_CODING_AGENT_SESSION_DIR";
const AGENT_DIR_VAR: &str = "PI_CODING_AGENT_DIR";

/// `roots`' one directory, with what chose it.
fn place(ctx: &Context) -> Option<Place> {
    if let Some(d) = ctx.session_dir("pi") {
        return Some(Place::new(d, Some(SESSION_DIRS)));
    }
    if let Some(d) = ctx.env.path_var(SESSION_DIR_VAR) {
        return Some(Place::new(d, Some(SESSION_DIR_VAR)));
    }
    let by = ctx.env.var(AGENT_DIR_VAR).map(|_| AGENT_DIR_VAR);
    let agent_dir = ctx
        .env
        .path_var(AGENT_DIR_VAR)
        .or_else(|| ctx.env.home_join(".pi/agent"))?;
    let configured = read_capped(&agent_dir.join("settings.json"), 1 << 20)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.get("sessionDir")?.as_str().map(str::to_string))
        .filter(|s| !s.trim().is_empty())
        .and_then(|s| match s.strip_prefix("~/") {
            Some(rest) => ctx.env.home_join(rest),
            // Only absolute paths: what a relative one is relative to is not documented.
            None => Some(PathBuf::from(&s)).filter(|p| p.is_absolute()),
        });
    Some(match configured {
        Some(d) => Place::new(d, Some("sessionDir (settings.json)")),
        None => Place::new(agent_dir.join("sessions"), by),
    })
}

impl Agent for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        roots(ctx)
            .iter()
            .flat_map(|r| session_files(ctx, r, &is_session_file))
            .filter_map(|p| Source::new(p, &[]))
            .collect()
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        let built = pi_family::read_file(self.name(), &source.path, false)?;
        Ok(vec![built.session.summary])
    }

    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session> {
        let path = pi_family::find_file(ctx, &roots(ctx), session_id, &is_session_file)
            .ok_or_else(|| Error::session_not_found(self.name(), session_id))?;
        Ok(pi_family::read_file(self.name(), &path, mode.raw())?.session)
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        place(ctx).into_iter().collect()
    }

    fn format_version(&self, _ctx: &Context, source: &Source) -> Option<FormatVersion> {
        pi_family::header_version(&source.path)
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        Ok(vec![
            pi_family::read_file(self.name(), &source.path, false)?.session,
        ])
    }

    fn file_tools(&self) -> FileTools {
        crate::agents::pi_family::FILE_TOOLS
    }
}
