//! `doctor`: why an agent's sessions do or do not show up. For each agent, where it looked and
//! what chose each place, what it found, what it passed over and why, the format versions of its
//! newest sources, and its own retention setting; then the index. Every fact comes from the
//! agents through the trait and from the storage layer: one listing per agent, as a warm `list`.
use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::agents::{Agent, Source};
use crate::context::{Context, Note, SkipKind};
use crate::model::SessionSummary;
use crate::storage::Storage;

/// How many newest sources of an agent have their format version read: a version newer than
/// known appears in what the agent wrote last.
const VERSION_SAMPLE: usize = 8;
/// How many paths a kind of skip names.
const FIRST_PATHS: usize = 5;
/// How long before a retention limit a session counts as close to it.
const WARN_DAYS: f64 = 7.0;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub agents: Vec<AgentReport>,
    pub index: IndexReport,
    /// Everything passed over, across agents: non-zero means something was not read.
    pub skipped: usize,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentReport {
    pub agent: &'static str,
    pub places: Vec<PlaceReport>,
    /// Sources read (files or databases).
    pub stores: usize,
    pub sessions: usize,
    /// Bytes of the sources and their side files.
    pub bytes: u64,
    pub skipped: Vec<SkipGroup>,
    pub versions: Vec<VersionSeen>,
    pub retention: Option<RetentionReport>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaceReport {
    pub path: PathBuf,
    /// The variable (or `sessionDirs`) that chose it; `None`: the default under the home.
    pub chosen_by: Option<&'static str>,
    pub exists: bool,
}

/// The sources passed over for one reason.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkipGroup {
    pub kind: &'static str,
    pub count: usize,
    /// The first few, in path order.
    pub first: Vec<Skipped>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub path: PathBuf,
    pub detail: String,
}

