//! OpenClaw sessions. Three layouts, all read:
//! - 2026.9+: one SQLite database per agent, `<state>/agents/<agentId>/agent/openclaw-agent.sqlite`
//!   (`db`);
//! - up to 2026.4: `<state>/agents/<agentId>/sessions/<sessionId>.jsonl` (Pi's tree format) with a
//!   `sessions.json` index beside it; `*.trajectory.jsonl` files there are runtime telemetry;
//! - the spec's layout, last: `<state>/sessions/<channel>/<sessionId>.json(l)`.
//!
//! State dirs are unioned (old sessions stay where an older version wrote them):
//! `OPENCLAW_STATE_DIR`, `CLAWDBOT_STATE_DIR`, `~/.openclaw`, `~/.clawdbot`, with `~` being
//! `OPENCLAW_HOME` when set. A `sessionDirs.openclaw` option names the one state dir to read.
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

use crate::agents::adapter::{
    existing_dirs, Agent, FileTools, Fingerprint, FormatVersion, ManySessions, Mode, Place,
    SearchSupport, Source, SESSION_DIRS,
};
use crate::agents::pi_family;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{ModelUsage, Session, SessionSummary, Tokens};
use crate::query::ByteFilter;
use crate::read::fs::{files_noted, read_capped, subdirs};
use crate::read::tree::TreeDoc;

mod db;

pub struct OpenClaw;

const DB_NAME: &str = "openclaw-agent.sqlite";
const INDEX_NAME: &str = "sessions.json";

fn is_transcript(name: &str) -> bool {
    name.ends_with(".jsonl") && !name.ends_with(".trajectory.jsonl")
}

fn is_spec_file(name: &str) -> bool {
    name.ends_with(".json") || name.ends_with(".jsonl")
}

fn state_dirs(ctx: &Context) -> Vec<PathBuf> {
    existing_dirs(places(ctx).into_iter().map(|p| p.path))
}

/// Every state directory `state_dirs` may read, with what chose it.
fn places(ctx: &Context) -> Vec<Place> {
    if let Some(d) = ctx.session_dir("openclaw") {
        return vec![Place::new(d, Some(SESSION_DIRS))];
    }
    let home_by = ctx.env.var("OPENCLAW_HOME").map(|_| "OPENCLAW_HOME");
    let home = ctx.env.path_var("OPENCLAW_HOME").or_else(|| ctx.env.home());
    let mut c: Vec<Place> = ["OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"]
        .iter()
        .filter_map(|v| Some(Place::new(ctx.env.path_var(v)?, Some(*v))))
        .collect();
    c.extend(
        home.iter()
            .flat_map(|h| [".openclaw", ".clawdbot"].map(|d| Place::new(h.join(d), home_by))),
    );
    c
}

/// `<state>/agents/<agentId>/sessions` directories.
fn transcript_dirs(states: &[PathBuf]) -> Vec<PathBuf> {
    states
        .iter()
        .flat_map(|s| subdirs(&s.join("agents")))
        .map(|a| a.join("sessions"))
        .filter(|d| d.is_dir())
        .collect()
}

fn databases(states: &[PathBuf]) -> Vec<PathBuf> {
    states
        .iter()
        .flat_map(|s| subdirs(&s.join("agents")))
        .map(|a| a.join("agent").join(DB_NAME))
        .filter(|p| crate::read::fs::is_plain_file(p))
        .collect()
}

fn spec_dirs(states: &[PathBuf]) -> Vec<PathBuf> {
    states
        .iter()
        .flat_map(|s| subdirs(&s.join("sessions")))
        .collect()
}

/// A legacy JSONL transcript, with `sessions.json` totals where compaction zeroed message usage.
pub fn read_transcript(path: &Path, want_raw: bool) -> Result<Session> {
    let built = pi_family::read_file("openclaw", path, want_raw)?;
    let mut session = built.session;
    if built.compacted {
        if let Some(entry) = index_entry(path, &session.summary.session_id) {
            apply_index_totals(&mut session.summary, &entry);
        }
    }
    Ok(session)
}

