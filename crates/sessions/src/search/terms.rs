//! A session's statistics for every one-word query at once: what the index keeps so that a
//! search of words needs no session read to know which sessions match and how they score.
//!
//! Counted exactly as `score::analyse` counts a one-word leaf (the same texts, fields, folding
//! and copies), so `Stats` assembled from these equal the analysis's, whatever the word.
use std::collections::HashMap;

use super::score::{answered, for_each_field, Field, FieldCounts, FIELDS};
use crate::model::Session;
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
    let mut st = TermStats::default();
    st.lengths[Field::ToolOutput as usize] = s.messages.iter().map(|m| m.elided).sum();
    let answered = answered(&s.messages);
    let mut scratch = String::new();
    // The previous text's length and counts, for its copy.
    let mut previous: (u64, HashMap<String, u32>) = (0, HashMap::new());
    for_each_field(
        &s.messages,
        &answered,
        &mut scratch,
        &mut |field, text, copy| {
            let k = field as usize;
            let len = text.len() as u64;
            st.lengths[k] += copy.beyond(len, previous.0);
            let now = folded_counts(text);
            for (t, &n) in &now {
                let seen = previous.1.get(t).copied().unwrap_or(0);
                let c = st.terms.entry(t.clone()).or_default();
                c.tf[k] += copy.beyond(n as u64, seen as u64) as u32;
                c.body += n;
            }
            previous = (len, now);
        },
    );
    let t = Field::Title as usize;
    st.lengths[t] = s.summary.title.len() as u64;
    for (token, n) in folded_counts(&s.summary.title) {
        st.terms.entry(token).or_default().tf[t] += n;
    }
    st
}

/// Occurrences of each token and each CJK character of `text`, folded.
fn folded_counts(text: &str) -> HashMap<String, u32> {
    let f = Folded::new(text);
    let mut out: HashMap<String, u32> = HashMap::new();
    for i in 0..f.tokens.len() {
        bump(&mut out, f.token(i));
    }
    if !text.is_ascii() {
        let mut buf = [0u8; 4];
        for c in f.text.chars().filter(|&c| is_cjk(c)) {
            bump(&mut out, c.encode_utf8(&mut buf));
        }
    }
    out
}

fn bump(out: &mut HashMap<String, u32>, key: &str) {
    match out.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            out.insert(key.to_string(), 1);
        }
    }
}
