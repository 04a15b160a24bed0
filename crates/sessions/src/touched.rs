//! Which sessions touched a file (`sessions.touched`): the sessions the storage layer finds
//! with a touch of a matching path, their touches filtered by action and time, newest first.
//! The sessions `file:` in a query names come from here too.
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

use crate::agents::Agent;
use crate::context::Context;
use crate::error::Result;
use crate::model::SessionSummary;
use crate::model::{Timestamp, Touch};
use crate::options::{OnlyDocs, SearchQuery, TouchedOptions};
use crate::query::files::FilePattern;
use crate::read::project::Projects;
use crate::storage::touched::{Cut, Read, SessionTouches, Touched};
use crate::storage::{CallSources, Storage};

/// A session that touched the file, as `touched` returns it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchedSession {
    pub unified_id: String,
    pub agent: String,
    pub session_id: String,
    pub title: String,
    #[serde(with = "iso")]
    pub updated_at: Timestamp,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    pub touches: Vec<TouchedFile>,
}

/// One touch, with the first line of the user's request that led to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TouchedFile {
    #[serde(flatten)]
    pub touch: Touch,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
}

mod iso {
    pub fn serialize<S: serde::Serializer>(
        t: &crate::model::Timestamp,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::model::to_iso(t))
    }
}

/// What a file named by a person matches: the pattern, and with `any_checkout` the same path
/// relative to its repository in any other checkout.
pub struct FileMatch {
    pattern: FilePattern,
    /// The pattern relative to its repository's root, under `**/`.
    elsewhere: Option<FilePattern>,
}

impl FileMatch {
    pub fn new(raw: &str, cwd: Option<&str>, any_checkout: bool) -> Result<FileMatch> {
        let pattern = FilePattern::new(raw, cwd)?;
        let elsewhere = match any_checkout {
            false => None,
            true => repository_relative(&pattern.text)
                .map(|rel| FilePattern::new(&format!("**/{rel}"), None))
                .transpose()?,
        };
        Ok(FileMatch { pattern, elsewhere })
    }

    /// The one path to look up, when there is one.
    pub fn exact(&self) -> Option<&str> {
        match self.elsewhere {
            Some(_) => None,
            None => self.pattern.exact(),
        }
    }

    pub fn matches(&self, path: &str) -> bool {
        self.pattern.matches(path)
            || self
                .elsewhere
                .as_ref()
                .is_some_and(|e| e.matches(path) && in_checkout(path))
    }
}

/// `path` relative to the root of the git checkout holding it (the nearest directory above it
/// with a `.git`, read from the file system, no git process).
fn repository_relative(path: &str) -> Option<String> {
    let p = Path::new(path);
    let root = p.ancestors().skip(1).find(|a| a.join(".git").exists())?;
    let rel = p
        .strip_prefix(root)
        .ok()?
        .to_string_lossy()
        .replace('\\', "/");
    (!rel.is_empty()).then_some(rel)
}

fn in_checkout(path: &str) -> bool {
    Path::new(path)
        .ancestors()
        .skip(1)
        .any(|a| a.join(".git").exists())
}

