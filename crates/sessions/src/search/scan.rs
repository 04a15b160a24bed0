//! The file engine: every source of every file-based agent, in parallel. A source whose raw bytes
//! cannot match is dropped without parsing; the others are parsed by their adapter and matched.
use rayon::prelude::*;

use super::score::{analyse, Bonus, Corpus, Matcher, Stats};
use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::model::SessionSummary;
use crate::query::byte_filter::ByteFilter;
use crate::query::parse::Query;
use crate::query::prefilter::{Mask, Prefilter};
use crate::read::page_cache::install_for;

/// A matching session with its text score before normalisation and how many of the query's
/// terms it holds (`Stats::terms`).
pub struct FileHit {
    /// Boxed: a broad query's thousands of hits are moved several times on their way to the
    /// ranking, and a summary is most of a hit's size.
    pub summary: Box<SessionSummary>,
    pub score: f64,
    pub terms: usize,
    /// `None` when the hit is complete. Otherwise it was found from statistics alone (the
    /// index): its snippet is still to be made, and `score` leaves out the side-by-side bonus.
    pub pending: Option<Pending>,
}

/// What a hit found from statistics alone still needs: its session (by the engine's key) read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pending {
    pub key: u64,
    /// The side-by-side bonus left out of the score, and the most side-by-side occurrences the
    /// session can hold; `None` when there is none to add.
    pub bonus: Option<(Bonus, u32)>,
}

impl Pending {
    /// The most the bonus left out can add to the score.
    pub fn most(&self) -> f64 {
        self.bonus.map_or(0.0, |(b, most)| b.value(most))
    }
}

enum Outcome {
    /// Dropped by the prefilter unread.
    Dropped,
    /// Parsed: every parsed session's statistics and the summaries of those that match, and the
    /// needles of sessions a database adapter dropped without building them.
    Parsed(Vec<ReadSession>, Vec<Mask>),
    /// Unreadable: skipped, as list skips it.
    Failed,
}

/// Needles in a source's file and its side files (a Claude session's subagent transcripts, a
/// Copilot workspace file), which all feed its sessions; `None` when unreadable.
fn file_mask(src: &Source, pf: &Prefilter) -> Option<Mask> {
    let mut mask = pf.scan_file(&src.path).ok()?;
    for side in &src.side_files {
        if mask == pf.all() {
            break;
        }
        mask |= match pf.scan_text_file(side) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(_) => return None,
        };
    }
    Some(mask)
}

fn examine(ctx: &Context, a: &dyn Agent, src: &Source, m: &Matcher) -> Outcome {
    let (q, pf) = (m.query(), m.prefilter());
    let filter = ByteFilter::new(pf, q);
    let support = a.search_support();
    let sessions = match support.and_then(|s| s.load_matching(ctx, src, &filter)) {
        Some(Ok(v)) => v,
        Some(Err(_)) => return Outcome::Failed,
        None => {
            match file_mask(src, pf) {
                Some(mask) if !pf.could_match(q, mask) => return Outcome::Dropped,
                Some(_) => {}
                None => return Outcome::Failed,
            }
            let needle_free = |text: &str| m.needle_free(text);
            let read = support.and_then(|s| s.load_for_search(ctx, src, &needle_free));
            let Ok(v) = read.unwrap_or_else(|| a.load_source(ctx, src)) else {
                return Outcome::Failed;
            };
            v
        }
    };
    let v = sessions
        .into_iter()
        .map(|s| {
            let st = analyse(m, &s);
            let hit = st.matches(q).then(|| {
                let mut summary = Box::new(s.summary);
                summary.unified_id = crate::ids::unified_id(a.name(), &summary.session_id);
                summary
            });
            ReadSession::complete(st, hit)
        })
        .collect();
    Outcome::Parsed(v, filter.into_dropped())
}

/// Search the sources of `agents`.
pub fn scan(ctx: &Context, agents: &[&'static dyn Agent], q: &Query) -> Vec<FileHit> {
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    let mut work: Vec<(&'static dyn Agent, Source)> = agents
        .par_iter()
        .flat_map_iter(|&a| a.sources(ctx).into_iter().map(move |s| (a, s)))
        .collect();
    // Largest first: a huge session started last would keep one core busy after the rest end.
    work.sort_by_key(|(_, s)| std::cmp::Reverse(s.stamps.iter().map(|t| t.size).sum::<u64>()));
    let outcomes: Vec<Outcome> =
        install_for(work.iter().map(|(_, src)| src.path.as_path()), || {
            work.par_iter()
                .map(|(a, src)| examine(ctx, *a, src, &matcher))
                .collect()
        });
    let examined = outcomes.into_iter().map(|o| match o {
        Outcome::Dropped | Outcome::Failed => Examined {
            sessions: 0,
            read: Vec::new(),
        },
        Outcome::Parsed(read, dropped) => Examined {
            sessions: read.len() + dropped.len(),
            read,
        },
    });
    rank(q, examined)
}

/// One searched source as ranking sees it: how many sessions it holds, and the statistics of
/// those that were read, with the summaries of those that match.
pub struct Examined {
    pub sessions: usize,
    pub read: Vec<ReadSession>,
}

/// A session that was read (or whose statistics the index holds).
pub struct ReadSession {
    pub stats: Stats,
    /// The summary, when the session matches (boxed, as in `FileHit`).
    pub hit: Option<Box<SessionSummary>>,
    /// Set when the statistics lack the side-by-side count and the snippet: the session's key,
    /// and the most side-by-side occurrences it can hold.
    pub later: Option<(u64, u32)>,
}

impl ReadSession {
    pub fn complete(stats: Stats, hit: Option<Box<SessionSummary>>) -> ReadSession {
        ReadSession {
            stats,
            hit,
            later: None,
        }
    }
}

/// Score the matching sessions of every searched source against statistics of them all (the
/// scan and the index both end here, so they rank alike).
pub fn rank(q: &Query, examined: impl Iterator<Item = Examined>) -> Vec<FileHit> {
    let mut corpus = Corpus::for_query(q);
    let mut matched = Vec::new();
    for e in examined {
        corpus.add_source(e.sessions);
        for r in e.read {
            corpus.add_session(q, &r.stats);
            if let Some(summary) = r.hit {
                matched.push((r.stats, summary, r.later));
            }
        }
    }
    matched
        .into_iter()
        .map(|(st, mut summary, later)| {
            summary.match_count = Some(st.match_count(q));
            summary.snippet = st.snippet.clone();
            let (score, pending) = match later {
                None => (corpus.score(q, &st), None),
                Some((key, most)) => {
                    let (base, bonus) = corpus.score_parts(q, &st);
                    let bonus = bonus.filter(|_| most > 0).map(|b| (b, most));
                    (base, Some(Pending { key, bonus }))
                }
            };
            FileHit {
                score,
                terms: st.terms(q),
                summary,
                pending,
            }
        })
        .collect()
}
