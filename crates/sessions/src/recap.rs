//! The recap: what the agents did in a period, per project (a stand-up). The sessions active in
//! it (their titles, agents and cost, sub-agents folded into the session that started them) and
//! the files they edited with the lines changed, by project, the most recently active first.
use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::model::{to_iso, SessionSummary, Timestamp};
use crate::options::from_js;
use crate::read::project::{name_of, Wanted};
use crate::selection::cost_usd;

/// `recap`'s options (the names as the API spells them).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RecapOptions {
    /// Sessions active at or after this moment (their last activity); none: the last 24 hours.
    #[serde(deserialize_with = "from_js::moment")]
    pub since: Option<Timestamp>,
    /// Sessions active at or before this moment (their first activity).
    #[serde(deserialize_with = "from_js::moment")]
    pub until: Option<Timestamp>,
    pub agent: Option<String>,
    #[serde(deserialize_with = "from_js::project")]
    pub project: Option<Wanted>,
    /// How many of the sessions that edited a file each file names (the newest first); none:
    /// `SESSIONS_PER_FILE`. The others are counted, every one a `touched` of the file away.
    pub sessions_per_file: Option<usize>,
}

/// How many sessions a file of the recap names when not told.
pub const SESSIONS_PER_FILE: usize = 3;

/// What one file went through in the period: its edits and the lines they changed, where the
/// agents record them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileEdited {
    pub path: String,
    /// Edits and writes of it.
    pub edits: u64,
    pub added: u64,
    pub removed: u64,
    /// How many sessions edited it.
    pub session_count: u64,
    /// The first of them (unified ids), newest first: at most `RecapOptions::sessions_per_file`.
    pub sessions: Vec<String>,
}

