//! The searchable words of a text as the team database stores them: a `tsvector` made here with
//! the local tokenizer (folded runs of letters and digits, `query::text`), so a team search
//! finds a word where the local one does (PostgreSQL's own parser keeps hosts, paths and
//! versions whole), and the server only reads the vector instead of parsing the text; and, for
//! a text holding CJK characters, its folded text, which search matches by substring, and its
//! CJK characters and pairs of adjacent ones (`grams`), which the session's words hold so that
//! its index finds the sessions that may hold a CJK text.
use std::collections::{HashMap, HashSet};

use crate::query::text::{fold, is_cjk, is_token_char};

/// PostgreSQL's limits: a lexeme's bytes, a position's value, positions kept per lexeme, and the
/// lexemes' bytes in one vector (kept under its 1 MB with room for the rest).
const MAX_LEXEME: usize = 2047;
const MAX_POSITION: u32 = 16383;
const MAX_POSITIONS: usize = 256;
const MAX_BYTES: usize = 900_000;

/// The words of one text (a message's fields, or a title), with their positions.
#[derive(Default)]
pub struct Words {
    positions: HashMap<String, Vec<u16>>,
    next: u32,
    bytes: usize,
    folded: String,
    grams: HashSet<String>,
}

impl Words {
    /// Add one field's text. A position is left between fields: a phrase does not span two.
    pub fn add(&mut self, text: &str) {
        self.folded.clear();
        if text.is_ascii() {
            self.folded.push_str(text);
            self.folded.make_ascii_lowercase();
        } else {
            self.folded.push_str(&fold(text));
            cjk_grams(&self.folded, |g| {
                if !self.grams.contains(g) {
                    self.grams.insert(g.to_string());
                }
            });
        }
        for token in self.folded.split(|c: char| !is_token_char(c)) {
            if token.is_empty() {
                continue;
            }
            self.next += 1;
            if token.len() > MAX_LEXEME {
                continue;
            }
            let at = self.next.min(MAX_POSITION) as u16;
            match self.positions.get_mut(token) {
                Some(p) if p.len() < MAX_POSITIONS && p.last() != Some(&at) => p.push(at),
                Some(_) => {}
                None if self.bytes + token.len() <= MAX_BYTES => {
                    self.bytes += token.len();
                    self.positions.insert(token.to_string(), vec![at]);
                }
                None => {}
            }
        }
        self.next += 1;
    }

    /// Its words, without positions.
    pub fn lexemes(&self) -> impl Iterator<Item = &String> {
        self.positions.keys()
    }

    /// Its CJK characters and pairs of adjacent ones (`cjk_grams`).
    pub fn grams(&self) -> impl Iterator<Item = &String> {
        self.grams.iter()
    }

    /// The vector in `tsvector`'s input syntax (`'word':1,4 'other':2`). Tokens hold only
    /// letters and digits, so nothing in them needs quoting.
    pub fn literal(&self) -> String {
        let mut out = String::with_capacity(self.bytes + self.positions.len() * 8);
        let mut words: Vec<(&String, &Vec<u16>)> = self.positions.iter().collect();
        words.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (w, p) in words {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push('\'');
            out.push_str(w);
            out.push('\'');
            for (i, at) in p.iter().enumerate() {
                out.push(if i == 0 { ':' } else { ',' });
                out.push_str(&at.to_string());
            }
        }
        out
    }
}

/// The words of a whole session (its title and every message), without positions: what
/// decides which sessions a search reads further.
#[derive(Default)]
pub struct Lexemes {
    set: std::collections::HashSet<String>,
    bytes: usize,
}

impl Lexemes {
    pub fn add<'a>(&mut self, words: impl Iterator<Item = &'a String>) {
        for w in words {
            if self.bytes + w.len() > MAX_BYTES || self.set.contains(w) {
                continue;
            }
            self.bytes += w.len();
            self.set.insert(w.clone());
        }
    }

    /// The vector in `tsvector`'s input syntax (`'a' 'b'`).
    pub fn literal(&self) -> String {
        let mut words: Vec<&String> = self.set.iter().collect();
        words.sort_unstable();
        let mut out = String::with_capacity(self.bytes + 3 * words.len());
        for w in words {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push('\'');
            out.push_str(w);
            out.push('\'');
        }
        out
    }
}

/// The words of one text alone (a title).
pub fn of(text: &str) -> String {
    let mut w = Words::default();
    w.add(text);
    w.literal()
}

/// Each CJK character of the folded `text`, and each pair of adjacent ones, as many times as
/// they occur. A text of one or two CJK characters occurs in a field exactly when its gram does;
/// a longer one, only where all its pairs do (a session holding them all is a candidate only).
pub fn cjk_grams(text: &str, mut each: impl FnMut(&str)) {
    let mut last: Option<usize> = None;
    for (at, c) in text.char_indices() {
        if !is_cjk(c) {
            last = None;
            continue;
        }
        let end = at + c.len_utf8();
        each(&text[at..end]);
        if let Some(start) = last {
            each(&text[start..end]);
        }
        last = Some(at);
    }
}

/// The folded text of `texts` joined by new lines when any holds a CJK character (what a CJK
/// search matches by substring), else `None`.
pub fn cjk<'a>(texts: impl Iterator<Item = &'a str> + Clone) -> Option<String> {
    if !texts
        .clone()
        .any(|t| !t.is_ascii() && t.chars().any(is_cjk))
    {
        return None;
    }
    let mut out = String::new();
    for t in texts {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&fold(t));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_the_local_tokens_with_positions() {
        let mut w = Words::default();
        w.add("See kubernetes.io/docs, Café v1.2");
        w.add("café again");
        assert_eq!(
            w.literal(),
            "'2':7 'again':10 'cafe':5,9 'docs':4 'io':3 'kubernetes':2 'see':1 'v1':6"
        );
    }

    #[test]
    fn limits_are_kept() {
        let long = "x".repeat(3000);
        assert_eq!(of(&format!("{long} ok")), "'ok':2");
        let many = "word ".repeat(1000);
        assert_eq!(of(&many).matches(',').count(), MAX_POSITIONS - 1);
        assert_eq!(of(&"a ".repeat(20000)).rsplit(',').next(), Some("256"));
    }

    #[test]
    fn a_session_holds_each_word_once() {
        let (mut a, mut b) = (Words::default(), Words::default());
        a.add("Flaky test, flaky");
        b.add("test again");
        let mut all = Lexemes::default();
        all.add(a.lexemes());
        all.add(b.lexemes());
        assert_eq!(all.literal(), "'again' 'flaky' 'test'");
    }

    #[test]
    fn cjk_grams_are_the_characters_and_adjacent_pairs_of_each_run() {
        let mut grams = Vec::new();
        cjk_grams("大别山 x 主峰。ok 山", |g| grams.push(g.to_string()));
        assert_eq!(
            grams,
            [
                "大", "别", "大别", "山", "别山", "主", "峰", "主峰", "。", "峰。", "山"
            ]
        );
        let mut w = Words::default();
        w.add("Hello 大别山, 大别");
        let mut all: Vec<&String> = w.grams().collect();
        all.sort();
        assert_eq!(all, ["别", "别山", "大", "大别", "山"]);
        assert_eq!(
            w.literal(),
            "'hello':1",
            "the grams are not the message's words"
        );
    }

    #[test]
    fn cjk_text_only_when_there_is_some() {
        assert_eq!(cjk(["Hello", "world"].into_iter()), None);
        assert_eq!(
            cjk(["Hello", "大别山 Project"].into_iter()).as_deref(),
            Some("hello\n大别山 project")
        );
    }
}
