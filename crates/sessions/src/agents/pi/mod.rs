//! Pi (`@mariozechner/pi-coding-agent`, now `@earendil-works/pi-coding-agent`) sessions:
//! `<sessions>/--<cwd>--/<ISO ts>_<uuid>.jsonl`, one id/parentId tree per file (versions 1–3).
//! The sessions directory is the agent's own choice, in its order: `PI_CODING_AGENT_SESSION_DIR`,
//! `sessionDir` in `<agent dir>/settings.json`, `<agent dir>/sessions`, where the agent dir is
//! `PI_CODING_AGENT_DIR` or `~/.pi/agent`. The spec's `sessions/<id>/*.jsonl` layout is the same
//! one-level walk.
use serde_json::Value;
use std::path::PathBuf;

use crate::agents::adapter::{existing_dirs, Agent, Mode, Source};
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
    if let Some(d) = ctx.session_dir("pi") {
        return existing_dirs([d]);
    }
    if let Some(d) = ctx.env.path_var("PI_CODING_AGENT_SESSION_DIR") {
        return existing_dirs([d]);
    }
    let Some(agent_dir) = ctx
        .env
        .path_var("PI_CODING_AGENT_DIR")
        .or_else(|| ctx.env.home_join(".pi/agent"))
    else {
        return Vec::new();
    };
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
    existing_dirs([configured.unwrap_or_else(|| agent_dir.join("sessions"))])
}

impl Agent for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        roots(ctx)
            .iter()
            .flat_map(|r| session_files(r, &is_session_file))
            .filter_map(|p| Source::new(p, &[]))
            .collect()
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        let built = pi_family::read_file(self.name(), &source.path, false)?;
        Ok(vec![built.session.summary])
    }

    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session> {
        let path = pi_family::find_file(&roots(ctx), session_id, &is_session_file)
            .ok_or_else(|| Error::session_not_found(self.name(), session_id))?;
        Ok(pi_family::read_file(self.name(), &path, mode.raw())?.session)
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        Ok(vec![
            pi_family::read_file(self.name(), &source.path, false)?.session,
        ])
    }
}