/// One edit of a file by a session, as the recap counts it.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub path: String,
    pub at: Option<Timestamp>,
    pub added: u64,
    pub removed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecapSession {
    pub unified_id: String,
    pub agent: String,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Sub-agent sessions folded into this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRecap {
    /// The project's directory ('' for sessions that record none).
    pub project: String,
    /// Its directory's name.
    pub name: String,
    pub agents: Vec<String>,
    pub sessions: Vec<RecapSession>,
    pub files: Vec<FileEdited>,
    pub lines_added: u64,
    pub lines_removed: u64,
    pub total_usd: f64,
    pub last_active: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recap {
    pub since: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    pub projects: Vec<ProjectRecap>,
    pub session_count: u64,
    pub total_usd: f64,
}

/// The moment a recap starts from when none is given: a day before `now`.
pub fn default_since(now: Timestamp) -> Timestamp {
    now - chrono::Duration::hours(24)
}

/// Whether a summary was active in the period and passes the agent and project filters.
pub fn selected(s: &SessionSummary, opts: &RecapOptions, since: Timestamp) -> bool {
    s.updated_at >= since
        && opts.until.is_none_or(|u| s.created_at <= u)
        && opts.agent.as_ref().is_none_or(|a| &s.agent == a)
        && opts
            .project
            .as_ref()
            .is_none_or(|p| p.matches(s.project.as_deref()))
}

/// The recap of `sessions` (selected, priced, sub-agents folded in); `edits` gives the edits a
/// session made (those in the period are counted); each file names at most `per_file` of the
/// sessions that edited it.
pub fn build(
    sessions: Vec<SessionSummary>,
    since: Timestamp,
    until: Option<Timestamp>,
    per_file: usize,
    edits: &dyn Fn(&SessionSummary) -> Vec<Edit>,
) -> Recap {
    let mut by_project: BTreeMap<String, Vec<SessionSummary>> = BTreeMap::new();
    for s in sessions {
        let key = s
            .project
            .clone()
            .or_else(|| s.cwd.clone())
            .unwrap_or_default();
        by_project.entry(key).or_default().push(s);
    }
    let in_period =
        |at: Option<Timestamp>| at.is_none_or(|t| t >= since && until.is_none_or(|u| t <= u));
    let mut projects: Vec<ProjectRecap> = by_project
        .into_iter()
        .map(|(project, mut v)| {
            v.sort_by(|a, b| {
                b.updated_at
                    .cmp(&a.updated_at)
                    .then(a.unified_id.cmp(&b.unified_id))
            });
            // Each file with the last of `v` (by place) that edited it, counted once.
            let mut files: HashMap<String, (FileEdited, usize)> = HashMap::new();
            for (at, s) in v.iter().enumerate() {
                for e in edits(s).into_iter().filter(|e| in_period(e.at)) {
                    let (f, last) = files.entry(e.path).or_insert_with_key(|path| {
                        let f = FileEdited {
                            path: path.clone(),
                            ..Default::default()
                        };
                        (f, usize::MAX)
                    });
                    f.edits += 1;
                    f.added += e.added;
                    f.removed += e.removed;
                    if *last != at {
                        *last = at;
                        f.session_count += 1;
                        if f.sessions.len() < per_file {
                            f.sessions.push(s.unified_id.clone());
                        }
                    }
                }
            }
            let mut files: Vec<FileEdited> = files.into_values().map(|(f, _)| f).collect();
            files.sort_by(|a, b| {
                (b.added + b.removed)
                    .cmp(&(a.added + a.removed))
                    .then(b.edits.cmp(&a.edits))
                    .then(a.path.cmp(&b.path))
            });
            let mut agents: Vec<String> = v.iter().map(|s| s.agent.clone()).collect();
            agents.sort();
            agents.dedup();
            ProjectRecap {
                name: match project.is_empty() {
                    true => String::new(),
                    false => name_of(&project).to_string(),
                },
                project,
                agents,
                lines_added: files.iter().map(|f| f.added).sum(),
                lines_removed: files.iter().map(|f| f.removed).sum(),
                total_usd: v.iter().map(cost_usd).sum(),
                last_active: v.first().map(|s| to_iso(&s.updated_at)).unwrap_or_default(),
                sessions: v.iter().map(session).collect(),
                files,
            }
        })
        .collect();
    // The most recently active project first (ISO moments sort as they read).
    projects.sort_by(|a, b| {
        b.last_active
            .cmp(&a.last_active)
            .then(a.project.cmp(&b.project))
    });
    Recap {
        since: to_iso(&since),
        until: until.as_ref().map(to_iso),
        session_count: projects.iter().map(|p| p.sessions.len() as u64).sum(),
        total_usd: projects.iter().map(|p| p.total_usd).sum(),
        projects,
    }
}

fn session(s: &SessionSummary) -> RecapSession {
    RecapSession {
        unified_id: s.unified_id.clone(),
        agent: s.agent.clone(),
        title: s.title.clone(),
        created_at: to_iso(&s.created_at),
        updated_at: to_iso(&s.updated_at),
        cost_usd: s.cost.as_ref().map(|c| c.total_usd),
        children: s.children,
        git_branch: s.git_branch.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32) -> Timestamp {
        chrono::Utc.with_ymd_and_hms(2026, 11, 20, h, 0, 0).unwrap()
    }

    fn summary(agent: &str, id: &str, project: Option<&str>, updated: u32) -> SessionSummary {
        let mut s = SessionSummary::new(agent, id, at(updated), at(updated));
        s.project = project.map(str::to_string);
        s.title = format!("work {id}");
        s
    }

    fn three_sessions() -> Vec<SessionSummary> {
        vec![
            summary("claude", "a", Some("/src/api"), 9),
            summary("codex", "b", Some("/src/api"), 11),
            summary("claude", "c", Some("/src/web"), 10),
        ]
    }

    #[test]
    fn groups_by_project_newest_first_with_the_edits_of_the_period() {
        let v = three_sessions();
        let edits = |s: &SessionSummary| match s.session_id.as_str() {
            "a" => vec![
                Edit {
                    path: "/src/api/x.rs".into(),
                    at: Some(at(9)),
                    added: 3,
                    removed: 1,
                },
                // Before the period: not counted.
                Edit {
                    path: "/src/api/old.rs".into(),
                    at: Some(at(1)),
                    added: 50,
                    removed: 0,
                },
            ],
            "b" => vec![Edit {
                path: "/src/api/x.rs".into(),
                at: Some(at(11)),
                added: 2,
                removed: 0,
            }],
            _ => Vec::new(),
        };
        let r = build(v, at(8), None, SESSIONS_PER_FILE, &edits);
        let names: Vec<&str> = r.projects.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["api", "web"]);
        let api = &r.projects[0];
        assert_eq!(api.agents, ["claude", "codex"]);
        assert_eq!(api.sessions[0].unified_id, "codex:b");
        assert_eq!(api.files.len(), 1);
        let f = &api.files[0];
        assert_eq!((f.edits, f.added, f.removed), (2, 5, 1));
        // The sessions that edited it, newest first like the project's.
        assert_eq!(f.sessions, ["codex:b", "claude:a"]);
        assert_eq!(f.session_count, 2);
        // Named up to the number asked for, every one counted.
        let one = build(three_sessions(), at(8), None, 1, &edits);
        let f = &one.projects[0].files[0];
        assert_eq!(
            (f.session_count, f.sessions.as_slice()),
            (2, &["codex:b".to_string()][..])
        );
        assert_eq!((api.lines_added, api.lines_removed), (5, 1));
        assert_eq!(r.session_count, 3);
    }
}