/// A format version and how many of the sampled sources declare it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionSeen {
    pub field: &'static str,
    pub version: String,
    pub sources: usize,
    pub newer_than_known: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RetentionReport {
    pub setting: &'static str,
    pub file: PathBuf,
    pub days: Option<f64>,
    pub default: bool,
    pub effect: &'static str,
    /// Sessions last updated longer ago than `days`.
    pub older_than_limit: usize,
    /// Sessions within a week of it (`close_after_days` old or more, not yet over it).
    pub close_to_limit: usize,
    pub close_after_days: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexReport {
    /// `None`: the index is off.
    pub dir: Option<PathBuf>,
    pub bytes: u64,
    pub sources: u64,
    pub sessions: u64,
    pub stale: u64,
    /// When the last requested update finished (epoch milliseconds) and how long it took.
    pub last_update_ms: Option<u64>,
    pub last_update_took_ms: Option<u64>,
    /// Which stores the client learns the changes of from the OS.
    pub watch: crate::storage::WatchStatus,
}

/// The report for `agents`.
pub fn run(ctx: &Context, storage: &Storage, agents: &[&'static dyn Agent]) -> Report {
    let agents: Vec<AgentReport> = agents.iter().map(|a| agent(ctx, storage, *a)).collect();
    let status = storage.index_status(ctx);
    let last = storage.index_last_update(ctx);
    let index = IndexReport {
        dir: status.dir,
        bytes: status.bytes,
        sources: status.sources,
        sessions: status.sessions,
        stale: status.stale,
        last_update_ms: last.map(|l| l.finished_ms),
        last_update_took_ms: last.map(|l| l.took_ms),
        watch: status.watch,
    };
    let skipped = (agents.iter())
        .flat_map(|a| &a.skipped)
        .map(|g| g.count)
        .sum();
    Report {
        agents,
        index,
        skipped,
    }
}

fn agent(ctx: &Context, storage: &Storage, agent: &'static dyn Agent) -> AgentReport {
    let places = (agent.looked_at(ctx).into_iter())
        .map(|p| PlaceReport {
            exists: p.path.exists(),
            path: p.path,
            chosen_by: p.chosen_by,
        })
        .collect();
    // The sources as a listing finds them, with what the adapter passed over on the way.
    let (noting, notes) = ctx.noting();
    let sources = agent.sources(&noting);
    let mut noted = notes.taken();
    let (summaries, unread) = storage.summaries_and_skipped(ctx, agent);
    noted.extend(unread.into_iter().map(|(path, why)| Note {
        kind: kind_of(&why),
        path,
        detail: why,
    }));
    let versions = versions(ctx, agent, &sources, &mut noted);
    let retention = agent.retention(ctx).map(|r| {
        let (older, close, close_after) = ages(ctx, &summaries, r.days);
        RetentionReport {
            setting: r.setting,
            file: r.file,
            days: r.days,
            default: r.default,
            effect: r.effect,
            older_than_limit: older,
            close_to_limit: close,
            close_after_days: close_after,
        }
    });
    AgentReport {
        agent: agent.name(),
        places,
        stores: sources.len(),
        sessions: summaries.len(),
        bytes: (sources.iter())
            .flat_map(|s| &s.stamps)
            .map(|s| s.size)
            .sum(),
        skipped: grouped(noted),
        versions,
        retention,
    }
}

/// The format versions the newest sources declare; one newer than known is noted as a skip
/// (read as far as it is understood, but not all of it may be).
fn versions(
    ctx: &Context,
    agent: &dyn Agent,
    sources: &[Source],
    noted: &mut Vec<Note>,
) -> Vec<VersionSeen> {
    let mut newest: Vec<&Source> = sources.iter().collect();
    newest.sort_by_key(|s| std::cmp::Reverse(s.stamps.first().map(|s| s.mtime_ns)));
    newest.truncate(VERSION_SAMPLE);
    let mut seen: BTreeMap<(&'static str, String, bool), usize> = BTreeMap::new();
    for s in newest {
        let Some(v) = agent.format_version(ctx, s) else {
            continue;
        };
        if v.newer_than_known {
            noted.push(Note {
                path: s.path.clone(),
                kind: SkipKind::UnknownVersion,
                detail: format!(
                    "{} {} is newer than this reader knows; read as far as it is understood",
                    v.field, v.version
                ),
            });
        }
        *seen
            .entry((v.field, v.version, v.newer_than_known))
            .or_default() += 1;
    }
    seen.into_iter()
        .map(|((field, version, newer), n)| VersionSeen {
            field,
            version,
            sources: n,
            newer_than_known: newer,
        })
        .collect()
}

/// How many sessions are older than `days`, and how many are within a week of it (with the age
/// that window starts at).
fn ages(
    ctx: &Context,
    summaries: &[SessionSummary],
    days: Option<f64>,
) -> (usize, usize, Option<f64>) {
    let Some(days) = days.filter(|d| *d > 0.0) else {
        return (0, 0, None);
    };
    let now = ctx.env.now().unwrap_or_else(chrono::Utc::now);
    let ago = |d: f64| now - chrono::Duration::milliseconds((d * 86_400_000.0) as i64);
    let close_after = (days - WARN_DAYS).max(0.0);
    let (limit, close) = (ago(days), ago(close_after));
    let older = summaries.iter().filter(|s| s.updated_at < limit).count();
    let near = (summaries.iter())
        .filter(|s| s.updated_at >= limit && s.updated_at < close)
        .count();
    (older, near, Some(close_after))
}

/// Why a source could not be read, from the reason its read gave.
fn kind_of(why: &str) -> SkipKind {
    let w = why.to_ascii_lowercase();
    if w.contains("larger than") || w.contains("too large") {
        SkipKind::TooLarge
    } else if [
        "no such file",
        "permission denied",
        "is a directory",
        "unable to open",
        "cannot open",
        "not a regular file",
    ]
    .iter()
    .any(|s| w.contains(s))
    {
        SkipKind::Unreadable
    } else {
        SkipKind::NotUnderstood
    }
}

/// Notes by kind, each kind's paths in order, one note per path and kind.
fn grouped(mut noted: Vec<Note>) -> Vec<SkipGroup> {
    noted.sort_by(|a, b| (a.kind, &a.path).cmp(&(b.kind, &b.path)));
    noted.dedup_by(|a, b| a.kind == b.kind && a.path == b.path);
    let mut out: Vec<SkipGroup> = Vec::new();
    for n in noted {
        let kind = n.kind.as_str();
        if out.last().is_none_or(|g| g.kind != kind) {
            out.push(SkipGroup {
                kind,
                count: 0,
                first: Vec::new(),
            });
        }
        let g = out.last_mut().expect("pushed above");
        g.count += 1;
        if g.first.len() < FIRST_PATHS {
            g.first.push(Skipped {
                path: n.path,
                detail: n.detail,
            });
        }
    }
    out
}

/// For `client.keep.status()`: per agent with a retention setting, the sessions it will delete
/// (older than its limit, or within a week of it) that are not kept.
pub fn retention_at_risk(
    ctx: &Context,
    storage: &Storage,
    agents: &[&'static dyn Agent],
) -> Vec<crate::storage::kept::RetentionRisk> {
    let mut out = Vec::new();
    for a in agents {
        let Some(r) = a.retention(ctx) else {
            continue;
        };
        let kept = storage.kept_ids(ctx, a.name());
        let live: Vec<SessionSummary> = (storage.summaries(ctx, *a).into_iter())
            .filter(|s| !s.archived && !kept.contains(&s.session_id))
            .collect();
        let (older, near, _) = ages(ctx, &live, r.days);
        out.push(crate::storage::kept::RetentionRisk {
            agent: a.name(),
            days: r.days,
            at_risk: (older + near) as u64,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_sorted_into_kinds() {
        assert_eq!(
            kind_of("/a.json is larger than 536870912 bytes"),
            SkipKind::TooLarge
        );
        assert_eq!(
            kind_of("cannot read /a: Permission denied (os error 13)"),
            SkipKind::Unreadable
        );
        assert_eq!(
            kind_of("/a.jsonl: no session records (3 unreadable lines)"),
            SkipKind::NotUnderstood
        );
    }

    #[test]
    fn skips_are_grouped_by_kind_with_the_first_paths() {
        let note = |p: &str, kind| Note {
            path: PathBuf::from(p),
            kind,
            detail: "d".into(),
        };
        let mut notes: Vec<Note> = (0..7)
            .map(|i| note(&format!("/s/{i}.jsonl"), SkipKind::NotUnderstood))
            .collect();
        notes.push(note("/s/x", SkipKind::Unreadable));
        notes.push(note("/s/x", SkipKind::Unreadable));
        let g = grouped(notes);
        assert_eq!(g.len(), 2);
        assert_eq!(
            (g[0].kind, g[0].count, g[0].first.len()),
            ("unreadable", 1, 1)
        );
        assert_eq!(
            (g[1].kind, g[1].count, g[1].first.len()),
            ("not understood", 7, 5)
        );
        assert_eq!(g[1].first[0].path, PathBuf::from("/s/0.jsonl"));
    }
}
