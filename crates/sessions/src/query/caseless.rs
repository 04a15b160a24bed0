//! ASCII-case-insensitive search for several needles at once, overlapping matches included.
//!
//! An automaton built case-insensitive can only skip ahead to the needles' first bytes in either
//! case, and `b`, `s` or `c` start a word every few bytes of English. Lowering the haystack's ASCII
//! letters into a scratch copy (a cheap, vectorised pass) lets it be searched case-sensitively:
//! a few needles each with memmem, more with an automaton's rare-byte skipping. Offsets are the
//! same in both copies.
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::cell::RefCell;

/// Lowered haystacks are searched in blocks this size, so the copy stays in cache.
const BLOCK: usize = 64 * 1024;

/// Up to this many needles, `present` and `each` look for each on its own: a vectorised memmem
/// per needle over a block in cache beats an automaton whose skipping stops at every `k` or `p`
/// of English text (or, for `error` and `function`, at every `e` and `f`), and `present` stops
/// at each needle's first match, not at every match.
const ONE_BY_ONE: usize = 8;

thread_local! {
    static LOWERED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

pub struct Caseless {
    search: Search,
    /// Each needle on its own, for `present` and `each` (up to `ONE_BY_ONE` of them).
    each_needle: Vec<memchr::memmem::Finder<'static>>,
    /// The bits of every needle `present` tells apart.
    all: u64,
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
        let each_needle = match lowered.len() <= ONE_BY_ONE {
            true => lowered
                .iter()
                .map(|n| memchr::memmem::Finder::new(n.as_bytes()).into_owned())
                .collect(),
            false => Vec::new(),
        };
        Some(Caseless {
            search,
            each_needle,
            all: u64::MAX >> 64usize.saturating_sub(lowered.len()),
            longest: lowered.iter().map(String::len).max().unwrap_or(0),
        })
    }

    /// `found` with the bit of every needle present in `hay` added (needle `k` is bit `k`; at
    /// most 64 needles are told apart).
    pub fn present(&self, hay: &[u8], mut found: u64) -> u64 {
        let all = self.all;
        if self.each_needle.is_empty() {
            self.each(hay, |m| {
                found |= 1u64.checked_shl(m.needle as u32).unwrap_or(0);
                found & all != all
            });
            return found;
        }
        if found & all == all {
            return found;
        }
        // A match may start in a block's overlap: it is in the haystack all the same.
        self.blocks(hay, |_, _, lowered| {
            for (k, finder) in self.each_needle.iter().enumerate() {
                if found & (1 << k) == 0 && finder.find(lowered).is_some() {
                    found |= 1 << k;
                }
            }
            found & all != all
        });
        found
    }

    /// Call `f` with every match in `hay` (in no promised order) until it returns `false`.
    pub fn each(&self, hay: &[u8], mut f: impl FnMut(Found) -> bool) {
        self.blocks(hay, |start, end, lowered| {
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
                    while let Some(p) = finder.find(&lowered[at..]) {
                        let s = at + p;
                        if !report(0, s, s + len) {
                            return false;
                        }
                        at = s + 1;
                    }
                }
                // Each needle in turn (matches come in no promised order), stepping one byte
                // past each match as `One` does.
                Search::Many(_) if !self.each_needle.is_empty() => {
                    for (k, finder) in self.each_needle.iter().enumerate() {
                        let len = finder.needle().len();
                        let mut at = 0;
                        while let Some(p) = finder.find(&lowered[at..]) {
                            let s = at + p;
                            if !report(k, s, s + len) {
                                return false;
                            }
                            at = s + 1;
                        }
                    }
                }
                Search::Many(ac) => {
                    for m in ac.find_overlapping_iter(lowered) {
                        if !report(m.pattern().as_usize(), m.start(), m.end()) {
                            return false;
                        }
                    }
                }
            }
            true
        })
    }

    /// Call `f` with each block of `hay` lowered, until it returns `false`: where the block
    /// starts and ends in `hay`, and its lowered bytes with the overlap after it (a match that
    /// starts in the block and runs past its end is whole there).
    fn blocks(&self, hay: &[u8], mut f: impl FnMut(usize, usize, &[u8]) -> bool) {
        LOWERED.with(|cell| {
            // Re-entered from inside `f` (not done today): a scratch copy of its own.
            let mut own = Vec::new();
            let mut borrowed = cell.try_borrow_mut();
            let scratch = match borrowed.as_deref_mut() {
                Ok(s) => s,
                Err(_) => &mut own,
            };
            let overlap = self.longest - 1;
            let mut start = 0;
            while start < hay.len() {
                let end = (start + BLOCK).min(hay.len());
                let stop = (end + overlap).min(hay.len());
                scratch.clear();
                scratch.extend(hay[start..stop].iter().map(u8::to_ascii_lowercase));
                if !f(start, end, scratch) {
                    return;
                }
                start = end;
            }
        })
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

    /// A few needles are looked for one by one, more by the automaton: both find the same.
    #[test]
    fn finds_every_case_and_overlap_across_block_edges() {
        let fillers: Vec<String> = (0..ONE_BY_ONE).map(|i| format!("q{i}z")).collect();
        let few = ["borrow", "Row", "rowboat", "é", "oo"];
        let many: Vec<&str> = (few.iter().copied())
            .chain(fillers.iter().map(String::as_str))
            .collect();
        for needles in [&few[..], &many[..]] {
            let c = Caseless::new(needles).expect("needles");
            assert_eq!(c.each_needle.is_empty(), needles.len() > ONE_BY_ONE);
            // Needles straddling every block edge, in mixed case, overlapping one another and
            // themselves.
            let mut hay = Vec::new();
            let mut i = 0u32;
            while hay.len() < 3 * BLOCK + 100 {
                hay.extend_from_slice(b"xx BoRRoWboat ");
                hay.extend(std::iter::repeat_n(b'.', (i % 7) as usize));
                hay.extend_from_slice("é ROWBOAT Q1Z oOo".as_bytes());
                i += 1;
            }
            let mut want = naive(needles, &hay);
            want.sort_by_key(|m| (m.end, m.needle));
            assert!(want.len() > 1000);
            assert_eq!(all(&c, &hay), want, "{} needles", needles.len());
        }
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
    fn present_tells_which_needles_occur_in_any_case_across_block_edges() {
        let naive_mask = |needles: &[&str], hay: &[u8]| {
            naive(needles, hay)
                .iter()
                .fold(0u64, |m, f| m | 1 << f.needle)
        };
        let many: Vec<String> = (0..ONE_BY_ONE + 2).map(|i| format!("w{i}x")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        for needles in [&["docker", "Compose", "é"][..], &["ab"][..], &many[..]] {
            let c = Caseless::new(needles).expect("needles");
            let mut hay = vec![b'.'; 2 * BLOCK + 50];
            assert_eq!(c.present(&hay, 0), 0);
            // A needle across the first block's edge, one in the last bytes, another twice.
            let edge = BLOCK - 2;
            let first = needles[0].to_ascii_uppercase();
            hay[edge..edge + first.len()].copy_from_slice(first.as_bytes());
            let last = needles[needles.len() - 1].as_bytes();
            let end = hay.len() - last.len();
            hay[end..].copy_from_slice(last);
            let want = naive_mask(needles, &hay);
            assert_eq!(want.count_ones(), 1 + (needles.len() > 1) as u32);
            assert_eq!(c.present(&hay, 0), want, "{needles:?}");
            // Bits already found stay, whatever the haystack.
            assert_eq!(c.present(b"", 1 << 1), 1 << 1);
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