/// The `sessions.json` entry for a transcript: by `sessionId`, else by `sessionFile`.
fn index_entry(transcript: &Path, id: &str) -> Option<Value> {
    let index = transcript.parent()?.join(INDEX_NAME);
    let bytes = read_capped(&index, 64 << 20).ok()?;
    let v: Value = serde_json::from_slice(&bytes).ok()?;
    let name = transcript.file_name()?.to_str()?;
    v.as_object()?
        .values()
        .find(|e| {
            e.get("sessionId").and_then(Value::as_str) == Some(id)
                || e.get("sessionFile")
                    .and_then(Value::as_str)
                    .is_some_and(|f| f.ends_with(name))
        })
        .cloned()
}

/// OpenClaw zeroes the usage of assistant messages before the latest compaction, so summed
/// messages under-count; the index's totals (the last run's tokens) are then the better figure.
/// Used only when they exceed what the messages still show.
pub fn apply_index_totals(summary: &mut SessionSummary, entry: &Value) {
    let n = |k: &str| entry.get(k).and_then(Value::as_u64).unwrap_or(0);
    let tokens = Tokens {
        input: n("inputTokens"),
        output: n("outputTokens"),
        cache_read: n("cacheRead"),
        cache_write: n("cacheWrite"),
        reasoning: 0,
        ..Default::default()
    };
    let shown: u64 = summary.usage.iter().map(|u| u.tokens.total()).sum();
    if tokens.total() <= shown {
        return;
    }
    let model = entry
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| summary.model.clone())
        .unwrap_or_default();
    let cost = entry
        .get("estimatedCostUsd")
        .and_then(Value::as_f64)
        .filter(|c| *c > 0.0);
    summary.usage = vec![ModelUsage {
        model,
        tokens,
        native_cost_usd: cost,
        // session totals, not per-request figures: no request is known to be long, nor when
        ..Default::default()
    }];
}

/// The spec's layout: `sessions/<channel>/<id>.json`, one document per session
/// (`{id?, title?, createdAt?, messages: [{role, content, timestamp?, model?, usage?}]}`), or a
/// tree-format `.jsonl`. The channel is kept in `raw`.
fn read_spec_file(path: &Path, want_raw: bool) -> Result<Session> {
    if path.extension().is_some_and(|e| e == "jsonl") {
        return read_transcript(path, want_raw);
    }
    let bytes = read_capped(path, 256 << 20).map_err(|e| Error::parse(path.display(), e))?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| Error::parse(path.display(), e))?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let time = v.get("createdAt").or_else(|| v.get("timestamp")).cloned();
    let header = json!({
        "type": "session",
        "id": v.get("id").and_then(Value::as_str).unwrap_or(&stem),
        "timestamp": time.unwrap_or(Value::Null),
        "title": v.get("title").cloned().unwrap_or(Value::Null),
        "cwd": v.get("cwd").cloned().unwrap_or(Value::Null),
    });
    let messages = v
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::parse(path.display(), "no messages array"))?;
    let records = std::iter::once(header).chain(messages.iter().map(|m| {
        json!({"type": "message", "timestamp": m.get("timestamp").cloned().unwrap_or(Value::Null), "message": m})
    }));
    let doc = TreeDoc::from_records(records);
    let mut session = pi_family::build("openclaw", &doc, &stem, Default::default(), want_raw)
        .map_err(|why| Error::parse(path.display(), why))?
        .session;
    if let Some(Value::Object(r)) = session.raw.as_mut().and_then(|r| r.as_value_mut()) {
        let channel = path.parent().and_then(|p| p.file_name());
        r.insert(
            "channel".into(),
            json!(channel.map(|c| c.to_string_lossy().into_owned())),
        );
    }
    Ok(session)
}

enum Kind {
    Database,
    Transcript,
    Spec,
}

fn kind(path: &Path) -> Kind {
    if path.file_name().is_some_and(|n| n == DB_NAME) {
        Kind::Database
    } else if path.ancestors().nth(1).and_then(Path::file_name) == Some("sessions".as_ref())
        && path.ancestors().nth(3).and_then(Path::file_name) == Some("agents".as_ref())
    {
        Kind::Transcript
    } else {
        Kind::Spec
    }
}

