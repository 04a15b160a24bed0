//! The two ways of finding the hits of the agents without a search engine of their own, behind
//! one trait: the scan reads the agents' sources (`scan::Scan`), the index looks up the sessions
//! that hold the query's terms (`indexed::Indexed`). Both end in the same ranking (`rank`), so
//! they find the same hits with the same scores.
use crate::model::SessionSummary;
use crate::query::Query;
use crate::storage::Fault;

/// One way of finding hits.
pub trait HitSource {
    /// Every matching session, scored against the statistics of every session searched. A hit
    /// may be left pending (`Hit::pending`), its summary as deep as `summary` asks. `beside`:
    /// the results found otherwise (by agents' own engines), which the ranking scales with
    /// these; a source that returns only the matches a cut can return needs them.
    fn hits(
        &self,
        q: &Query,
        summary: PendingSummary,
        beside: &[Beside],
    ) -> Result<Vec<Hit>, Fault>;

    /// The pending hits with these keys completed, in order.
    fn complete_pending(&self, q: &Query, keys: &[u64]) -> Result<Vec<CompletedHit>, Fault>;
}

/// A result found beside a `HitSource`, as the ranking's scale takes it: how many of the
/// query's terms it holds, and its text score times its recency.
pub type Beside = (usize, f64);

/// A matching session with its text score before normalisation and how many of the query's
/// terms it holds (`Stats::terms`).
pub struct Hit {
    /// Boxed: a broad query's thousands of hits are moved several times on their way to the
    /// ranking, and a summary is most of a hit's size.
    pub summary: Box<SessionSummary>,
    pub score: f64,
    pub terms: usize,
    /// `None` when the hit is complete. Otherwise it was found from the index's counts alone:
    /// its snippet is still to be made from its session read again.
    pub pending: Option<Pending>,
}

/// What a hit found from counts alone still needs: its session (by the source's key) read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pending {
    pub key: u64,
}

/// What the summary of a hit left pending holds until the hit is completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingSummary {
    Whole,
    /// Its ids and dates only (`SessionSummary::new`): enough to rank it when nothing before
    /// the cut looks further (`selection::looks_past_dates`, no early pricing).
    Head,
}

/// A pending hit completed: the snippet, and the whole summary.
pub struct CompletedHit {
    pub snippet: Option<String>,
    pub summary: SessionSummary,
}
