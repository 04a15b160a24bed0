//! Byte-level prefilter: decide from a file's raw bytes, before any JSON parsing, whether it can
//! possibly match. It must never drop a file that matches, so:
//!
//! - each leaf becomes "needles" (its folded word tokens, or the CJK runs of a substring) that
//!   must all occur somewhere for the leaf to be present; NOT never excludes anything here;
//! - needles are found ASCII-case-insensitively with one Aho-Corasick pass (JSON writers do not
//!   escape ASCII letters or digits, and escapes such as `\n` or `\"` only stand for separators);
//! - text a byte search cannot see (accented or non-ASCII capital letters that fold to the needle,
//!   `\uXXXX` escapes as Python's `json.dumps` writes) is found by folding a small window of raw
//!   bytes around each such spot;
//! - a file that does not look like JSON text (a database, a compressed file) is not judged: it
//!   is always a candidate.
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::io::Read;

use super::query::{Leaf, Query};
use super::text::{fold_char_into, folds_differently, is_cjk};

/// Which needles were seen, one bit each.
pub type Mask = u64;

const CHUNK: usize = 1 << 20;

pub struct Prefilter {
    needles: Vec<String>,
    /// For each leaf of the query, the needles it needs.
    leaf_needles: Vec<Mask>,
    ac: Option<AhoCorasick>,
    /// Raw bytes one needle can span at most (each folded char may be a 12-byte escaped pair).
    window: usize,
    all: Mask,
}

impl Prefilter {
    pub fn new(q: &Query) -> Prefilter {
        let mut needles: Vec<String> = Vec::new();
        let mut leaf_needles = Vec::new();
        for leaf in &q.leaves {
            let parts: Vec<String> = match leaf {
                Leaf::Words { tokens, .. } => tokens.clone(),
                Leaf::Substring(s) => s
                    .split(|c: char| !(c.is_alphanumeric() || is_cjk(c)))
                    .filter(|p| !p.is_empty())
                    .map(str::to_string)
                    .collect(),
            };
            let mut mask = 0;
            for p in parts {
                let i = match needles.iter().position(|n| *n == p) {
                    Some(i) => i,
                    None => {
                        needles.push(p);
                        needles.len() - 1
                    }
                };
                if i < 64 {
                    mask |= 1 << i;
                }
            }
            leaf_needles.push(mask);
        }
        let usable = !needles.is_empty() && needles.len() <= 64;
        let ac = usable
            .then(|| {
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&needles)
                    .ok()
            })
            .flatten();
        let longest = needles.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        let all = if needles.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << needles.len()) - 1
        };
        Prefilter {
            needles,
            leaf_needles,
            ac,
            window: longest * 12 + 16,
            all,
        }
    }

    /// Every needle present: what an unjudged file reports.
    pub fn all(&self) -> Mask {
        self.all
    }

    pub fn needle_count(&self) -> usize {
        self.needles.len()
    }

    /// Can a document whose text contains the needles in `mask` match `q`?
    pub fn could_match(&self, q: &Query, mask: Mask) -> bool {
        q.eval_ignoring_not(&|leaf| self.leaf_present(leaf, mask))
    }

    pub fn leaf_present(&self, leaf: usize, mask: Mask) -> bool {
        let need = self.leaf_needles[leaf];
        mask & need == need
    }

    /// Needles a file may contain, reading it in chunks (memory stays bounded on huge files).
    pub fn scan_file(&self, path: &std::path::Path) -> std::io::Result<Mask> {
        let Some(ac) = &self.ac else {
            return Ok(self.all);
        };
        let mut f = std::fs::File::open(path)?;
        let overlap = self.window * 2;
        let mut buf = vec![0u8; CHUNK + overlap];
        let mut kept = 0;
        let mut found: Mask = 0;
        let mut first = true;
        loop {
            let n = read_full(&mut f, &mut buf[kept..])?;
            let len = kept + n;
            if first {
                first = false;
                if !looks_like_json(&buf[..len]) {
                    return Ok(self.all);
                }
            }
            found |= self.scan_bytes_with(ac, &buf[..len], found);
            if found == self.all || n == 0 || len < buf.len() {
                return Ok(found);
            }
            let keep_from = len.saturating_sub(overlap);
            buf.copy_within(keep_from..len, 0);
            kept = len - keep_from;
        }
    }

    /// Needles present in `bytes` (one whole document).
    pub fn scan_bytes(&self, bytes: &[u8]) -> Mask {
        match &self.ac {
            Some(ac) => self.scan_bytes_with(ac, bytes, 0),
            None => self.all,
        }
    }

    fn scan_bytes_with(&self, ac: &AhoCorasick, bytes: &[u8], mut found: Mask) -> Mask {
        for m in ac.find_overlapping_iter(bytes) {
            found |= 1 << m.pattern().as_usize();
            if found == self.all {
                return found;
            }
        }
        // Spots a byte search cannot see: fold a window around each and look again.
        let mut regions: Vec<(usize, usize)> = Vec::new();
        let mut add = |pos: usize| {
            let (s, e) = (
                pos.saturating_sub(self.window),
                (pos + self.window).min(bytes.len()),
            );
            match regions.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => regions.push((s, e)),
            }
        };
        let mut escapes = memchr::memmem::find_iter(bytes, b"\\u").peekable();
        let mut i = 0;
        while i < bytes.len() {
            i = next_non_ascii(bytes, i);
            // Escapes before this point go in first, keeping regions sorted.
            while let Some(&e) = escapes.peek() {
                if e > i {
                    break;
                }
                add(e);
                escapes.next();
            }
            if i >= bytes.len() {
                break;
            }
            let (c, width) = decode_char(&bytes[i..]);
            if c.is_some_and(folds_differently) {
                add(i);
            }
            i += width;
        }
        for e in escapes {
            add(e);
        }
        for (s, e) in regions {
            let text = fold_raw(&bytes[s..e]);
            for (k, n) in self.needles.iter().enumerate().take(64) {
                if found & (1 << k) == 0 && text.contains(n.as_str()) {
                    found |= 1 << k;
                }
            }
            if found == self.all {
                break;
            }
        }
        found
    }
}

fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// JSON or JSONL text starts (after whitespace or a BOM) with `{` or `[`.
pub fn looks_like_json(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    matches!(
        head.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{') | Some(b'[') | None
    )
}

/// Index of the next byte >= 0x80 at or after `i` (eight bytes at a time).
fn next_non_ascii(b: &[u8], mut i: usize) -> usize {
    while i + 8 <= b.len() {
        let w = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let high = w & 0x8080_8080_8080_8080;
        if high != 0 {
            return i + (high.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i] < 0x80 {
        i += 1;
    }
    i
}

/// The UTF-8 character at the start of `b` and its width (1 for a stray byte).
fn decode_char(b: &[u8]) -> (Option<char>, usize) {
    let width = match b[0] {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    };
    let c = b
        .get(..width)
        .and_then(|s| std::str::from_utf8(s).ok())
        .and_then(|s| s.chars().next());
    (c, if c.is_some() { width } else { 1 })
}

/// Raw JSON bytes to folded text: `\uXXXX` (and surrogate pairs) decoded, other escapes left
/// as they are (they stand for separators), invalid UTF-8 replaced.
fn fold_raw(raw: &[u8]) -> String {
    // Start on a character boundary.
    let start = raw
        .iter()
        .position(|&b| !(0x80..0xC0).contains(&b))
        .unwrap_or(raw.len());
    let s = String::from_utf8_lossy(&raw[start..]);
    let mut out = String::with_capacity(s.len());
    let mut it = s.char_indices().peekable();
    let bytes = s.as_bytes();
    while let Some((i, c)) = it.next() {
        if c == '\\' && bytes.get(i + 1) == Some(&b'u') {
            if let Some(hi) = hex4(bytes.get(i + 2..i + 6)) {
                let mut consumed = 6;
                let mut ch = char::from_u32(hi);
                if (0xD800..0xDC00).contains(&hi)
                    && bytes.get(i + 6) == Some(&b'\\')
                    && bytes.get(i + 7) == Some(&b'u')
                {
                    if let Some(lo) = hex4(bytes.get(i + 8..i + 12)) {
                        let cp =
                            0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
                        ch = char::from_u32(cp);
                        consumed = 12;
                    }
                }
                if let Some(ch) = ch {
                    fold_char_into(ch, &mut out);
                    while it.peek().is_some_and(|(j, _)| *j < i + consumed) {
                        it.next();
                    }
                    continue;
                }
            }
        }
        fold_char_into(c, &mut out);
    }
    out
}

fn hex4(b: Option<&[u8]>) -> Option<u32> {
    let b = b?;
    let s = std::str::from_utf8(b).ok()?;
    u32::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn present(q: &str, raw: &str) -> bool {
        let q = Query::parse(q).unwrap();
        let p = Prefilter::new(&q);
        p.could_match(&q, p.scan_bytes(raw.as_bytes()))
    }

    #[test]
    fn plain_and_case_folded_ascii() {
        assert!(present("docker", r#"{"text":"Use DOCKER compose"}"#));
        assert!(!present("docker", r#"{"text":"podman only"}"#));
        assert!(present("docker OR podman", r#"{"text":"podman only"}"#));
        assert!(!present("docker podman", r#"{"text":"podman only"}"#));
        // NOT never excludes at this stage
        assert!(present("podman NOT only", r#"{"text":"podman only"}"#));
    }

    #[test]
    fn accents_capitals_and_escapes_are_not_missed() {
        assert!(present("cafe", r#"{"t":"un café"}"#));
        assert!(present("café", r#"{"t":"UN CAFÉ"}"#));
        assert!(present("cafe", r#"{"t":"un caf\u00e9"}"#));
        assert!(present("cafe", r#"{"t":"un caf\u00C9"}"#));
        assert!(present("straße", r#"{"t":"STRAẞE"}"#));
        assert!(present("大别山", r#"{"t":"\u5927\u522b\u5c71"}"#));
        assert!(present("大别山", r#"{"t":"去大别山吧"}"#));
        assert!(!present("大别山", r#"{"t":"别忘了山上的大石头"}"#));
        assert!(present("smile", "{\"t\":\"smile \\ud83d\\ude00\"}"));
        assert!(present("αλφα", r#"{"t":"ΆΛΦΑ"}"#));
    }

    #[test]
    fn chunk_boundaries_do_not_hide_a_needle() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.jsonl");
        let mut body = String::from("{\"t\":\"");
        while body.len() < CHUNK - 3 {
            body.push('x');
        }
        body.push_str(" needle é\"}\n");
        std::fs::write(&path, &body).unwrap();
        let q = Query::parse("needle").unwrap();
        let p = Prefilter::new(&q);
        assert_eq!(p.scan_file(&path).unwrap(), 1);
        let q = Query::parse("nothere").unwrap();
        let p = Prefilter::new(&q);
        assert_eq!(p.scan_file(&path).unwrap(), 0);
        // not JSON: always a candidate
        std::fs::write(&path, b"SQLite format 3\0....").unwrap();
        assert_eq!(p.scan_file(&path).unwrap(), p.all());
    }
}
