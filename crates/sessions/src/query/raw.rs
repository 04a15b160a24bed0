//! The prefilter as adapters of databases use it (`SearchSupport::load_matching`): they feed the raw text
//! of each session's rows and build only the sessions that may match. Sessions dropped here are
//! still counted, with the needles they held, in the corpus statistics that rank the others.
use std::cell::RefCell;
use std::path::Path;

use super::parse::Query;
use super::prefilter::{Mask, Prefilter};

pub struct RawFilter<'a> {
    pf: &'a Prefilter,
    q: &'a Query,
    dropped: RefCell<Vec<Mask>>,
}

impl<'a> RawFilter<'a> {
    pub fn new(pf: &'a Prefilter, q: &'a Query) -> RawFilter<'a> {
        RawFilter {
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
    pub fn complete(&self, mask: Mask) -> bool {
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