/// The sessions of `targets` that touched the file `path` (a path or a glob) names.
pub fn run(
    ctx: &Context,
    storage: &Storage,
    targets: &[&'static dyn Agent],
    path: &str,
    opts: &TouchedOptions,
) -> Result<Vec<TouchedSession>> {
    let m = FileMatch::new(path, ctx.env.cwd(), opts.any_checkout)?;
    let matches = |p: &str| m.matches(p);
    let listed = storage.listing(ctx, targets);
    // The index keeps only what is returned, unless a project is asked for (which its whole
    // summary tells).
    let keep = |t: &Touch, updated: Timestamp| {
        opts.action.is_none_or(|a| a == t.action)
            && opts
                .since
                .is_none_or(|since| t.at.unwrap_or(updated) >= since)
    };
    let cut = Cut {
        keep: &keep,
        limit: opts.limit,
    };
    let read = match opts.project {
        None => Read::Cut(&cut),
        Some(_) => Read::Whole,
    };
    let (mut found, _) = storage.touched(ctx, targets, &listed, m.exact(), &matches, read);
    if opts.project.is_some() {
        // Sessions read from their stores come without the project the index stores.
        Projects::default().fill(found.iter_mut().map(|t| &mut t.summary));
    }
    let mut out = sessions(found, opts);
    out.truncate(opts.limit);
    Ok(out)
}

/// The touches of one session, each with its request's line.
pub fn with_requests(t: &SessionTouches) -> Vec<TouchedFile> {
    let requests = request_lines(t);
    t.touches.iter().map(|x| file(x, &requests)).collect()
}

/// A session's request lines by their index.
fn request_lines(t: &SessionTouches) -> HashMap<u64, &String> {
    t.requests.iter().map(|(i, r)| (*i, r)).collect()
}

/// A touch with the line of the request that led to it.
fn file(x: &Touch, requests: &HashMap<u64, &String>) -> TouchedFile {
    TouchedFile {
        request: (x.request_index)
            .and_then(|i| requests.get(&i))
            .map(|r| r.to_string()),
        touch: x.clone(),
    }
}

/// One result per session (a session found in two sources gives its touches once), its
/// touches kept by `opts`, newest first.
fn sessions(found: Vec<Touched>, opts: &TouchedOptions) -> Vec<TouchedSession> {
    let mut by_id: HashMap<String, TouchedSession> = HashMap::new();
    for t in found {
        let s = &t.summary;
        if !(opts.project.as_ref()).is_none_or(|p| p.matches(s.project.as_deref())) {
            continue;
        }
        let requests = request_lines(&t.touches);
        let kept: Vec<TouchedFile> = (t.touches.touches.iter())
            .filter(|x| opts.action.is_none_or(|a| a == x.action))
            .filter(|x| {
                opts.since
                    .is_none_or(|since| x.at.unwrap_or(s.updated_at) >= since)
            })
            .map(|x| file(x, &requests))
            .collect();
        if kept.is_empty() {
            continue;
        }
        let unified_id = crate::ids::unified_id(&t.agent, &s.session_id);
        match by_id.get_mut(&unified_id) {
            Some(have) => {
                for k in kept {
                    if !have.touches.contains(&k) {
                        have.touches.push(k);
                    }
                }
                if s.updated_at > have.updated_at {
                    have.updated_at = s.updated_at;
                    have.title = s.title.clone();
                }
            }
            None => {
                let session = TouchedSession {
                    unified_id: unified_id.clone(),
                    agent: t.agent.clone(),
                    session_id: s.session_id.clone(),
                    title: s.title.clone(),
                    updated_at: s.updated_at,
                    cwd: s.cwd.clone(),
                    touches: kept,
                };
                by_id.insert(unified_id, session);
            }
        }
    }
    let mut out: Vec<TouchedSession> = by_id.into_values().collect();
    for s in &mut out {
        s.touches.sort_by(|a, b| {
            (a.touch.message_index, &a.touch.path).cmp(&(b.touch.message_index, &b.touch.path))
        });
    }
    out.sort_by(|a, b| {
        newest(b)
            .cmp(&newest(a))
            .then_with(|| a.unified_id.cmp(&b.unified_id))
    });
    out
}

/// When a session last touched the file: its latest touch's time, else its last update.
fn newest(s: &TouchedSession) -> Timestamp {
    s.touches
        .iter()
        .filter_map(|t| t.touch.at)
        .max()
        .unwrap_or(s.updated_at)
}

/// The sessions that touched a file matching each of the `file:` terms of a query: their
/// summaries, and their documents in the index when it answered every term from one generation.
pub struct Touching {
    pub sessions: Vec<SessionSummary>,
    pub docs: Option<OnlyDocs>,
}

/// The sessions of `targets` that touched a file matching each of `files` (the `file:` terms
/// of a query); `listed`: the call's sources. With `heads`, the summaries the index gives are
/// their heads (`SessionSummary::new`): enough to name the sessions a search may find.
pub fn sessions_touching(
    ctx: &Context,
    storage: &Storage,
    targets: &[&'static dyn Agent],
    files: &[String],
    listed: &CallSources,
    heads: bool,
) -> Result<Touching> {
    let read = match heads {
        true => Read::Heads,
        false => Read::Whole,
    };
    let mut kept: Option<HashMap<String, SessionSummary>> = None;
    // The documents of each term's sessions, while every term's are of one generation.
    let mut docs: Option<Option<OnlyDocs>> = None;
    for f in files {
        let m = FileMatch::new(f, ctx.env.cwd(), false)?;
        let matches = |p: &str| m.matches(p);
        let mut these: HashMap<String, SessionSummary> = HashMap::new();
        let (found, generation) = storage.touched(ctx, targets, listed, m.exact(), &matches, read);
        let term_docs = generation.map(|generation| OnlyDocs {
            generation,
            docs: found.iter().filter_map(|t| t.doc).collect(),
        });
        docs = Some(match (docs, term_docs) {
            (None, d) => d,
            (Some(Some(mut have)), Some(d)) if have.generation == d.generation => {
                have.docs.retain(|id| d.docs.contains(id));
                Some(have)
            }
            _ => None,
        });
        for t in found {
            let id = crate::ids::unified_id(&t.agent, &t.summary.session_id);
            match these.get(&id) {
                Some(have) if have.updated_at >= t.summary.updated_at => {}
                _ => {
                    let mut s = t.summary;
                    s.unified_id = id.clone();
                    these.insert(id, s);
                }
            }
        }
        kept = Some(match kept {
            None => these,
            Some(mut k) => {
                k.retain(|id, _| these.contains_key(id));
                k
            }
        });
    }
    Ok(Touching {
        sessions: kept.map(|k| k.into_values().collect()).unwrap_or_default(),
        docs: docs.flatten(),
    })
}

/// Sessions found by `file:` alone, as a search returns them: filtered as the query says,
/// newest first, cut to its limit.
pub fn as_results(mut v: Vec<SessionSummary>, q: &SearchQuery) -> Vec<SessionSummary> {
    v.retain(|s| crate::selection::matches(s, &q.filters));
    v.sort_by(|a, b| (b.updated_at, &a.unified_id).cmp(&(a.updated_at, &b.unified_id)));
    v.truncate(q.limit);
    crate::storage::without_requests(v)
}
