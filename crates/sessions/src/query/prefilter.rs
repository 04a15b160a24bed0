//! Byte-level prefilter: decide from a file's raw bytes, before any JSON parsing, whether it can
//! possibly match. It must never drop a file that matches, so:
//!
//! - each leaf becomes "needles" (its folded word tokens, or the CJK runs of a substring) that
//!   must all occur somewhere for the leaf to be present; NOT never excludes anything here;
//! - needles are found ASCII-case-insensitively in one pass (`Caseless`; JSON writers do not
//!   escape ASCII letters or digits, and escapes such as `\n` or `\"` only stand for separators);
//! - text a byte search cannot see (accented or non-ASCII capital letters that fold to the needle,
//!   `\uXXXX` escapes as Python's `json.dumps` writes) is found by folding a small window of raw
//!   bytes around each such spot;
//! - a file that does not look like JSON text (a database, a compressed file) is not judged: it
//!   is always a candidate.

use super::caseless::Caseless;
use super::parse::{Leaf, Query};
use super::text::{fold_char_into, folds_differently, is_cjk};
use crate::read::fs::read_full;

/// Which needles were seen, one bit each.
pub type Mask = u64;

const CHUNK: usize = 1 << 20;

thread_local! {
    static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The needles of a leaf: strings that all occur in any folded text the leaf occurs in (its word
/// tokens, or the CJK and alphanumeric runs of a substring).
pub fn needles_of(leaf: &Leaf) -> Vec<String> {
    match leaf {
        Leaf::Words { tokens, .. } => tokens.clone(),
        Leaf::Substring(s) => s
            .split(|c: char| !(c.is_alphanumeric() || is_cjk(c)))
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect(),
    }
}

pub struct Prefilter {
    needles: Vec<String>,
    /// For each leaf of the query, the needles it needs.
    leaf_needles: Vec<Mask>,
    finder: Option<Caseless>,
    /// `\u`, the start of a JSON escape that can hide a letter.
    escape: memchr::memmem::Finder<'static>,
    /// Raw bytes one needle can span at most (each folded char may be a 12-byte escaped pair).
    window: usize,
    all: Mask,
    /// Every character of every needle: a folded character outside this set cannot help a match.
    needle_chars: Vec<char>,
    /// `relevant_fold` of every two-byte UTF-8 character (U+0080..U+07FF: Latin, Greek, Cyrillic).
    two_byte: Vec<Option<String>>,
    /// All needles are ASCII: CJK, kana and Hangul bytes (lead bytes E3..ED) can be skipped whole.
    ascii_needles: bool,
}

impl Prefilter {
    pub fn new(q: &Query) -> Prefilter {
        let mut needles: Vec<String> = Vec::new();
        let mut leaf_needles = Vec::new();
        for leaf in &q.leaves {
            let mut mask = 0;
            for p in needles_of(leaf) {
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
        let finder = usable.then(|| Caseless::new(&needles)).flatten();
        let longest = needles.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        let all = if needles.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << needles.len()) - 1
        };
        let mut needle_chars: Vec<char> = needles.iter().flat_map(|n| n.chars()).collect();
        needle_chars.sort_unstable();
        needle_chars.dedup();
        let mut p = Prefilter {
            ascii_needles: needles.iter().all(|n| n.is_ascii()),
            two_byte: Vec::new(),
            needle_chars,
            needles,
            leaf_needles,
            finder,
            escape: memchr::memmem::Finder::new(b"\\u").into_owned(),
            window: longest * 12 + 16,
            all,
        };
        p.two_byte = (0x80..0x800u32)
            .map(|cp| char::from_u32(cp).and_then(|c| p.relevant_fold(c)))
            .collect();
        p
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
    /// A file that does not look like JSON is not judged (every needle).
    pub fn scan_file(&self, path: &std::path::Path) -> std::io::Result<Mask> {
        self.scan_path(path, true)
    }

    /// The same for a side file that may be plain text (a YAML workspace file, a project root
    /// path): its bytes are searched whatever they look like.
    pub fn scan_text_file(&self, path: &std::path::Path) -> std::io::Result<Mask> {
        self.scan_path(path, false)
    }

    fn scan_path(&self, path: &std::path::Path, json_only: bool) -> std::io::Result<Mask> {
        let Some(finder) = &self.finder else {
            return Ok(self.all);
        };
        let mut f = std::fs::File::open(path)?;
        let size = f.metadata().map(|m| m.len() as usize).unwrap_or(CHUNK);
        let overlap = self.window * 2;
        BUF.with_borrow_mut(|buf| {
            // One buffer per thread, sized to the file (no 1 MiB zeroing for small files).
            let want = size.min(CHUNK) + overlap + 1;
            if buf.len() < want {
                buf.resize(want, 0);
            }
            self.scan_stream(finder, &mut f, &mut buf[..want], overlap, json_only)
        })
    }

    fn scan_stream(
        &self,
        finder: &Caseless,
        f: &mut std::fs::File,
        buf: &mut [u8],
        overlap: usize,
        json_only: bool,
    ) -> std::io::Result<Mask> {
        let mut kept = 0;
        let mut found: Mask = 0;
        let mut first = true;
        loop {
            let n = read_full(f, &mut buf[kept..])?;
            let len = kept + n;
            if first {
                first = false;
                if json_only && !looks_like_json(&buf[..len]) {
                    return Ok(self.all);
                }
            }
            found |= self.scan_bytes_with(finder, &buf[..len], found);
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
        match &self.finder {
            Some(finder) => self.scan_bytes_with(finder, bytes, 0),
            None => self.all,
        }
    }

    fn scan_bytes_with(&self, finder: &Caseless, bytes: &[u8], found: Mask) -> Mask {
        let mut found = finder.present(bytes, found) & self.all;
        if found == self.all {
            return found;
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
        let mut escapes = self.escape.find_iter(bytes).peekable();
        // Folding is looked up once per distinct character: text repeats few of them.
        let mut seen: Vec<(char, Option<String>)> = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            i = self.next_to_look_at(bytes, i);
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
            let b0 = bytes[i];
            let cont = |k: usize| bytes.get(i + k).is_some_and(|b| (0x80..0xC0).contains(b));
            if (0xC2..=0xDF).contains(&b0) && cont(1) {
                let cp = ((b0 as usize & 0x1F) << 6) | (bytes[i + 1] as usize & 0x3F);
                if let Some(f) = &self.two_byte[cp - 0x80] {
                    if self.may_complete(bytes, i, 2, f, found) {
                        add(i);
                    }
                }
                i += 2;
                continue;
            }
            if self.ascii_needles && cont(1) && cont(2) && skippable_for_ascii(&bytes[i..]) {
                i += 3;
                continue;
            }
            let (c, width) = decode_char(&bytes[i..]);
            if let Some(c) = c {
                let k = match seen.iter().position(|(x, _)| *x == c) {
                    Some(k) => k,
                    None => {
                        seen.push((c, self.relevant_fold(c)));
                        seen.len() - 1
                    }
                };
                if let Some(f) = &seen[k].1 {
                    if self.may_complete(bytes, i, width, f, found) {
                        add(i);
                    }
                }
                if seen.len() > 256 {
                    seen.clear();
                }
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

impl Prefilter {
    /// The folded form of `c` when folding changes it and the result shares a character with a
    /// needle (or is empty: a combining mark); `None` when `c` can be ignored.
    fn relevant_fold(&self, c: char) -> Option<String> {
        if !folds_differently(c) {
            return None;
        }
        let mut f = String::new();
        fold_char_into(c, &mut f);
        let shares = f
            .chars()
            .any(|x| self.needle_chars.binary_search(&x).is_ok());
        (f.is_empty() || shares).then_some(f)
    }

    /// Does `text` hold a character whose folded form could be part of a needle (or vanishes: a
    /// combining mark)? Without one, needles can be found in `text` as it is written.
    pub fn folding_may_matter(&self, text: &str) -> bool {
        let b = text.as_bytes();
        let mut i = self.next_to_look_at(b, 0);
        while i < b.len() {
            if (self.ascii_needles && skippable_for_ascii(&b[i..])) || starts_with_cjk(&b[i..]) {
                i += 3;
                // A run of CJK text is passed over character by character.
                while starts_with_cjk(&b[i..]) {
                    i += 3;
                }
                i = self.next_to_look_at(b, i);
                continue;
            }
            let c = text[i..].chars().next().expect("a char boundary");
            let relevant = match (c as u32).checked_sub(0x80) {
                Some(k) if k < 0x780 => self.two_byte[k as usize].is_some(),
                _ => self.relevant_fold(c).is_some(),
            };
            if relevant {
                return true;
            }
            i = self.next_to_look_at(b, i + c.len_utf8());
        }
        false
    }

    /// The next byte at or after `i` that may start a character folding can turn into part of a
    /// needle. Whole runs of CJK text are passed over at once when every needle is ASCII.
    fn next_to_look_at(&self, b: &[u8], i: usize) -> usize {
        if self.ascii_needles {
            next_lead_for_ascii(b, i)
        } else {
            next_non_ascii(b, i)
        }
    }

    /// Could the folding character at `bytes[i..i + width]` (folded: `f`) be part of a needle not found
    /// yet? Checks the ASCII bytes around it against each place the folded character takes in
    /// a needle; anything it cannot judge cheaply (non-ASCII or escapes nearby) answers yes.
    fn may_complete(&self, bytes: &[u8], i: usize, width: usize, f: &str, found: Mask) -> bool {
        if f.is_empty() {
            return true; // a combining mark: its base letter is beside it
        }
        let unclear = |r: &[u8]| r.iter().any(|&b| b >= 0x80 || b == b'\\');
        for (k, n) in self.needles.iter().enumerate().take(64) {
            if found & (1 << k) != 0 {
                continue;
            }
            for (at, _) in n.match_indices(f) {
                let (pre, suf) = (&n.as_bytes()[..at], &n.as_bytes()[at + f.len()..]);
                let before = &bytes[i.saturating_sub(pre.len())..i];
                let end = (i + width + suf.len()).min(bytes.len());
                let after = &bytes[i + width..end];
                let pre_ok = before.len() == pre.len() && before.eq_ignore_ascii_case(pre);
                let suf_ok = after.len() == suf.len() && after.eq_ignore_ascii_case(suf);
                if (pre_ok || unclear(before)) && (suf_ok || unclear(after)) {
                    return true;
                }
            }
        }
        false
    }
}

/// JSON or JSONL text starts (after whitespace or a BOM) with `{` or `[`.
pub fn looks_like_json(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    matches!(
        head.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{') | Some(b'[') | None
    )
}

/// Does a block hold a byte >= 0x80? One test for four words.
#[inline(always)]
fn has_high_byte(block: &[u8; 32]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |k: usize| u64::from_le_bytes(block[k..k + 8].try_into().expect("8 bytes"));
    (word(0) | word(8) | word(16) | word(24)) & HIGH != 0
}

/// Does folding leave `text` as it is written, but for the case of ASCII letters (no character
/// of it `folds_differently`)? Its folded form (`text::Folded`) then has the same bytes, offsets
/// and word tokens.
pub fn folds_in_place(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = next_non_ascii(b, 0);
    while i < b.len() {
        let c = text[i..].chars().next().expect("a char boundary");
        if folds_differently(c) {
            return false;
        }
        i = next_non_ascii(b, i + c.len_utf8());
    }
    true
}

/// Index of the next byte >= 0x80 at or after `i`: 32 bytes a step through ASCII (one test for
/// four words), then eight at a time.
fn next_non_ascii(b: &[u8], mut i: usize) -> usize {
    while let Some(block) = b.get(i..i + 32) {
        if has_high_byte(block.try_into().expect("32 bytes")) {
            break;
        }
        i += 32;
    }
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

/// Can a character starting with byte `x` change a search for ASCII needles? ASCII cannot (the
/// byte search sees it), nor a continuation byte, nor the lead bytes E3..E9 and EB..ED: their
/// characters (U+3000..U+9FFF, U+B000..U+DFFF: CJK, kana, Hangul) are kept whole by folding. The
/// lead EA (U+A000..U+AFFF) holds combining marks, so it is looked at.
#[inline(always)]
fn lead_matters_for_ascii(x: u8) -> bool {
    x >= 0xC0 && !(0xE3..=0xE9).contains(&x) && !(0xEB..=0xED).contains(&x)
}

/// Index of the next byte at or after `i` for which `lead_matters_for_ascii`: 32 bytes a step,
/// with one test of four words for a block of ASCII and the byte test only for a block with
/// high bytes (four times faster on ASCII than the byte test alone), then one at a time.
fn next_lead_for_ascii(b: &[u8], mut i: usize) -> usize {
    while let Some(block) = b.get(i..i + 32) {
        let block: &[u8; 32] = block.try_into().expect("32 bytes");
        if has_high_byte(block)
            && block
                .iter()
                .fold(false, |any, &x| any | lead_matters_for_ascii(x))
        {
            break;
        }
        i += 32;
    }
    while i < b.len() && !lead_matters_for_ascii(b[i]) {
        i += 1;
    }
    i
}

/// Does `b` start with a three-byte character that cannot change a search for ASCII needles?
/// In U+3000..U+DFFF, CJK, kana and Hangul are kept whole and nothing folds to ASCII; but the
/// small scripts of U+A000..U+ABFF hold combining marks, which vanish when folded and so can
/// join two halves of a word: those are not skipped. In U+2000..U+2FFF, the symbols that fold
/// to no ASCII letter or digit (`inert_symbols`).
fn skippable_for_ascii(b: &[u8]) -> bool {
    let Some(cp @ 0x2000..=0xDFFF) = three_byte_char(b) else {
        return false;
    };
    if cp < 0x3000 {
        let k = (cp - 0x2000) as usize;
        return inert_symbols()[k / 64] & (1 << (k % 64)) != 0;
    }
    !(0xA000..=0xABFF).contains(&cp)
}

/// Does `b` start with a CJK character (`is_cjk`, three bytes)? It folds to itself: it can
/// neither hide a needle nor join two halves of one.
fn starts_with_cjk(b: &[u8]) -> bool {
    three_byte_char(b)
        .and_then(char::from_u32)
        .is_some_and(is_cjk)
}

/// The code point of the three-byte character `b` starts with (`b` is UTF-8 from a `str`, so
/// its lead byte tells its length), `None` for any other.
fn three_byte_char(b: &[u8]) -> Option<u32> {
    let [b0 @ 0xE0..=0xEF, b1, b2, ..] = *b else {
        return None;
    };
    Some(((b0 as u32 & 0x0F) << 12) | ((b1 as u32 & 0x3F) << 6) | (b2 as u32 & 0x3F))
}

/// U+2000..U+2FFF (lead byte E2: punctuation, arrows, maths, box drawing, dingbats, common in
/// tool output), one bit each: the character's fold holds no ASCII letter or digit and does not
/// vanish, so for ASCII needles it only separates words, as it does for the byte search. Made
/// once per process (4,096 folds).
fn inert_symbols() -> &'static [u64; 64] {
    static TABLE: std::sync::OnceLock<[u64; 64]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0u64; 64];
        let mut f = String::new();
        for k in 0..4096u32 {
            let Some(c) = char::from_u32(0x2000 + k) else {
                continue;
            };
            f.clear();
            fold_char_into(c, &mut f);
            if !f.is_empty() && !f.chars().any(|x| x.is_ascii_alphanumeric()) {
                t[k as usize / 64] |= 1 << (k % 64);
            }
        }
        t
    })
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
        // A combining mark vanishes when folded, joining the word around it.
        assert!(present("borrow", "{\"t\":\"bor\u{A8E0}row\"}"));
        assert!(!present("borrow", r#"{"t":"bor漢row"}"#));
        // A symbol that folds to an ASCII letter (Kelvin sign) is seen; arrows and box
        // drawing between letters are not part of a word.
        assert!(present("kelvin", "{\"t\":\"\u{212A}ELVIN ✓\"}"));
        assert!(!present("kelvin", "{\"t\":\"k→elvin ─ k✓elvin\"}"));
    }

    #[test]
    fn text_folds_in_place_unless_a_character_folds_to_another() {
        let long = "a".repeat(70);
        for text in [
            "",
            "plain",
            "✓ function error → 大别山",
            &format!("{long}✓{long}"),
        ] {
            assert!(folds_in_place(text), "{text}");
            assert_eq!(
                super::super::text::Folded::new(text).text,
                text.to_ascii_lowercase()
            );
        }
        for text in ["café", "Ärger", &format!("{long}✓{long}É"), "e\u{301}"] {
            assert!(!folds_in_place(text), "{text}");
        }
    }

    #[test]
    fn next_non_ascii_finds_the_first_high_byte_from_any_start() {
        for len in [0usize, 1, 7, 8, 31, 32, 33, 70, 200] {
            for at in (0..len).step_by(3).chain([len]) {
                let mut b = vec![b'a'; len];
                if at < len {
                    b[at] = 0xC3;
                }
                for start in 0..=len {
                    let want = b[start..]
                        .iter()
                        .position(|&x| x >= 0x80)
                        .map_or(len, |p| start + p);
                    assert_eq!(
                        next_non_ascii(&b, start),
                        want,
                        "len {len} at {at} from {start}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_character_that_folds_stops_the_scan_for_ascii_needles() {
        let mut stops = 0;
        for c in (0x80..=0x10FFFFu32).filter_map(char::from_u32) {
            if !folds_differently(c) {
                continue;
            }
            // After a CJK run longer than one step, so the vector loop is the one that stops.
            let mut text = "漢字".repeat(12);
            let at = text.len();
            text.push(c);
            text.push('x');
            assert_eq!(
                next_lead_for_ascii(text.as_bytes(), 0),
                at,
                "U+{:04X}",
                c as u32
            );
            stops += 1;
        }
        assert!(stops > 1000, "{stops}");
        // A pure CJK run is passed over whole.
        let run = "大别山".repeat(40);
        assert_eq!(next_lead_for_ascii(run.as_bytes(), 0), run.len());
    }

    #[test]
    fn only_marks_and_small_scripts_are_not_skipped() {
        let skip = |c: char| skippable_for_ascii(c.to_string().as_bytes());
        for c in ['漢', 'か', 'カ', '한', '\u{3000}', '\u{D7A3}'] {
            assert!(skip(c), "{c:?}");
        }
        for c in ['\u{A8E0}', '\u{A000}', 'é', 'a', '\u{E000}'] {
            assert!(!skip(c), "{c:?}");
        }
        // Symbols are skipped, and those that fold to an ASCII letter (the Kelvin sign) or
        // vanish (combining marks for symbols) are not.
        for c in ['→', '✓', '─', '…', '\u{2260}', 'Ⅳ'] {
            assert!(skip(c), "{c:?}");
        }
        for c in ['\u{212A}', '\u{20D7}'] {
            assert!(!skip(c), "{c:?}");
        }
        for cp in 0x2000..=0x2FFFu32 {
            if let Some(c) = char::from_u32(cp) {
                let mut f = String::new();
                fold_char_into(c, &mut f);
                let inert = !f.is_empty() && !f.chars().any(|x| x.is_ascii_alphanumeric());
                assert_eq!(skip(c), inert, "U+{cp:04X}");
            }
        }
        // Every mark of U+3000..U+DFFF that folding drops is looked at, whatever Unicode
        // version the folding uses.
        for cp in 0x3000..=0xDFFFu32 {
            if let Some(c) = char::from_u32(cp) {
                if folds_differently(c) {
                    assert!(!skip(c), "U+{cp:04X}");
                }
            }
        }
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
