//! The corpus statistics a search ranks by, counted the same way by the scan and by the index.
//!
//! They depend only on the sessions' searchable text and on how many sessions each source holds,
//! never on the raw bytes a prefilter saw, so the index (which keeps text, not native bytes)
//! reaches the very same scores as a scan:
//! - documents: every source counts its sessions, at least one (a source the prefilter dropped
//!   unread counts one; so does an unreadable one);
//! - document frequencies and lengths: the sessions whose text holds what the query needs,
//!   ignoring its NOTs (a superset of the matches that the prefilter can never drop).
use super::rank::Examined;
use super::score::{Corpus, Stats};
use crate::query::Query;

impl Corpus {
    /// Empty statistics for `q`.
    pub fn for_query(q: &Query) -> Corpus {
        Corpus {
            df: vec![0; q.leaves.len()],
            ..Default::default()
        }
    }

    /// The statistics of every session `examined`, as `rank::rank` sums them.
    pub fn of(q: &Query, examined: &[Examined]) -> Corpus {
        let mut corpus = Corpus::for_query(q);
        for e in examined {
            corpus.docs += e.documents;
            for r in &e.read {
                corpus.add_session(q, &r.stats);
            }
        }
        corpus
    }

    /// The documents a searched source that holds `sessions` sessions (0 when unread or
    /// unreadable) counts for.
    pub fn documents_of(sessions: usize) -> u64 {
        sessions.max(1) as u64
    }

    /// One session's statistics (any session of a source that was read).
    pub fn add_session(&mut self, q: &Query, st: &Stats) {
        if !q.eval_ignoring_not(&|l| st.has(l)) {
            return;
        }
        self.measured += 1;
        for (total, n) in self.total_lengths.iter_mut().zip(st.lengths) {
            *total += n;
        }
        for (l, df) in self.df.iter_mut().enumerate() {
            *df += st.has(l) as u64;
        }
    }
}
