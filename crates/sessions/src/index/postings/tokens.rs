//! Our folding as tantivy's tokenizers, so that the index holds exactly the tokens the scan
//! matches (`query::text`): lower case, accents removed, tokens = runs of letters and digits.
//!
//! - `Words`: the word tokens of a text at consecutive positions. CJK characters form no word
//!   and are invisible here, as they are to a phrase of words in the scan.
//! - `Cjk`: each CJK character of a text, one after another at consecutive positions when they
//!   touch in the folded text and with a position left empty between them when anything stands
//!   between, so that a run of consecutive positions is a substring of the text.
//!
//! A word longer than `LONGEST` bytes is indexed cut to its first `LONGEST` bytes (tantivy drops
//! terms past 64 kB, and such runs are hashes and blobs): the lookup reads the sessions again
//! for a query word that long.
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

use crate::query::text::{is_cjk, Folded};

/// The most bytes of a word the index keeps.
pub const LONGEST: usize = 96;

/// The name each tokenizer is registered under.
pub const WORDS: &str = "amux_words";
pub const CJK: &str = "amux_cjk";

/// The word tokenizer.
#[derive(Clone, Default)]
pub struct Words;

/// The CJK character tokenizer.
#[derive(Clone, Default)]
pub struct Cjk;

/// A function that calls its sink with each token of a text.
type EachToken = fn(&str, &mut dyn FnMut(&Token));

/// A token stream that folds as it goes when tantivy's indexer asks for every token at once
/// (`process`), and collects them first for the pull interface (`advance`).
pub struct Stream<'a> {
    text: &'a str,
    each: EachToken,
    tokens: Option<Vec<Token>>,
    at: usize,
}

impl Tokenizer for Words {
    type TokenStream<'a> = Stream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Stream<'a> {
        Stream::new(text, each_word)
    }
}

impl Tokenizer for Cjk {
    type TokenStream<'a> = Stream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> Stream<'a> {
        Stream::new(text, each_cjk)
    }
}

impl<'a> Stream<'a> {
    fn new(text: &'a str, each: EachToken) -> Stream<'a> {
        Stream {
            text,
            each,
            tokens: None,
            at: 0,
        }
    }

    fn tokens(&mut self) -> &mut Vec<Token> {
        let (text, each) = (self.text, self.each);
        self.tokens.get_or_insert_with(|| {
            let mut v = Vec::new();
            each(text, &mut |t| v.push(t.clone()));
            v
        })
    }
}

impl TokenStream for Stream<'_> {
    fn advance(&mut self) -> bool {
        self.at += 1;
        self.at <= self.tokens().len()
    }

    fn token(&self) -> &Token {
        &self.tokens.as_ref().expect("advanced first")[self.at - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        let at = self.at;
        &mut self.tokens()[at - 1]
    }

    fn process(&mut self, sink: &mut dyn FnMut(&Token)) {
        (self.each)(self.text, sink)
    }
}

/// `word` as the index keeps it: cut to `LONGEST` bytes on a character boundary.
pub fn indexed_word(word: &str) -> &str {
    if word.len() <= LONGEST {
        return word;
    }
    let mut end = LONGEST;
    while !word.is_char_boundary(end) {
        end -= 1;
    }
    &word[..end]
}

/// Call `sink` with each word token of `text`, folded, at positions 0, 1, 2...
pub fn each_word(text: &str, sink: &mut dyn FnMut(&Token)) {
    let mut token = Token::default();
    let mut position = 0;
    let mut emit = |word: &str, from: usize, to: usize| {
        token.text.clear();
        token.text.push_str(indexed_word(word));
        token.offset_from = from;
        token.offset_to = to;
        token.position = position;
        position += 1;
        sink(&token);
    };
    if text.is_ascii() {
        // Most text: a byte is a character and folds to one lower-case byte.
        let bytes = text.as_bytes();
        let mut word = String::new();
        let mut i = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_alphanumeric() {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            word.clear();
            word.extend(
                bytes[start..i]
                    .iter()
                    .map(|b| b.to_ascii_lowercase() as char),
            );
            emit(&word, start, i);
        }
        return;
    }
    let f = Folded::new(text);
    for (k, &(s, e)) in f.tokens.iter().enumerate() {
        let from = f.original_offset(s as usize, text.len());
        let to = f.original_offset(e as usize, text.len());
        emit(f.token(k), from, to);
    }
}

/// Call `sink` with each CJK character of `text` (folded), a position apart when they touch,
/// two apart otherwise.
pub fn each_cjk(text: &str, sink: &mut dyn FnMut(&Token)) {
    if text.is_ascii() {
        return;
    }
    let f = Folded::new(text);
    let mut token = Token::default();
    let mut next: Option<(usize, usize)> = None; // (folded byte, position) right after the last
    for (i, c) in f.text.char_indices().filter(|&(_, c)| is_cjk(c)) {
        let position = match next {
            None => 0,
            Some((at, p)) if at == i => p,
            Some((_, p)) => p + 1,
        };
        token.text.clear();
        token.text.push(c);
        token.offset_from = f.original_offset(i, text.len());
        token.offset_to = f.original_offset(i + c.len_utf8(), text.len());
        token.position = position;
        sink(&token);
        next = Some((i + c.len_utf8(), position + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::text::{fold, split_tokens};

    fn words(text: &str) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        each_word(text, &mut |t| out.push((t.text.clone(), t.position)));
        out
    }

    fn cjk(text: &str) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        each_cjk(text, &mut |t| out.push((t.text.clone(), t.position)));
        out
    }

    #[test]
    fn words_are_the_scans_tokens_in_order() {
        for text in [
            "Fix the BUG #42 in src/cache.rs:88",
            "chat-send mem_limit 修改youer服务端 Ünïcode Straße ΆΛΦΑ",
            "e\u{301}x cafe\u{301} ﬁle İstanbul 안녕하세요",
            "",
            "  -- ",
        ] {
            let want: Vec<String> = split_tokens(&fold(text));
            let got = words(text);
            assert_eq!(
                got.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>(),
                want,
                "{text:?}"
            );
            assert!(
                got.iter().enumerate().all(|(i, (_, p))| *p == i),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_long_word_is_cut_on_a_character_boundary() {
        let long = "a".repeat(LONGEST - 1) + "жж";
        let got = words(&long);
        assert_eq!(got.len(), 1);
        assert!(got[0].0.len() <= LONGEST && got[0].0.starts_with("aaa"));
        assert_eq!(got[0].0, "a".repeat(LONGEST - 1));
        assert_eq!(indexed_word("short"), "short");
    }

    #[test]
    fn cjk_characters_that_touch_take_consecutive_positions() {
        assert_eq!(
            cjk("大别山 项目, 进度abc度"),
            [
                ("大".to_string(), 0),
                ("别".to_string(), 1),
                ("山".to_string(), 2),
                ("项".to_string(), 4),
                ("目".to_string(), 5),
                ("进".to_string(), 7),
                ("度".to_string(), 8),
                ("度".to_string(), 10),
            ]
        );
        assert!(cjk("plain ascii").is_empty());
        // A mark folded away leaves the characters touching, as in the folded text.
        assert_eq!(
            cjk("大\u{301}别").iter().map(|t| t.1).collect::<Vec<_>>(),
            [0, 1]
        );
    }
}
