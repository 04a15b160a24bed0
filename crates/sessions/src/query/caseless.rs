//! ASCII-case-insensitive search for several needles at once, overlapping matches included.
//!
//! An automaton built case-insensitive can only skip ahead to the needles' first bytes in either
//! case, and `b`, `s` or `c` start a word every few bytes of English. Lowering the haystack's ASCII
//! letters into a scratch copy (a cheap, vectorised pass) lets a case-sensitive automaton search
//! it with memmem or rare-byte skipping. Offsets are the same in both copies.
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::cell::RefCell;

/// Lowered haystacks are searched in blocks this size, so the copy stays in cache.
const BLOCK: usize = 64 * 1024;

thread_local! {
    static LOWERED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

pub struct Caseless {
    search: Search,
    /// The longest needle in bytes: blocks overlap by one less, so no match is cut in two.
    longest: usize,
}

enum Search {
    /// One needle: memmem, stepping one byte past each match so overlapping ones are found
    /// (an automaton walks its states byte by byte around every match).
    One(Box<memchr::memmem::Finder<'static>>),
    /// Several: an automaton with rare-byte skipping.
    Many(AhoCorasick),
}

/// One match: which needle, and where it is in the haystack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub needle: usize,
    pub start: usize,
    pub end: usize,
}

impl Caseless {
    /// `None` when there is nothing to search for (no needle, or an empty one).
    pub fn new<S: AsRef<str>>(needles: &[S]) -> Option<Caseless> {
        let lowered: Vec<String> = needles
            .iter()
            .map(|n| n.as_ref().to_ascii_lowercase())
            .collect();
        if lowered.is_empty() || lowered.iter().any(String::is_empty) {
            return None;
        }
        let search = match lowered.as_slice() {
            [one] => Search::One(Box::new(
                memchr::memmem::Finder::new(one.as_bytes()).into_owned(),
            )),
            _ => Search::Many(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::Standard)
                    .build(&lowered)
                    .ok()?,
            ),
        };
        Some(Caseless {
            search,
            longest: lowered.iter().map(String::len).max().unwrap_or(0),
        })
    }

    /// Call `f` with every match in `hay` (in no promised order) until it returns `false`.
    pub fn each(&self, hay: &[u8], mut f: impl FnMut(Found) -> bool) {
        LOWERED.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.each_in(hay, &mut scratch, &mut f),
            // Re-entered from inside `f` (not done today): a scratch copy of its own.
            Err(_) => self.each_in(hay, &mut Vec::new(), &mut f),
        })
    }

    fn each_in(&self, hay: &[u8], scratch: &mut Vec<u8>, f: &mut impl FnMut(Found) -> bool) {
        let overlap = self.longest - 1;
        let mut start = 0;
        while start < hay.len() {
            let end = (start + BLOCK).min(hay.len());
            // The block plus the overlap: a match that starts in the block and runs past its
            // end is found here; one that starts in the overlap is left to the next block.
            let stop = (end + overlap).min(hay.len());
            scratch.clear();
            scratch.extend(hay[start..stop].iter().map(u8::to_ascii_lowercase));
            // Matches starting in the block, offsets in the haystack.
            let mut report = |needle: usize, s: usize, e: usize| {
                start + s >= end
                    || f(Found {
                        needle,
                        start: start + s,
                        end: start + e,
                    })
            };
            match &self.search {
                Search::One(finder) => {
                    let len = finder.needle().len();
                    let mut at = 0;
                    while let Some(p) = finder.find(&scratch[at..]) {
                        let s = at + p;
                        if !report(0, s, s + len) {
                            return;
                        }
                        at = s + 1;
                    }
                }
                Search::Many(ac) => {
                    for m in ac.find_overlapping_iter(scratch.as_slice()) {
                        if !report(m.pattern().as_usize(), m.start(), m.end()) {
                            return;
                        }
                    }
                }
            }
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every match, the slow way: each needle tried at each offset, case-insensitively.
    fn naive(needles: &[&str], hay: &[u8]) -> Vec<Found> {
        let mut out = Vec::new();
        for end in 1..=hay.len() {
            for (k, n) in needles.iter().enumerate() {
                let n = n.as_bytes();
                if n.len() <= end && hay[end - n.len()..end].eq_ignore_ascii_case(n) {
                    out.push(Found {
                        needle: k,
                        start: end - n.len(),
                        end,
                    });
                }
            }
        }
        out
    }

    fn all(c: &Caseless, hay: &[u8]) -> Vec<Found> {
        let mut v = Vec::new();
        c.each(hay, |m| {
            v.push(m);
            true
        });
        v.sort_by_key(|m| (m.end, m.needle));
        v
    }

    #[test]
    fn finds_every_case_and_overlap_across_block_edges() {
        let needles = ["borrow", "Row", "rowboat", "é"];
        let c = Caseless::new(&needles).expect("needles");
        // Needles straddling every block edge, in mixed case, overlapping one another.
        let mut hay = Vec::new();
        let mut i = 0u32;
        while hay.len() < 3 * BLOCK + 100 {
            hay.extend_from_slice(b"xx BoRRoWboat ");
            hay.extend(std::iter::repeat_n(b'.', (i % 7) as usize));
            hay.extend_from_slice("é ROWBOAT".as_bytes());
            i += 1;
        }
        let mut want = naive(&needles, &hay);
        want.sort_by_key(|m| (m.end, m.needle));
        assert!(want.len() > 1000);
        assert_eq!(all(&c, &hay), want);
    }

    #[test]
    fn one_needle_finds_every_case_and_overlap_across_block_edges() {
        for needle in ["aXa", "borrow", "b"] {
            let c = Caseless::new(&[needle]).expect("needle");
            let mut hay = Vec::new();
            let mut i = 0usize;
            while hay.len() < 2 * BLOCK + 100 {
                hay.extend_from_slice(b"AxAxaXA BoRRoW b");
                hay.extend(std::iter::repeat_n(b'.', i % 5));
                i += 1;
            }
            let mut want = naive(&[needle], &hay);
            want.sort_by_key(|m| (m.end, m.needle));
            assert!(want.len() > 1000, "{needle}");
            assert_eq!(all(&c, &hay), want, "{needle}");
        }
    }

    #[test]
    fn stops_when_told_and_rejects_empty_needles() {
        let c = Caseless::new(&["ab"]).expect("needle");
        let mut n = 0;
        c.each(b"ab AB aB Ab", |_| {
            n += 1;
            n < 2
        });
        assert_eq!(n, 2);
        assert!(Caseless::new::<&str>(&[]).is_none());
        assert!(Caseless::new(&["a", ""]).is_none());
    }
}
