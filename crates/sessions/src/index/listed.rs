//! The summaries a client last listed from the index, per source, kept while the source's path
//! and stamps are unchanged: the next listing of a store where few files changed decodes only
//! theirs, instead of reading and decoding every stored summary again. What the index holds for
//! a source is read from the source at those stamps, so a kept copy is what a new read would give.
use rustc_hash::FxHashMap as HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use crate::model::SessionSummary;
use crate::read::fs::Stamp;

/// One source's summaries as decoded from the index (without `requests`).
pub struct Kept {
    pub path: PathBuf,
    pub stamps: Vec<Stamp>,
    pub summaries: Arc<Vec<SessionSummary>>,
}

/// Per agent listed before, the kept sources by their id in the index (none while a listing
/// has them out). The id only finds an entry: the path and stamps are compared (another cache
/// directory, or an id reused after a source was gone).
#[derive(Default)]
pub struct Listed {
    agents: Mutex<HashMap<&'static str, Option<HashMap<i64, Kept>>>>,
}

impl Listed {
    /// What was kept of `agent`, taken out: the caller puts back what it lists now (`put`), so
    /// sources that are gone are forgotten. `None` at the client's first listing of `agent`,
    /// which keeps nothing: a process that lists once (a command) would pay for a copy it never
    /// uses. Two calls at once for one agent: the second finds nothing kept and decodes
    /// everything.
    pub fn take(&self, agent: &'static str) -> Option<HashMap<i64, Kept>> {
        let mut agents = self.agents.lock().unwrap_or_else(PoisonError::into_inner);
        match agents.get_mut(agent) {
            Some(kept) => Some(kept.take().unwrap_or_default()),
            None => {
                agents.insert(agent, None);
                None
            }
        }
    }

    pub fn put(&self, agent: &'static str, kept: HashMap<i64, Kept>) {
        let mut agents = self.agents.lock().unwrap_or_else(PoisonError::into_inner);
        agents.insert(agent, Some(kept));
    }
}
