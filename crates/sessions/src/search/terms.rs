//! A session's statistics for every one-word query at once: what the index keeps so that a
//! search of words needs no session read to know which sessions match and how they score.
//!
//! Counted exactly as `score::analyse` counts a one-word leaf (the same texts, fields, folding
//! and copies), so `Stats` assembled from these equal the analysis's, whatever the word.
use rustc_hash::FxHashMap as HashMap;
use std::collections::HashSet;

use super::score::{answered, for_each_field, Copy, Field, FieldCounts, FIELDS};
use crate::model::{Message, Session};
use crate::query::text::{is_cjk, Folded};

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
    pub terms: HashMap<String, TermCount>,
}

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
        // The previous text, folded, for its copy (rare: only then are per-text counts needed).
        let mut previous: Option<Folded> = None;
        let mut previous_len = 0;
        for_each_field(
            messages,
            answered,
            &mut scratch,
            &mut |field, text, copy| {
                let k = field as usize;
                let len = text.len() as u64;
                self.lengths[k] += copy.beyond(len, previous_len);
                previous_len = len;
                let f = Folded::new(text);
                match copy {
                    Copy::New => each_term(&f, |t| {
                        let c = entry(&mut self.terms, t);
                        c.tf[k] += 1;
                        c.body += 1;
                    }),
                    Copy::OfPrevious => {
                        let before = previous.as_ref().map(counts).unwrap_or_default();
                        for (t, n) in counts(&f) {
                            let seen = before.get(t).copied().unwrap_or(0);
                            let c = entry(&mut self.terms, t);
                            c.tf[k] += copy.beyond(n as u64, seen as u64) as u32;
                            c.body += n;
                        }
                    }
                }
                previous = Some(f);
            },
        );
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

/// Occurrences of each token and CJK character of a folded text.
fn counts(f: &Folded) -> HashMap<&str, u32> {
    let mut out: HashMap<&str, u32> = HashMap::default();
    each_term(f, |t| *out.entry(t).or_default() += 1);
    out
}

/// The counts of `token`, made on first sight (without copying a token already seen).
fn entry<'a>(terms: &'a mut HashMap<String, TermCount>, token: &str) -> &'a mut TermCount {
    if !terms.contains_key(token) {
        terms.insert(token.to_string(), TermCount::default());
    }
    terms.get_mut(token).expect("just inserted")
}
