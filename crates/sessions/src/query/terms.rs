//! A session's statistics for every one-word query at once: what the index keeps so that a
//! search of words needs no session read to know which sessions match and how they score.
//!
//! Counted exactly as search's analysis (`search::score::analyse`) counts a one-word leaf (the same texts, fields, folding
//! and copies), so `Stats` assembled from these equal the analysis's, whatever the word.
use rustc_hash::FxHashMap as HashMap;
use std::collections::HashSet;

use super::fields::{answered, for_each_field, Field, FieldCounts, TextKind, FIELDS};
use super::text::{is_cjk, Folded};
use crate::model::{Message, Session};

/// How one token occurs in a session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TermCount {
    /// Occurrences per field, as the analysis counts a one-word leaf.
    pub tf: FieldCounts,
    /// Occurrences in the message texts, each text counted whole (copies too): no two words
    /// can stand side by side more often than the rarer of them occurs here.
    pub body: u32,
}

/// A session's field lengths and the counts of every token of its folded text. CJK characters,
/// which form no tokens, are kept too (with their counts), so that a substring query can tell
/// which sessions may hold it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermStats {
    pub lengths: [u64; FIELDS],
    pub terms: Terms,
}

/// Counts per token (and CJK character).
pub type Terms = hashbrown::HashMap<String, TermCount, rustc_hash::FxBuildHasher>;

/// Every count `analyse` would find for any one-word query, and the field lengths.
pub fn term_stats(s: &Session) -> TermStats {
    TermStats::of(&s.messages, &s.summary.title)
}

impl TermStats {
    /// The counts and lengths of a session's messages and title.
    pub fn of(messages: &[Message], title: &str) -> TermStats {
        let mut st = TermStats::default();
        st.add_messages(messages, &answered(messages));
        st.add_title(title);
        st
    }

    /// Add the counts and lengths of `messages`, as `term_stats` counts them in a session whose
    /// answered calls are `answered`. A message's counts depend on nothing else (a copy is
    /// always of its own message's content), so a session's are the sum of its messages'.
    pub fn add_messages(&mut self, messages: &[Message], answered: &HashSet<&str>) {
        self.lengths[Field::ToolOutput as usize] += messages.iter().map(|m| m.elided).sum::<u64>();
        let mut scratch = String::new();
        // The previous text, for its copy, and its folding when it was made.
        let mut previous_text = String::new();
        let mut previous: Option<Folded> = None;
        for_each_field(
            messages,
            answered,
            &mut scratch,
            &mut |field, text, copy| {
                let k = field as usize;
                let len = text.len() as u64;
                self.lengths[k] += copy.beyond(len, previous_text.len() as u64);
                let folded = match copy {
                    TextKind::Own => {
                        let f = Folded::new(text);
                        self.add_text(k, &f);
                        Some(f)
                    }
                    TextKind::CopyOfPrevious => {
                        let before = previous.get_or_insert_with(|| Folded::new(&previous_text));
                        match copy_head(text, &previous_text) {
                            Some(head) => {
                                self.add_copy_after(k, head, before);
                                None
                            }
                            None => Some(self.add_copy(k, text, before)),
                        }
                    }
                };
                previous = folded;
                previous_text.clear();
                previous_text.push_str(text);
            },
        );
    }

    /// Count a text of its own, in field `k`.
    fn add_text(&mut self, k: usize, f: &Folded) {
        each_term(f, |t| {
            let c = entry(&mut self.terms, t);
            c.tf[k] += 1;
            c.body += 1;
        });
    }

    /// Count `text`, a copy of the text folded as `before`: in field `k` only what it holds
    /// beyond that text, in the body all of it.
    fn add_copy(&mut self, k: usize, text: &str, before: &Folded) -> Folded {
        let f = Folded::new(text);
        let seen = counts(before);
        for (t, n) in counts(&f) {
            let c = entry(&mut self.terms, t);
            let s = seen.get(t).copied().unwrap_or(0);
            c.tf[k] += TextKind::CopyOfPrevious.beyond(n as u64, s as u64) as u32;
            c.body += n;
        }
        f
    }

