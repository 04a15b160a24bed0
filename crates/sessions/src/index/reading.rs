//! Reading a source the index found stale, through its agent, into what the writer stores: read
//! whole, or, for a database of many sessions the index read before, only the sessions whose
//! fingerprint changed (`agents::ManySessions`), the others kept as the index holds them.
use rusqlite::{params, Connection, OptionalExtension};
use rustc_hash::FxHashMap as HashMap;

use super::codec;
use super::postings::document::Texts;
use crate::agents::{Agent, Fingerprint, ManySessions, Source};
use crate::context::Context;
use crate::model::{Session, SessionSummary};
use crate::query::fields::FIELDS;
use crate::read::project::Projects;

/// Which part of a source a call needs up to date.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Part {
    /// Summaries, for `list` and `totalCost`.
    Summaries,
    /// Searchable documents, for `search`.
    Documents,
}

impl Part {
    pub(super) fn key_column(self) -> &'static str {
        match self {
            Part::Summaries => "list_key",
            Part::Documents => "search_key",
        }
    }

    pub(super) fn prints_column(self) -> &'static str {
        match self {
            Part::Summaries => "list_prints",
            Part::Documents => "search_prints",
        }
    }
}

pub fn path_bytes(p: &std::path::Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// One session ready to store, made where it is read (on every core) rather than by the one
/// thread that writes: its summary, exact field lengths and searchable texts.
pub(super) struct Doc {
    pub(super) session_id: String,
    pub(super) summary: Vec<u8>,
    pub(super) lengths: Vec<u8>,
    /// `None` for an agent searched by its own engine (`Agent::native_search`): the index
    /// holds its sessions for their touches only.
    pub(super) texts: Option<Texts>,
    pub(super) touches: super::touches::SessionTouches,
}

/// What reading one source gave, and the fingerprints of its sessions when its agent reads it
/// session by session (taken before its sessions were read).
pub(super) struct SourceRead {
    pub(super) content: Content,
    pub(super) prints: Option<Vec<(String, Fingerprint)>>,
}

impl SourceRead {
    /// Only the sessions `ids` of what was read (a kept copy's archived sessions).
    pub(super) fn only(mut self, ids: &std::collections::HashSet<String>) -> SourceRead {
        match &mut self.content {
            Content::Summaries(Ok(v)) => v.retain(|s| ids.contains(&s.session_id)),
            Content::Summaries(Err(_)) => {}
            Content::Documents { docs, kept } => {
                if let Some(docs) = docs {
                    docs.retain(|d| ids.contains(&d.session_id));
                }
                kept.retain(|id| ids.contains(id));
            }
        }
        self.prints = None;
        self
    }
}

/// The part of a source that was read.
pub(super) enum Content {
    /// Every session's summary, or why the source could not be read.
    Summaries(Result<Vec<SessionSummary>, String>),
    /// The documents of the sessions read (`None`: the source could not be read), and the ids
    /// of the sessions whose documents the index holds and which did not change.
    Documents {
        docs: Option<Vec<Doc>>,
        kept: Vec<String>,
    },
}

/// What the index kept of its earlier read of a source of many sessions: the fingerprints of its
/// sessions then, and for summaries the summaries read then.
pub(super) struct EarlierRead {
    prints: HashMap<String, Fingerprint>,
    summaries: HashMap<String, SessionSummary>,
}

impl EarlierRead {
    fn unchanged(&self, id: &str, now: Fingerprint) -> bool {
        self.prints.get(id) == Some(&now)
    }
}

/// What the index kept of its earlier read of `part` of `src`, when it kept fingerprints. One
/// that does not decode is as none: the source is read whole.
pub(super) fn earlier_read(
    tx: &Connection,
    a: &dyn Agent,
    src: &Source,
    part: Part,
) -> rusqlite::Result<Option<EarlierRead>> {
    // The summaries read then, for summaries only (a search does not read the blob).
    let summaries = match part {
        Part::Summaries => "summaries",
        Part::Documents => "NULL",
    };
    let sql = format!(
        "SELECT {}, {summaries} FROM source WHERE agent = ?1 AND path = ?2",
        part.prints_column()
    );
    let decoded = tx
        .query_row(&sql, params![a.name(), path_bytes(&src.path)], |r| {
            let Some(prints) = r.get_ref(0)?.as_blob_or_null()? else {
                return Ok(None);
            };
            let summaries = match (part, r.get_ref(1)?.as_blob_or_null()?) {
                (Part::Summaries, Some(b)) => codec::decode_summaries(b, true).ok(),
                _ => Some(Vec::new()),
            };
            Ok(codec::decode_fingerprints(prints).ok().zip(summaries))
        })
        .optional()?
        .flatten();
    Ok(decoded.map(|(prints, summaries)| EarlierRead {
        prints: prints.into_iter().collect(),
        summaries: summaries
            .into_iter()
            .map(|s| (s.session_id.clone(), s))
            .collect(),
    }))
}

/// Read `part` of `src`; `earlier`: what the index kept of its earlier read of it, when it kept
/// its sessions' fingerprints. Of a store read session by session, only the
/// sessions whose fingerprint changed are read.
pub(super) fn read_source(
    ctx: &Context,
    a: &dyn Agent,
    src: &Source,
    part: Part,
    earlier: Option<&EarlierRead>,
) -> SourceRead {
    let Some(m) = a.many_sessions() else {
        let content = read_whole(ctx, a, src, part);
        return SourceRead {
            content,
            prints: None,
        };
    };
    // Taken before the sessions are read: a session that changes in between is read again next
    // time, never stored as unchanged.
    let prints = match m.fingerprints(ctx, src) {
        Some(Ok(p)) if unique_ids(&p) => Some(p),
        _ => None,
    };
    let content = match (&prints, earlier) {
        (Some(p), Some(e)) if p.iter().any(|(id, f)| e.unchanged(id, *f)) => {
            read_changed(ctx, m, a, src, part, p, e)
        }
        _ => read_whole(ctx, a, src, part),
    };
    // What could not be read is read whole next time.
    let prints = match &content {
        Content::Summaries(Err(_)) | Content::Documents { docs: None, .. } => None,
        _ => prints,
    };
    SourceRead { content, prints }
}

/// Every id once: the index keeps one document per id of such a store.
fn unique_ids(prints: &[(String, Fingerprint)]) -> bool {
    let mut ids: Vec<&str> = prints.iter().map(|(id, _)| id.as_str()).collect();
    ids.sort_unstable();
    ids.windows(2).all(|w| w[0] != w[1])
}

fn read_whole(ctx: &Context, a: &dyn Agent, src: &Source, part: Part) -> Content {
    match part {
        Part::Summaries => {
            Content::Summaries((a.summaries(ctx, src).map(with_projects)).map_err(|e| e.message))
        }
        Part::Documents => Content::Documents {
            docs: (a.load_source(ctx, src).ok()).map(|sessions| docs(&sessions, a)),
            kept: Vec::new(),
        },
    }
}

/// The sessions whose fingerprint changed, read again; the others are as the index holds them.
/// Summaries come in the order of `prints` (the agent's own).
fn read_changed(
    ctx: &Context,
    m: &dyn ManySessions,
    a: &dyn Agent,
    src: &Source,
    part: Part,
    prints: &[(String, Fingerprint)],
    earlier: &EarlierRead,
) -> Content {
    let changed: Vec<&str> = prints
        .iter()
        .filter(|(id, f)| !earlier.unchanged(id, *f))
        .map(|(id, _)| id.as_str())
        .collect();
    let changed = changed.as_slice();
    match part {
        Part::Summaries => Content::Summaries(
            m.summaries_of(ctx, src, changed)
                .map(|fresh| {
                    let mut fresh: HashMap<String, SessionSummary> = with_projects(fresh)
                        .into_iter()
                        .map(|s| (s.session_id.clone(), s))
                        .collect();
                    prints
                        .iter()
                        .filter_map(|(id, f)| match earlier.unchanged(id, *f) {
                            true => earlier.summaries.get(id).cloned(),
                            false => fresh.remove(id),
                        })
                        .collect()
                })
                .map_err(|e| e.message),
        ),
        Part::Documents => match m.sessions_of(ctx, src, changed) {
            Ok(sessions) => Content::Documents {
                docs: Some(docs(&sessions, a)),
                kept: prints
                    .iter()
                    .filter(|(id, f)| earlier.unchanged(id, *f))
                    .map(|(id, _)| id.clone())
                    .collect(),
            },
            Err(_) => Content::Documents {
                docs: None,
                kept: Vec::new(),
            },
        },
    }
}

/// Summaries with the project their directory is in now, stored so that a session whose
/// directory is gone keeps it.
fn with_projects(mut v: Vec<SessionSummary>) -> Vec<SessionSummary> {
    Projects::default().fill(v.iter_mut());
    v
}

/// Sessions of `a` ready for the writer: searchable texts unless `a` has a search engine of its
/// own, and the files they touched.
fn docs(sessions: &[Session], a: &dyn Agent) -> Vec<Doc> {
    let (tools, searched) = (a.file_tools(), a.native_search().is_none());
    let mut projects = Projects::default();
    sessions
        .iter()
        .map(|s| {
            let texts = searched.then(|| Texts::of(s));
            let lengths = texts.as_ref().map_or([0; FIELDS], |t| t.lengths);
            let mut summary = std::borrow::Cow::Borrowed(&s.summary);
            if summary.project.is_none() && summary.cwd.is_some() {
                projects.fill([summary.to_mut()]);
            }
            Doc {
                session_id: s.summary.session_id.clone(),
                summary: codec::summary(&summary),
                lengths: codec::lengths(&lengths),
                texts,
                touches: super::touches::SessionTouches::of(tools, s),
            }
        })
        .collect()
}
