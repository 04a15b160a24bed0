//! Secrets redacted from a session's text before it leaves its owner: each secret becomes
//! `[REDACTED:<rule id>:<4 hex>]`, the hex from a hash of the secret, so two mentions of one
//! secret carry the same tag and the secret itself is never shown.
//!
//! The rules are gitleaks' (`gitleaks.toml`, MIT, vendored as data: `gitleaks.SOURCE` names its
//! commit, `gitleaks.LICENSE` is its licence) and ours (`additions.toml`), built once per
//! process (`rules.rs`). A text is scanned once for every rule's keywords; only the rules a
//! keyword wakes run their regex, so a text without any keyword costs that one scan; and a rule
//! whose every match holds one of its keywords runs only from just before each of them
//! (`window.rs`), with what a run over the whole text would find.
//! `apply.rs` walks the model: summaries, messages, tool calls, raw records.
use std::borrow::Cow;
use std::sync::OnceLock;

use regex_automata::util::captures::Captures;

mod apply;
mod rules;
mod window;

pub use apply::{message, raw, session, summary, value};
pub use rules::{Rules, Skipped, Target};

/// The rules, built on first use.
pub fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(Rules::build)
}

/// One secret found in a text: its byte range and the rule that found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub rule: usize,
}

/// Shannon entropy of `s`'s bytes in bits, as gitleaks measures a secret.
fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// `start..end` widened to whole characters (the regexes run on bytes).
fn chars_around(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// The line of `text` around `start..end` (an allowlist's `line` target).
fn line_around(text: &str, start: usize, end: usize) -> &str {
    let from = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let to = text[end..].find('\n').map_or(text.len(), |i| end + i);
    &text[from..to]
}

impl Rules {
    /// Whether any rule would run on `text`: one scan for the keywords.
    pub fn wakes(&self, text: &str) -> bool {
        !self.always.is_empty() || self.keywords.is_match(text)
    }

    /// Whether a finding of rule `r` is allowed by the global or the rule's allowlists.
    fn allowed(&self, r: usize, text: &str, whole: (usize, usize), secret: (usize, usize)) -> bool {
        let secret_text = &text[secret.0..secret.1];
        self.global
            .iter()
            .chain(&self.rules[r].allowlists)
            .any(|a| {
                let target = match a.target {
                    Target::Secret => secret_text,
                    Target::Match => &text[whole.0..whole.1],
                    Target::Line => line_around(text, whole.0, whole.1),
                };
                a.allows(target, secret_text)
            })
    }

    /// The secrets in `text`, sorted, none overlapping (of two that overlap, the one that starts
    /// first, the longer on a tie, is kept, grown to cover both).
    pub fn find(&self, text: &str) -> Vec<Span> {
        self.find_in(text, true)
    }

    /// `find`, each rule run over the whole text: what `find` must equal.
    #[cfg(test)]
    pub(crate) fn find_whole(&self, text: &str) -> Vec<Span> {
        self.find_in(text, false)
    }

    fn find_in(&self, text: &str, windows: bool) -> Vec<Span> {
        // Most text holds no keyword: the search that stops at the first one is quicker than
        // the one that lists them all, which then runs only on the text that holds one.
        if !self.wakes(text) {
            return Vec::new();
        }
        // (rule, start) of every keyword's every occurrence, sorted: each woken rule's places.
        let mut hits: Vec<(usize, usize)> = self.always.iter().map(|&r| (r, 0)).collect();
        for m in self.keywords.find_overlapping_iter(text) {
            for &r in &self.keyword_rules[m.pattern().as_usize()] {
                hits.push((r, m.start()));
            }
        }
        if hits.is_empty() {
            return Vec::new();
        }
        hits.sort_unstable();
        let mut found = Vec::new();
        // Rule by rule, in the rules' order: of two rules that find the same secret, the first
        // names it.
        for one_rule in hits.chunk_by(|a, b| a.0 == b.0) {
            let r = one_rule[0].0;
            let rule = &self.rules[r];
            let mut each = |caps: &Captures| {
                if let Some(span) = self.finding(r, text, caps) {
                    found.push(span);
                }
            };
            match &rule.window {
                Some(w) if windows => {
                    let places: Vec<usize> = one_rule.iter().map(|h| h.1).collect();
                    w.each_match(&rule.regex, text.as_bytes(), &places, each);
                }
                _ => {
                    for caps in rule.regex.captures_iter(text.as_bytes()) {
                        each(&caps);
                    }
                }
            }
        }
        self.merge(found)
    }

    /// The secret a match of rule `r` found, unless it is too plain or allowed.
    fn finding(&self, r: usize, text: &str, caps: &Captures) -> Option<Span> {
        let rule = &self.rules[r];
        let whole = caps.get_match()?.span();
        let group = match rule.secret_group {
            Some(g) => caps.get_group(g),
            None => (1..caps.group_len())
                .filter_map(|g| caps.get_group(g))
                .find(|m| !m.is_empty()),
        };
        let secret = group.unwrap_or(whole);
        if secret.is_empty() {
            return None;
        }
        let w = chars_around(text, whole.start, whole.end);
        let s = chars_around(text, secret.start, secret.end);
        if rule
            .entropy
            .is_some_and(|min| entropy(&text[s.0..s.1]) <= min)
        {
            return None;
        }
        if self.allowed(r, text, w, s) {
            return None;
        }
        Some(Span {
            start: s.0,
            end: s.1,
            rule: r,
        })
    }

    /// Sorted, overlaps joined; on equal ranges a named rule beats a generic one.
    fn merge(&self, mut found: Vec<Span>) -> Vec<Span> {
        let generic = |s: &Span| self.rules[s.rule].id.starts_with("generic");
        found.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end), generic(s)));
        let mut out: Vec<Span> = Vec::with_capacity(found.len());
        for s in found {
            match out.last_mut() {
                Some(last) if s.start < last.end => last.end = last.end.max(s.end),
                _ => out.push(s),
            }
        }
        out
    }

    /// The tag that stands for `secret` found by rule `r`.
    pub fn tag(&self, r: usize, secret: &str) -> String {
        let h = xxhash_rust::xxh3::xxh3_64(secret.as_bytes());
        format!("[REDACTED:{}:{:04x}]", self.rules[r].id, h & 0xffff)
    }

    /// `text` with `spans` (from `find`) replaced by their tags.
    pub fn replace(&self, text: &str, spans: &[Span]) -> String {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for s in spans {
            out.push_str(&text[at..s.start]);
            out.push_str(&self.tag(s.rule, &text[s.start..s.end]));
            at = s.end;
        }
        out.push_str(&text[at..]);
        out
    }
}