    /// `add_copy` of a text that is `head`, a space, then the text folded as `before`: its terms
    /// are head's and that text's (`copy_head`), so head's are all it holds beyond it. The common
    /// case (a tool's output that is also its message's content): read once more, not twice.
    fn add_copy_after(&mut self, k: usize, head: &str, before: &Folded) {
        self.add_text(k, &Folded::new(head));
        each_term(before, |t| entry(&mut self.terms, t).body += 1);
    }

    /// Add the counts and length of a session's title.
    pub fn add_title(&mut self, title: &str) {
        let t = Field::Title as usize;
        self.lengths[t] += title.len() as u64;
        each_term(&Folded::new(title), |token| {
            entry(&mut self.terms, token).tf[t] += 1
        });
    }
}

impl TermCount {
    /// `self + add - sub`; `None` when `sub` is more than `self + add` holds.
    pub fn adjusted(&self, add: &TermCount, sub: &TermCount) -> Option<TermCount> {
        let step = |have: u32, a: u32, s: u32| have.checked_add(a)?.checked_sub(s);
        let mut out = TermCount::default();
        for k in 0..FIELDS {
            out.tf[k] = step(self.tf[k], add.tf[k], sub.tf[k])?;
        }
        out.body = step(self.body, add.body, sub.body)?;
        Some(out)
    }
}

/// Each token and each CJK character of a folded text (tokens first).
fn each_term<'a>(f: &'a Folded, mut visit: impl FnMut(&'a str)) {
    for i in 0..f.tokens.len() {
        visit(f.token(i));
    }
    if !f.text.is_ascii() {
        for (i, c) in f.text.char_indices().filter(|&(_, c)| is_cjk(c)) {
            visit(&f.text[i..i + c.len_utf8()]);
        }
    }
}

/// What `text` holds before a space and then `previous`. Tokens never span a space, and CJK
/// characters and folding go char by char, so such a text's terms are head's and previous's.
pub fn copy_head<'a>(text: &'a str, previous: &str) -> Option<&'a str> {
    let head = text.strip_suffix(previous)?.strip_suffix(' ')?;
    Some(head)
}

/// Occurrences of each token and CJK character of a folded text.
fn counts(f: &Folded) -> HashMap<&str, u32> {
    let mut out: HashMap<&str, u32> = HashMap::default();
    each_term(f, |t| *out.entry(t).or_default() += 1);
    out
}

/// The counts of `token`, made on first sight (without copying a token already seen).
fn entry<'a>(terms: &'a mut Terms, token: &str) -> &'a mut TermCount {
    terms.entry_ref(token).or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_after_a_head_counts_as_the_copy_read_whole() {
        // (previous text, text): each text is a head, a space, then the previous text.
        let cases = [
            ("Build the thing the way", "Bash Build the thing the way"),
            ("the the", "the the the"),
            ("", "Read "),
            ("ab", "a ab"),
            ("x", "xx x"),
            ("Straße ÜBER Café", "Read straße über café Straße ÜBER Café"),
            ("東京の天気 tokyo", "fetch 東京 東京の天気 tokyo"),
            ("a-b_c d.e", "tool  a-b_c d.e"),
        ];
        for (previous, text) in cases {
            let head = copy_head(text, previous).expect(text);
            let before = Folded::new(previous);
            let mut whole = TermStats::default();
            whole.add_copy(3, text, &before);
            let mut after = TermStats::default();
            after.add_copy_after(3, head, &before);
            assert_eq!(after.terms, whole.terms, "{text:?}");
            assert!(
                !whole.terms.is_empty() || text.trim().is_empty(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn only_a_space_then_the_whole_previous_text_is_a_copy_after_a_head() {
        assert_eq!(copy_head("Bash ls -la", "ls -la"), Some("Bash"));
        assert_eq!(copy_head("Bashls -la", "ls -la"), None);
        assert_eq!(copy_head("Bash ls -la", "s -la"), None);
        assert_eq!(copy_head("ls -la", "ls -la"), None);
        assert_eq!(copy_head(" ls", "ls"), Some(""));
    }
}
