//! Ranking, where both ways of finding hits end: the statistics of every session examined are
//! summed into the corpus statistics (`Corpus`), and each matching session is scored against
//! them, so the scan and the index rank alike.
use super::hits::{Hit, Pending, PendingSummary};
use super::score::{Corpus, Stats};
use crate::model::{SessionSummary, Timestamp};
use crate::query::Query;
use crate::storage::{At, Fault, StoredSummary};

/// Searched sources as ranking sees them, one or a run of them in scan order: how many documents
/// they count for in the corpus (`Corpus::documents_of`), and the statistics of their sessions that
/// were read, source after source, with the summaries of those that match.
pub struct Examined {
    pub documents: u64,
    pub read: Vec<ReadSession>,
}

impl Examined {
    /// One source that holds `sessions` sessions (0 when unread or unreadable), `read` of them.
    pub fn source(sessions: usize, read: Vec<ReadSession>) -> Examined {
        Examined {
            documents: Corpus::documents_of(sessions),
            read,
        }
    }
}

/// A session that was read (or whose statistics the index holds).
pub struct ReadSession {
    pub stats: Stats,
    /// The summary, when the session matches.
    pub hit: Option<Matched>,
    /// Set when the statistics lack the snippet: the session's key, to read it by.
    pub later: Option<u64>,
    /// Set when its side-by-side count was left for later (`stats.adjacent_tf` is 0 until
    /// then): where the index tells it.
    pub adjacent_at: Option<At>,
}

/// The summary of a matching session: read with it, or as the index stores it, made into a
/// summary only if the match may be returned.
pub enum Matched {
    /// Boxed, as in `Hit`.
    Read(Box<SessionSummary>),
    Stored(StoredSummary),
}

/// The session a match stands for (its unified id, as its agent and session id) and its
/// updated time: what ranking needs of its summary.
pub type Head<'a> = ((&'a str, &'a str), Timestamp);

impl Matched {
    /// Which session it is and when it was updated, read in place.
    pub fn head(&self) -> Result<Head<'_>, Fault> {
        match self {
            Matched::Read(s) => Ok(((&s.agent, &s.session_id), s.updated_at)),
            Matched::Stored(s) => {
                let h = s.head_ref()?;
                Ok(((h.agent, h.session_id), h.updated_at))
            }
        }
    }

    /// The summary, as deep as `depth` asks of a stored one.
    fn summary(self, depth: PendingSummary) -> Result<Box<SessionSummary>, Fault> {
        match (self, depth) {
            (Matched::Read(s), _) => Ok(s),
            (Matched::Stored(s), PendingSummary::Whole) => Ok(Box::new(s.whole()?)),
            (Matched::Stored(s), PendingSummary::Head) => Ok(Box::new(s.head()?)),
        }
    }
}

impl ReadSession {
    /// What ranking keeps of it when it matches.
    fn into_match(self) -> Option<Match> {
        let ReadSession {
            stats, hit, later, ..
        } = self;
        hit.map(|summary| (stats, summary, later))
    }

    /// A session analysed whole: nothing left for later.
    pub fn analysed(stats: Stats, hit: Option<Box<SessionSummary>>) -> ReadSession {
        ReadSession {
            stats,
            hit: hit.map(Matched::Read),
            later: None,
            adjacent_at: None,
        }
    }
}

/// Score the matching sessions of every searched source against statistics of them all (the
/// scan and the index both end here, so they rank alike). A stored summary is made as deep as
/// `depth` asks.
pub fn rank(
    q: &Query,
    examined: impl Iterator<Item = Examined>,
    depth: PendingSummary,
) -> Result<Vec<Hit>, Fault> {
    let mut corpus = Corpus::for_query(q);
    let mut matched = Vec::new();
    for e in examined {
        corpus.docs += e.documents;
        for r in e.read {
            corpus.add_session(q, &r.stats);
            matched.extend(r.into_match());
        }
    }
    scored(q, &corpus, matched.into_iter(), depth)
}

/// As `rank`, against `corpus`, the statistics of `examined` summed already (`Corpus::of`).
pub fn rank_in(
    q: &Query,
    corpus: &Corpus,
    examined: Vec<Examined>,
    depth: PendingSummary,
) -> Result<Vec<Hit>, Fault> {
    let matched = (examined.into_iter())
        .flat_map(|e| e.read)
        .filter_map(ReadSession::into_match);
    scored(q, corpus, matched, depth)
}

/// A matching session's statistics, summary and key to read it by later (`ReadSession::later`).
type Match = (Stats, Matched, Option<u64>);

/// The hits of the sessions `matched`, each scored against `corpus`.
fn scored(
    q: &Query,
    corpus: &Corpus,
    matched: impl Iterator<Item = Match>,
    depth: PendingSummary,
) -> Result<Vec<Hit>, Fault> {
    matched
        .map(|(st, matched, later)| {
            let mut summary = matched.summary(depth)?;
            summary.match_count = Some(st.match_count(q));
            summary.snippet = st.snippet.clone();
            let score = corpus.score(q, &st);
            let pending = later.map(|key| Pending { key });
            Ok(Hit {
                score,
                terms: st.terms(q),
                summary,
                pending,
            })
        })
        .collect()
}

/// The items of `v` at `order`'s positions (each at most once), in that order. Sorting
/// positions and moving each item once beats sorting the items themselves when they are large
/// (a summary is hundreds of bytes, and a word in every session makes thousands of results).
pub fn take_in_order<T>(v: Vec<T>, order: impl IntoIterator<Item = usize>) -> Vec<T> {
    let mut slots: Vec<Option<T>> = v.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|i| slots[i].take().expect("each position taken once"))
        .collect()
}