impl Agent for OpenClaw {
    fn name(&self) -> &'static str {
        "openclaw"
    }

    fn sources(&self, ctx: &Context) -> Vec<Source> {
        let states = state_dirs(ctx);
        let mut out: Vec<Source> = databases(&states)
            .into_iter()
            .filter_map(Source::sqlite)
            .collect();
        for dir in transcript_dirs(&states) {
            let index = dir.join(INDEX_NAME);
            out.extend(
                files_noted(ctx, &dir, is_transcript)
                    .into_iter()
                    .filter_map(|p| Source::new(p, std::slice::from_ref(&index))),
            );
        }
        for dir in spec_dirs(&states) {
            out.extend(
                files_noted(ctx, &dir, is_spec_file)
                    .into_iter()
                    .filter_map(|p| Source::new(p, &[])),
            );
        }
        out
    }

    fn looked_at(&self, ctx: &Context) -> Vec<Place> {
        places(ctx)
    }

    /// A transcript's header `version` (Pi's format); a database declares none we read.
    fn format_version(&self, _ctx: &Context, source: &Source) -> Option<FormatVersion> {
        match kind(&source.path) {
            Kind::Transcript => pi_family::header_version(&source.path),
            _ => None,
        }
    }

    fn summaries(&self, _ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
        Ok(match kind(&source.path) {
            Kind::Database => db::summaries(&source.path)?,
            Kind::Transcript => vec![read_transcript(&source.path, false)?.summary],
            Kind::Spec => vec![read_spec_file(&source.path, false)?.summary],
        })
    }

    fn load(&self, ctx: &Context, session_id: &str, mode: Mode) -> Result<Session> {
        let states = state_dirs(ctx);
        let mut db_error = None;
        for db in databases(&states) {
            match db::load(&db, session_id, mode.raw()) {
                Ok(Some(s)) => return Ok(s),
                Ok(None) => {}
                Err(e) => db_error = Some(e),
            }
        }
        let dirs = transcript_dirs(&states);
        if let Some(p) = pi_family::find_file(ctx, &dirs, session_id, &is_transcript) {
            return read_transcript(&p, mode.raw());
        }
        let spec = spec_dirs(&states);
        for name in [format!("{session_id}.json"), format!("{session_id}.jsonl")] {
            if let Some(p) = spec.iter().map(|d| d.join(&name)).find(|p| p.is_file()) {
                return read_spec_file(&p, mode.raw());
            }
        }
        // Not found anywhere readable: a database that could not be read may hold it.
        Err(db_error.unwrap_or_else(|| Error::session_not_found(self.name(), session_id)))
    }

    fn load_source(&self, _ctx: &Context, source: &Source) -> Result<Vec<Session>> {
        Ok(match kind(&source.path) {
            Kind::Database => db::load_all(&source.path)?,
            Kind::Transcript => vec![read_transcript(&source.path, true)?],
            Kind::Spec => vec![read_spec_file(&source.path, true)?],
        })
    }

    fn search_support(&self) -> Option<&dyn SearchSupport> {
        Some(self)
    }

    fn many_sessions(&self) -> Option<&dyn ManySessions> {
        Some(self)
    }

    fn file_tools(&self) -> FileTools {
        crate::agents::pi_family::OPENCLAW_FILE_TOOLS
    }
}

/// A database is read session by session; a file is one session anyway.
impl ManySessions for OpenClaw {
    fn fingerprints(
        &self,
        _ctx: &Context,
        source: &Source,
    ) -> Option<Result<Vec<(String, Fingerprint)>>> {
        match kind(&source.path) {
            Kind::Database => Some(db::fingerprints(&source.path)),
            _ => None,
        }
    }

    fn summaries_of(
        &self,
        _ctx: &Context,
        source: &Source,
        ids: &[&str],
    ) -> Result<Vec<SessionSummary>> {
        let sessions = db::load_ids(&source.path, ids, false)?;
        Ok(sessions.into_iter().map(|s| s.summary).collect())
    }

    fn sessions_of(&self, _ctx: &Context, source: &Source, ids: &[&str]) -> Result<Vec<Session>> {
        db::load_ids(&source.path, ids, true)
    }
}

impl SearchSupport for OpenClaw {
    /// A database is searched session by session on its raw event text; files are left to the
    /// file engine.
    fn load_matching(
        &self,
        _ctx: &Context,
        source: &Source,
        filter: &ByteFilter,
    ) -> Option<Result<Vec<Session>>> {
        match kind(&source.path) {
            Kind::Database => Some(db::matching(&source.path, filter)),
            _ => None,
        }
    }
}
