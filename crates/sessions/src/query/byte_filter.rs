//! The prefilter as adapters of databases use it (`SearchSupport::load_matching`): they feed the raw text
//! of each session's rows and build only the sessions that may match. Sessions dropped here are
//! still counted, with the needles they held, in the corpus statistics that rank the others.
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use super::parse::Query;
use super::prefilter::{Mask, Prefilter};

pub struct ByteFilter<'a> {
    pf: &'a Prefilter,
    q: &'a Query,
    dropped: RefCell<Vec<Mask>>,
}

impl<'a> ByteFilter<'a> {
    pub fn new(pf: &'a Prefilter, q: &'a Query) -> ByteFilter<'a> {
        ByteFilter {
            pf,
            q,
            dropped: RefCell::new(Vec::new()),
        }
    }

    /// Needles in one raw value: JSON text or plain text (escapes are understood either way).
    pub fn scan(&self, bytes: &[u8]) -> Mask {
        self.pf.scan_bytes(bytes)
    }

    /// Needles in a side file whatever its format; a missing file holds none, an unreadable
    /// one is assumed to hold them all (never drop what cannot be read).
    pub fn scan_file(&self, path: &Path) -> Mask {
        match self.pf.scan_text_file(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(_) => self.pf.all(),
        }
    }

    /// Every needle seen: nothing more to learn from further rows.
    pub fn all_needles_seen(&self, mask: Mask) -> bool {
        mask == self.pf.all()
    }

    /// Should a session whose raw text held `mask` be built? A session that cannot match is
    /// recorded as dropped.
    pub fn keep(&self, mask: Mask) -> bool {
        let keep = self.pf.could_match(self.q, mask);
        if !keep {
            self.dropped.borrow_mut().push(mask);
        }
        keep
    }

    pub fn into_dropped(self) -> Vec<Mask> {
        self.dropped.into_inner()
    }
}

/// Per-session masks while a database's rows stream by in any order: what every adapter that
/// searches a database session by session (OpenCode, OpenClaw) keeps between rows.
pub struct SessionMasks<'f, 'a> {
    filter: &'f ByteFilter<'a>,
    masks: HashMap<String, Mask>,
}

impl<'f, 'a> SessionMasks<'f, 'a> {
    pub fn new(filter: &'f ByteFilter<'a>) -> Self {
        SessionMasks {
            filter,
            masks: HashMap::new(),
        }
    }

    /// A session of the store; rows of sessions never added are ignored.
    pub fn add(&mut self, id: String) {
        self.masks.entry(id).or_insert(0);
    }

    /// Is more text of `id` worth reading (a known session with needles still unseen)?
    pub fn wants(&self, id: &str) -> bool {
        self.masks
            .get(id)
            .is_some_and(|m| !self.filter.all_needles_seen(*m))
    }

    /// Adds the needles in one of `id`'s raw values.
    pub fn scan(&mut self, id: &str, bytes: &[u8]) {
        if self.wants(id) {
            let seen = self.filter.scan(bytes);
            if let Some(m) = self.masks.get_mut(id) {
                *m |= seen;
            }
        }
    }

    /// Should session `id` be built? (`ByteFilter::keep` on its mask.)
    pub fn keeps(&self, id: &str) -> bool {
        self.filter.keep(self.masks.get(id).copied().unwrap_or(0))
    }

    /// The sessions to build, by id in order.
    pub fn kept(self) -> Vec<String> {
        let mut ids: Vec<String> = self.masks.keys().cloned().collect();
        ids.sort_unstable();
        ids.retain(|id| self.keeps(id));
        ids
    }
}
