//! Text normalisation shared by the query parser, the matcher and the byte prefilter: lower case,
//! accents removed (as SQLite's unicode61 tokenizer does with `remove_diacritics`), tokens = runs of
//! letters and digits, CJK characters kept out of tokens (they are matched as substrings).
use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// CJK as Hermes detects it: ideographs (+ ext. A, B), CJK punctuation, kana, Hangul syllables.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x3000..=0x303F
        | 0x3040..=0x309F | 0x30A0..=0x30FF | 0xAC00..=0xD7AF)
}

/// A character that is part of a word token (CJK is not: it is matched by substring).
pub fn is_token_char(c: char) -> bool {
    // The range check first: CJK text would otherwise look each character up in Unicode's
    // tables of letters.
    !is_cjk(c) && c.is_alphanumeric()
}

/// Scripts whose letters carry combining accents we strip. Hangul and CJK also decompose
/// canonically but must stay whole, so decomposition is limited to these ranges.
fn has_strippable_accents(c: char) -> bool {
    matches!(c as u32, 0xC0..=0x24F | 0x1E00..=0x1EFF | 0x370..=0x3FF | 0x400..=0x4FF)
}

/// Push the folded form of `c` (lower case, no accents) onto `out`.
pub fn fold_char_into(c: char, out: &mut String) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
        return;
    }
    if has_strippable_accents(c) {
        let mut base = String::new();
        decompose_canonical(c, |d| {
            if !is_combining_mark(d) {
                base.push(d)
            }
        });
        for b in base.chars() {
            out.extend(b.to_lowercase());
        }
        return;
    }
    if is_combining_mark(c) {
        return;
    }
    out.extend(c.to_lowercase());
}

/// Does folding change `c`? (The prefilter uses it to find raw bytes that a plain byte search
/// would miss.) Conservative: every accented-script letter counts.
pub fn folds_differently(c: char) -> bool {
    if c.is_ascii() || is_cjk(c) {
        return false;
    }
    if has_strippable_accents(c) || is_combining_mark(c) {
        return true;
    }
    let mut lower = c.to_lowercase();
    !(lower.next() == Some(c) && lower.next().is_none())
}

pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        fold_char_into(c, &mut out);
    }
    out
}

/// A text folded for matching, with a map back to the original so snippets show the real text.
pub struct Folded {
    pub text: String,
    /// For each byte of `text`, the byte offset in the original of the character it came from.
    pub map: Vec<u32>,
    /// Word tokens as byte ranges of `text`.
    pub tokens: Vec<(u32, u32)>,
}