/// `text` with every secret replaced by its tag; borrowed when it holds none.
pub fn text(text: &str) -> Cow<'_, str> {
    let r = rules();
    let spans = r.find(text);
    if spans.is_empty() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(r.replace(text, &spans))
    }
}

/// Redact `s` in place; whether it changed.
pub fn in_place(s: &mut String) -> bool {
    match text(s) {
        Cow::Borrowed(_) => false,
        Cow::Owned(new) => {
            *s = new;
            true
        }
    }
}

/// `text` redacted, and `hits` (byte ranges of `text`, sorted, not overlapping) and the offset
/// `from` moved onto it: a hit inside a secret covers its tag instead, so a snippet marks the
/// tag where the query matched the secret itself.
pub fn with_ranges(
    text: &str,
    hits: &[(usize, usize)],
    from: usize,
) -> (String, Vec<(usize, usize)>, usize) {
    let r = rules();
    let spans = r.find(text);
    if spans.is_empty() {
        return (text.to_string(), hits.to_vec(), from);
    }
    let mut out = String::with_capacity(text.len());
    // (original offset, new offset) at each span's start and end, in order.
    let mut marks: Vec<(usize, usize, usize, usize)> = Vec::with_capacity(spans.len());
    let mut at = 0;
    for s in &spans {
        out.push_str(&text[at..s.start]);
        let new_start = out.len();
        out.push_str(&r.tag(s.rule, &text[s.start..s.end]));
        marks.push((s.start, s.end, new_start, out.len()));
        at = s.end;
    }
    out.push_str(&text[at..]);
    // An offset outside every secret shifts by what the secrets before it grew or shrank; one
    // inside a secret goes to the start (of a hit's start) or end (of its end) of the tag.
    let map = |x: usize, is_end: bool| -> usize {
        let mut shift: isize = 0;
        for &(os, oe, ns, ne) in &marks {
            let before = if is_end { x <= os } else { x < os };
            if before {
                break;
            }
            if x < oe {
                return if is_end { ne } else { ns };
            }
            shift = ne as isize - oe as isize;
        }
        (x as isize + shift) as usize
    };
    let mut moved: Vec<(usize, usize)> = Vec::with_capacity(hits.len());
    for &(s, e) in hits {
        let (ns, ne) = (map(s, false), map(e, true));
        if ne <= ns {
            continue;
        }
        match moved.last_mut() {
            Some(last) if ns <= last.1 => last.1 = last.1.max(ne),
            _ => moved.push((ns, ne)),
        }
    }
    let from = map(from.min(text.len()), false);
    (out, moved, from)
}

#[cfg(test)]
mod tests;
