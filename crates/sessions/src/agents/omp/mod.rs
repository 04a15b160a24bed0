//! omp (Oh My Pi) sessions: Pi's tree format (v3 superset) in `<sessions>/<slug>/<ts>_<uuid>.jsonl`,
//! with a fixed-width title slot before the header, `model_usage` side calls, and subagent
//! transcripts in `<slug>/<ts>_<uuid>/<AgentName>.jsonl` (merged into their parent session, each
//! message tagged with the agent's name).
//!
//! Stores, all read (a session id is a UUIDv7, so stores never collide): the active profile's
//! (`OMP_PROFILE`), the default `~/.omp/agent/sessions`, every other profile's
//! `~/.omp/profiles/<name>/agent/sessions`, and the XDG variants `<data>/omp/sessions`,
//! `<data>/omp/profiles/<name>/sessions`. `PI_CODING_AGENT_*` are not applied: they are Pi's, and
//! following them would list Pi's sessions twice.
use std::path::{Path, PathBuf};

use crate::agents::adapter::{
    existing_dirs, Agent, FileTools, FormatVersion, Mode, Place, Source, SESSION_DIRS,
};
use crate::agents::pi_family::{self, session_files, Built};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{count_turns, merge_usage, Session, SessionSummary};
use crate::read::fs::{files, subdirs};

pub struct Omp;

fn is_session_file(name: &str) -> bool {
    name.ends_with(".jsonl")
}

fn roots(ctx: &Context) -> Vec<PathBuf> {
    existing_dirs(places(ctx).into_iter().map(|p| p.path))
}

/// Every directory `roots` may read, with what chose it.
fn places(ctx: &Context) -> Vec<Place> {
    if let Some(d) = ctx.session_dir("omp") {
        return vec![Place::new(d, Some(SESSION_DIRS))];
    }
    let mut c: Vec<Place> = Vec::new();
    let home = ctx.env.home_join(".omp");
    let data_by = ctx.env.var("XDG_DATA_HOME").map(|_| "XDG_DATA_HOME");
    let data = ctx
        .env
        .path_var("XDG_DATA_HOME")
        .or_else(|| ctx.env.home_join(".local/share"))
        .map(|d| d.join("omp"));
    if let Some(p) = ctx
        .env
        .var("OMP_PROFILE")
        .filter(|p| !p.contains(['/', '\\']))
    {
        let by = Some("OMP_PROFILE");
        c.extend(
            home.iter()
                .map(|h| Place::new(h.join("profiles").join(p).join("agent/sessions"), by)),
        );
        c.extend(
            data.iter()
                .map(|d| Place::new(d.join("profiles").join(p).join("sessions"), by)),
        );
    }
    c.extend(
        home.iter()
            .map(|h| Place::new(h.join("agent/sessions"), None)),
    );
    if let Some(h) = &home {
        c.extend(
            subdirs(&h.join("profiles"))
                .into_iter()
                .map(|p| Place::new(p.join("agent/sessions"), None)),
        );
    }
    c.extend(data.iter().map(|d| Place::new(d.join("sessions"), data_by)));
    if let Some(d) = &data {
        c.extend(
            subdirs(&d.join("profiles"))
                .into_iter()
                .map(|p| Place::new(p.join("sessions"), data_by)),
        );
    }
    c
}

/// Subagent transcripts of the session in `main`: `.jsonl` files in the sibling directory named
/// like the file without its extension.
fn subagent_files(main: &Path) -> Vec<PathBuf> {
    files(&main.with_extension(""), is_session_file)
}

/// The parent session with its subagents' messages merged in time order and their usage added.
fn read_with_subagents(main: &Path, want_raw: bool) -> Result<Session> {
    let Built { mut session, .. } = pi_family::read_file("omp", main, want_raw)?;
    let mut raws = serde_json::Map::new();
    for sub in subagent_files(main) {
        // A damaged subagent file must not hide the parent session.
        let Ok(Built { session: child, .. }) = pi_family::read_file("omp", &sub, want_raw) else {
            continue;
        };
        let name = sub
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        for u in &child.summary.usage {
            merge_usage(&mut session.summary.usage, u);
        }
        let s = &mut session.summary;
        s.updated_at = s.updated_at.max(child.summary.updated_at);
        session
            .messages
            .extend(child.messages.into_iter().map(|mut m| {
                m.subagent = Some(name.clone());
                m
            }));
        if let Some(r) = child.raw {
            raws.insert(name, r.to_value());
        }
    }
    if session.messages.iter().any(|m| m.subagent.is_some()) {
        // Stable by time; a message without a time keeps the time of the one before it.
        let mut last = None;
        let mut keyed: Vec<_> = std::mem::take(&mut session.messages)
            .into_iter()
            .map(|m| {
                last = m.timestamp.or(last);
                (last, m)
            })
            .collect();
        keyed.sort_by_key(|(t, _)| *t);
        session.messages = keyed.into_iter().map(|(_, m)| m).collect();
        let s = &mut session.summary;
        s.message_count = session.messages.len() as u64;
        // Turns are the user's: a subagent's task prompt is not one.
        s.turn_count = count_turns(
            session
                .messages
                .iter()
                .filter(|m| m.subagent.is_none())
                .map(|m| m.role),
        );
        if let Some(serde_json::Value::Object(r)) =
            session.raw.as_mut().and_then(|r| r.as_value_mut())
        {
            r.insert("subagents".into(), serde_json::Value::Object(raws));
        }
    }
    Ok(session)
}

impl Agent for Omp {
    fn name(&self) -> &'static str {
        "omp"
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        roots(ctx)
            .iter()
            .flat_map(|r| session_files(ctx, r, &is_session_file))
            .filter_map(|p| {
                let subs = subagent_files(&p);
                Source::new(p, &subs)
            })
            .collect()
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        Ok(vec![read_with_subagents(&source.path, false)?.summary])
    }

    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session> {
        let path = pi_family::find_file(ctx, &roots(ctx), session_id, &is_session_file)
            .ok_or_else(|| Error::session_not_found(self.name(), session_id))?;
        read_with_subagents(&path, mode.raw())
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        Ok(vec![read_with_subagents(&source.path, false)?])
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        places(ctx)
    }

    fn format_version(&self, _ctx: &Context, source: &Source) -> Option<FormatVersion> {
        pi_family::header_version(&source.path)
    }

    fn file_tools(&self) -> FileTools {
        crate::agents::pi_family::FILE_TOOLS
    }
}