impl Folded {
    pub fn new(original: &str) -> Folded {
        if original.is_ascii() {
            return Folded::ascii(original);
        }
        let bytes = original.as_bytes();
        let mut text: Vec<u8> = Vec::with_capacity(original.len());
        let mut map: Vec<u32> = Vec::with_capacity(original.len());
        let mut tokens = Vec::new();
        let mut start: Option<usize> = None;
        let mut mark = |at: usize, token: bool, start: &mut Option<usize>| match (token, *start) {
            (true, None) => *start = Some(at),
            (false, Some(s)) => {
                tokens.push((s as u32, at as u32));
                *start = None;
            }
            _ => {}
        };
        let mut folded = String::new();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b < 0x80 {
                // Most text is ASCII: one byte in, one byte out.
                mark(text.len(), b.is_ascii_alphanumeric(), &mut start);
                text.push(b.to_ascii_lowercase());
                map.push(i as u32);
                i += 1;
                continue;
            }
            let c = original[i..].chars().next().expect("a char boundary");
            let width = c.len_utf8();
            if is_cjk(c) || !folds_differently(c) {
                mark(text.len(), is_token_char(c), &mut start);
                text.extend_from_slice(&bytes[i..i + width]);
                map.extend(std::iter::repeat_n(i as u32, width));
            } else {
                folded.clear();
                fold_char_into(c, &mut folded);
                for f in folded.chars() {
                    mark(text.len(), is_token_char(f), &mut start);
                    let mut buf = [0u8; 4];
                    text.extend_from_slice(f.encode_utf8(&mut buf).as_bytes());
                    map.extend(std::iter::repeat_n(i as u32, f.len_utf8()));
                }
            }
            i += width;
        }
        let end = text.len();
        mark(end, false, &mut start);
        let text = String::from_utf8(text).expect("folded text is UTF-8");
        Folded { text, map, tokens }
    }

    /// `new` for ASCII text (most of it), a byte each, in passes the compiler vectorises.
    fn ascii(original: &str) -> Folded {
        let text = original.to_ascii_lowercase();
        let map = (0..original.len() as u32).collect();
        let mut tokens = Vec::new();
        let mut start = None;
        for (i, b) in text.bytes().enumerate() {
            match (b.is_ascii_alphanumeric(), start) {
                (true, None) => start = Some(i as u32),
                (false, Some(s)) => {
                    tokens.push((s, i as u32));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            tokens.push((s, text.len() as u32));
        }
        Folded { text, map, tokens }
    }

    pub fn token(&self, i: usize) -> &str {
        let (s, e) = self.tokens[i];
        &self.text[s as usize..e as usize]
    }

    /// Original byte offset of folded offset `i` (the end maps to `original_len`).
    pub fn original_offset(&self, i: usize, original_len: usize) -> usize {
        self.map.get(i).map(|&o| o as usize).unwrap_or(original_len)
    }
}

/// The word tokens of an already folded string.
pub fn split_tokens(folded: &str) -> Vec<String> {
    folded
        .split(|c: char| !is_token_char(c))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_and_accents_but_not_cjk_or_hangul() {
        assert_eq!(fold("Café ÉCOLE Straße"), "cafe ecole straße");
        assert_eq!(fold("ΆΛΦΑ"), "αλφα");
        assert_eq!(fold("大别山 안녕하세요"), "大别山 안녕하세요");
        assert!(folds_differently('é') && folds_differently('Ä'));
        assert!(!folds_differently('大') && !folds_differently('→') && !folds_differently('e'));
    }

    /// The definition `Folded::new` implements quickly: fold char by char, then split tokens.
    fn folded_by_definition(original: &str) -> (String, Vec<u32>, Vec<(u32, u32)>) {
        let (mut text, mut map) = (String::new(), Vec::new());
        for (i, c) in original.char_indices() {
            let before = text.len();
            fold_char_into(c, &mut text);
            map.extend(std::iter::repeat_n(i as u32, text.len() - before));
        }
        let mut tokens = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
            match (is_token_char(c), start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    tokens.push((s as u32, i as u32));
                    start = None;
                }
                _ => {}
            }
        }
        (text, map, tokens)
    }

    #[test]
    fn fast_folding_agrees_with_the_definition() {
        for s in [
            "",
            "chat-send mem_limit 修改youer服务端 Ünïcode",
            "e\u{301}x cafe\u{301} ﬁle Ǆ İstanbul ΆΛΦΑ 안녕하세요 → ✓ 12ab",
            "  trailing  ",
            "a\u{300}\u{300}b-c ẞ Ωmega ǅ",
            "plain ASCII: Fix_the-BUG #42, x2\tY\n",
            "Z",
            "-",
        ] {
            let f = Folded::new(s);
            assert_eq!((f.text, f.map, f.tokens), folded_by_definition(s), "{s:?}");
        }
    }

    #[test]
    fn tokens_split_on_punctuation_and_cjk() {
        let f = Folded::new("chat-send mem_limit 修改youer服务端 Ünïcode");
        let toks: Vec<&str> = (0..f.tokens.len()).map(|i| f.token(i)).collect();
        assert_eq!(toks, ["chat", "send", "mem", "limit", "youer", "unicode"]);
        // "Ünïcode" starts at original byte 37 (after 3+3+3 bytes of CJK... computed from the text)
        let orig = "chat-send mem_limit 修改youer服务端 Ünïcode";
        let (s, _) = f.tokens[5];
        assert_eq!(
            &orig[f.original_offset(s as usize, orig.len())..],
            "Ünïcode"
        );
    }
}
