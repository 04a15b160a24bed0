//! Matching a query against one session and scoring it. One function for every agent: BM25 term
//! saturation and inverse document frequency over the whole search, title hits weighted up,
//! phrases weighted by their length, an implicit-AND query's words found side by side rewarded.
use serde_json::Value;

use rayon::prelude::*;
use std::collections::HashSet;

use crate::query::caseless::Caseless;
use crate::query::parse::{Expr, Leaf, Query};
use crate::query::prefilter::Prefilter;
use crate::query::snippet;

use crate::model::{Message, Session};
use crate::query::text::{folds_differently, is_token_char, Folded};

const K1: f64 = 1.2;
const B: f64 = 0.75;
const TITLE_WEIGHT: f64 = 3.0;
const ADJACENT_BONUS: f64 = 0.5;

/// What one session holds for the query, before corpus statistics are known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Occurrences per leaf in the body and in the title.
    pub body_tf: Vec<u32>,
    pub title_tf: Vec<u32>,
    /// Occurrences of an implicit-AND query's words side by side, in order.
    pub adjacent_tf: u32,
    /// Bytes of searchable text in the session (document length). Bytes rather than tokens:
    /// CJK text forms no word tokens but is as much text.
    pub length: u64,
    pub snippet: Option<String>,
}

impl Stats {
    pub fn has(&self, leaf: usize) -> bool {
        self.body_tf[leaf] > 0 || self.title_tf[leaf] > 0
    }

    pub fn matches(&self, q: &Query) -> bool {
        q.eval(&|l| self.has(l))
    }

    /// Hits of the leaves that count (NOT-ed ones do not).
    pub fn match_count(&self, q: &Query) -> u64 {
        (0..q.leaves.len())
            .filter(|&l| q.positive[l])
            .map(|l| (self.body_tf[l] + self.title_tf[l]) as u64)
            .sum()
    }
}

/// The words of a query that is a plain AND of single words ("docker compose"): finding them
/// next to each other is worth a bonus, as a phrase would be.
pub fn adjacency_leaf(q: &Query) -> Option<Leaf> {
    let Expr::And(parts) = &q.expr else {
        return None;
    };
    let mut tokens = Vec::new();
    for p in parts {
        match p {
            Expr::Leaf(i) => match &q.leaves[*i] {
                Leaf::Words {
                    tokens: t,
                    prefix: false,
                } if t.len() == 1 => tokens.push(t[0].clone()),
                _ => return None,
            },
            _ => return None,
        }
    }
    (tokens.len() >= 2).then_some(Leaf::Words {
        tokens,
        prefix: false,
    })
}

/// Byte ranges (in `f.text`) where `leaf` occurs.
fn occurrences(leaf: &Leaf, f: &Folded) -> Vec<(usize, usize)> {
    match leaf {
        Leaf::Substring(s) => f
            .text
            .match_indices(s.as_str())
            .map(|(i, m)| (i, i + m.len()))
            .collect(),
        Leaf::Words { tokens, prefix } => {
            let n = tokens.len();
            if f.tokens.len() < n {
                return Vec::new();
            }
            let mut out = Vec::new();
            for start in 0..=f.tokens.len() - n {
                let ok = tokens.iter().enumerate().all(|(k, t)| {
                    let have = f.token(start + k);
                    if *prefix && k == n - 1 {
                        have.starts_with(t.as_str())
                    } else {
                        have == t
                    }
                });
                if ok {
                    out.push((
                        f.tokens[start].0 as usize,
                        f.tokens[start + n - 1].1 as usize,
                    ));
                }
            }
            out
        }
    }
}

/// Every searchable text of a session after its title, in order: message content, thinking,
/// tool names, inputs and outputs. A call's output that a tool message of the session also
/// carries (`answered`) is read once, there. Tool texts are assembled in `scratch`.
fn for_each_field(
    messages: &[Message],
    answered: &HashSet<&str>,
    scratch: &mut String,
    f: &mut dyn FnMut(&str),
) {
    for m in messages {
        if !m.content.is_empty() {
            f(&m.content);
        }
        if let Some(t) = m.thinking.as_deref().filter(|t| !t.is_empty()) {
            f(t);
        }
        for c in &m.tool_calls {
            scratch.clear();
            scratch.push_str(&c.tool_name);
            push_strings(&c.input, scratch);
            if let Some(o) = c
                .output
                .as_ref()
                .filter(|_| !answered.contains(&*c.tool_call_id))
            {
                push_strings(o, scratch);
            }
            f(scratch);
        }
        if let Some(r) = &m.tool_result {
            scratch.clear();
            scratch.push_str(&r.tool_name);
            push_strings(&r.output, scratch);
            f(scratch);
        }
    }
}

/// The string values (and numbers) of a JSON value, space-separated; keys are structure, not text.
fn push_strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push(' ');
            out.push_str(s);
        }
        Value::Number(n) => {
            out.push(' ');
            out.push_str(&n.to_string());
        }
        Value::Array(a) => a.iter().for_each(|v| push_strings(v, out)),
        Value::Object(m) => m.values().for_each(|v| push_strings(v, out)),
        _ => {}
    }
}

/// A candidate snippet field: distinct leaves hit, hits, its text, hit ranges in the text.
type Passage = (usize, usize, String, Vec<(usize, usize)>);

/// The body part of `Stats` for a run of messages, with its best passage.
struct Body {
    tf: Vec<u32>,
    adjacent: u32,
    length: u64,
    best: Option<Passage>,
}

impl Body {
    /// Best passage: most distinct leaves, then most hits, then earliest (`self` comes first).
    fn merge(mut self, other: Body) -> Body {
        for (a, b) in self.tf.iter_mut().zip(&other.tf) {
            *a += b;
        }
        self.adjacent += other.adjacent;
        self.length += other.length;
        if let Some(o) = other.best {
            let better = match &self.best {
                None => true,
                Some((d, h, _, _)) => (o.0, o.1) > (*d, *h),
            };
            if better {
                self.best = Some(o);
            }
        }
        self
    }
}

/// Messages per parallel part when a session is large enough to split.
const PART: usize = 512;

/// Everything one search needs to analyse sessions, built once.
pub struct Matcher<'a> {
    q: &'a Query,
    pf: &'a Prefilter,
    adjacency: Option<Leaf>,
    direct: Option<Direct>,
    /// Shortcuts (off: the reference behaviour tests compare against): skip fields the
    /// prefilter rules out, analyse huge sessions in parallel parts.
    shortcuts: bool,
}

impl<'a> Matcher<'a> {
    pub fn new(q: &'a Query, pf: &'a Prefilter) -> Matcher<'a> {
        let adjacency = adjacency_leaf(q);
        let direct = adjacency.is_none().then(|| Direct::new(q)).flatten();
        Matcher {
            q,
            pf,
            adjacency,
            direct,
            shortcuts: true,
        }
    }

    /// The reference: every field folded and matched in order, in one pass (tests check the
    /// shortcuts against it).
    pub fn exhaustive(q: &'a Query, pf: &'a Prefilter) -> Matcher<'a> {
        Matcher {
            direct: None,
            shortcuts: false,
            ..Matcher::new(q, pf)
        }
    }

    pub fn query(&self) -> &'a Query {
        self.q
    }

    pub fn prefilter(&self) -> &'a Prefilter {
        self.pf
    }

    /// May `text` be only measured, neither matched nor kept (by the analysis, or by a read that
    /// leaves it out)? When it holds no needle, no leaf occurs in it, and since needles are single
    /// tokens, neither does a phrase across it and the text beside it (adapters leave out a whole
    /// field, or the last part of one after a space). The reference analysis reads everything.
    pub fn needle_free(&self, text: &str) -> bool {
        self.shortcuts && self.pf.scan_bytes(text.as_bytes()) == 0
    }
}

/// Matching on the original text, for queries made only of single ASCII words (the common
/// case): no folded copy of the field. Fields where folding could change the outcome, or a
/// word boundary takes folding to tell, go the folded way.
struct Direct {
    finder: Caseless,
    /// For each pattern, the leaves it stands for and whether each is a prefix.
    serves: Vec<Vec<(usize, bool)>>,
}

/// Per field: occurrences per leaf, hit ranges (positive leaves), positive leaves hit.
type FieldHits = (Vec<u32>, Vec<(usize, usize)>, usize);

impl Direct {
    fn new(q: &Query) -> Option<Direct> {
        let mut patterns: Vec<&str> = Vec::new();
        let mut serves: Vec<Vec<(usize, bool)>> = Vec::new();
        for (l, leaf) in q.leaves.iter().enumerate() {
            let Leaf::Words { tokens, prefix } = leaf else {
                return None;
            };
            let [t] = tokens.as_slice() else {
                return None;
            };
            if !t.is_ascii() {
                return None;
            }
            let k = match patterns.iter().position(|p| p == t) {
                Some(k) => k,
                None => {
                    patterns.push(t);
                    serves.push(Vec::new());
                    patterns.len() - 1
                }
            };
            serves[k].push((l, *prefix));
        }
        let finder = Caseless::new(&patterns)?;
        Some(Direct { finder, serves })
    }

    fn field(&self, q: &Query, pf: &Prefilter, text: &str) -> Option<FieldHits> {
        if pf.folding_may_matter(text) {
            return None;
        }
        let mut tf = vec![0u32; q.leaves.len()];
        let mut hits = Vec::new();
        // A boundary only folding can tell sends the whole field the folded way.
        let mut unclear = false;
        self.finder.each(text.as_bytes(), |m| {
            let Some(before) = word_char_before(text, m.start) else {
                unclear = true;
                return false;
            };
            if before {
                return true;
            }
            for &(l, prefix) in &self.serves[m.needle] {
                let end = if prefix {
                    word_end(text, m.end)
                } else {
                    match word_char_after(text, m.end) {
                        Some(true) => continue,
                        Some(false) => Some(m.end),
                        None => None,
                    }
                };
                let Some(end) = end else {
                    unclear = true;
                    return false;
                };
                tf[l] += 1;
                if q.positive[l] {
                    hits.push((m.start, end));
                }
            }
            true
        });
        if unclear {
            return None;
        }
        let distinct = positive_leaves_hit(q, &tf);
        Some((tf, hits, distinct))
    }
}

/// The folded way for one field: occurrences per leaf, hit ranges in the folded text (positive
/// leaves), positive leaves hit.
fn folded_hits(q: &Query, f: &Folded) -> FieldHits {
    let mut tf = vec![0u32; q.leaves.len()];
    let mut hits = Vec::new();
    for (l, leaf) in q.leaves.iter().enumerate() {
        let occ = occurrences(leaf, f);
        tf[l] = occ.len() as u32;
        if q.positive[l] {
            hits.extend(occ);
        }
    }
    let distinct = positive_leaves_hit(q, &tf);
    (tf, hits, distinct)
}

/// How many of the leaves that count (not NOT-ed ones) occur at least once.
fn positive_leaves_hit(q: &Query, tf: &[u32]) -> usize {
    (0..tf.len())
        .filter(|&l| q.positive[l] && tf[l] > 0)
        .count()
}

/// Is `c` part of a word token? `None` when only folding can tell.
fn word_char(c: char) -> Option<bool> {
    if c.is_ascii() {
        Some(c.is_ascii_alphanumeric())
    } else if !folds_differently(c) {
        Some(is_token_char(c))
    } else {
        None
    }
}

fn word_char_before(text: &str, at: usize) -> Option<bool> {
    text[..at]
        .chars()
        .next_back()
        .map_or(Some(false), word_char)
}

fn word_char_after(text: &str, at: usize) -> Option<bool> {
    text[at..].chars().next().map_or(Some(false), word_char)
}

/// End of the word that goes on at `at`.
fn word_end(text: &str, at: usize) -> Option<usize> {
    for (i, c) in text[at..].char_indices() {
        if !word_char(c)? {
            return Some(at + i);
        }
    }
    Some(text.len())
}

struct Analysis<'a> {
    m: &'a Matcher<'a>,
    answered: HashSet<&'a str>,
}

fn analyse_body(a: &Analysis, messages: &[Message]) -> Body {
    let (q, pf, adjacency) = (a.m.q, a.m.pf, a.m.adjacency.as_ref());
    if a.m.shortcuts && messages.len() > 2 * PART {
        // One huge session would otherwise keep a single core busy while the rest wait.
        return messages
            .par_chunks(PART)
            .map(|part| analyse_body(a, part))
            .reduce_with(Body::merge)
            .expect("at least one part");
    }
    let mut body = Body {
        tf: vec![0; q.leaves.len()],
        adjacent: 0,
        // Text the read left out (`Matcher::needle_free`) is measured, never matched.
        length: messages.iter().map(|m| m.elided).sum(),
        best: None,
    };
    let mut scratch = String::new();
    for_each_field(messages, &a.answered, &mut scratch, &mut |text| {
        body.length += text.len() as u64;
        // Direct matching is one pass and, without a hit, finds nothing to count. Otherwise
        // most fields hold no needle at all: nothing to fold or count there.
        let direct = a.m.direct.as_ref().and_then(|d| d.field(q, pf, text));
        if direct.is_none() && a.m.needle_free(text) {
            return;
        }
        let folded = direct.is_none().then(|| Folded::new(text));
        let (tf, hits, distinct) = match (direct, &folded) {
            (Some(found), _) => found,
            (None, Some(f)) => {
                if let Some(a) = adjacency {
                    body.adjacent += occurrences(a, f).len() as u32;
                }
                folded_hits(q, f)
            }
            (None, None) => unreachable!("folded when not direct"),
        };
        for (sum, n) in body.tf.iter_mut().zip(&tf) {
            *sum += n;
        }
        let better = match &body.best {
            None => distinct > 0,
            Some((d, h, _, _)) => (distinct, hits.len()) > (*d, *h),
        };
        if better {
            let n = hits.len();
            let orig = match &folded {
                Some(f) => to_original(f, text, hits),
                None => merge(hits),
            };
            body.best = Some((distinct, n, text.to_string(), orig));
        }
    });
    body
}

/// What a session holds for `q` (whether it matches: `Stats::matches`). The snippet is made only
/// for a match. Fields the search's prefilter rules out are only measured.
pub fn analyse(m: &Matcher, s: &Session) -> Stats {
    let q = m.q;
    let title = Folded::new(&s.summary.title);
    let (title_tf, title_hits, _) = folded_hits(q, &title);
    let mut st = Stats {
        title_tf,
        ..Default::default()
    };
    let answered = s
        .messages
        .iter()
        .filter_map(|m| m.tool_result.as_ref())
        .map(|r| r.tool_call_id.as_str())
        .filter(|id| !id.is_empty()) // an unnamed result cannot stand for any one call
        .collect();
    let a = Analysis { m, answered };
    let body = analyse_body(&a, &s.messages);
    st.body_tf = body.tf;
    st.adjacent_tf = body.adjacent;
    st.length = s.summary.title.len() as u64 + body.length;
    if !st.matches(q) {
        return st;
    }
    st.snippet = match body.best {
        Some((_, _, text, hits)) => Some(snippet::make(&text, &hits)),
        None if !title_hits.is_empty() => {
            let hits = to_original(&title, &s.summary.title, title_hits);
            Some(snippet::make(&s.summary.title, &hits))
        }
        None => None,
    };
    st
}

/// Folded ranges to sorted, merged ranges of the original text.
fn to_original(f: &Folded, original: &str, hits: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mapped = hits
        .into_iter()
        .map(|(s, e)| {
            (
                f.original_offset(s, original.len()),
                f.original_offset(e, original.len()),
            )
        })
        .collect();
    merge(mapped)
}

/// Ranges sorted, overlapping ones merged.
fn merge(mut hits: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    hits.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (s, e) in hits {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Corpus statistics for the whole search (every agent), so scores compare across agents.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub docs: u64,
    /// Documents containing each leaf.
    pub df: Vec<u64>,
    pub total_length: u64,
    pub measured: u64,
}

impl Corpus {
    fn idf(&self, leaf: usize) -> f64 {
        let n = self.docs.max(1) as f64;
        let df = self.df[leaf].min(self.docs) as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    fn avg_length(&self) -> f64 {
        if self.measured == 0 {
            1.0
        } else {
            (self.total_length as f64 / self.measured as f64).max(1.0)
        }
    }

    /// The raw (unnormalised) score of a matching session.
    pub fn score(&self, q: &Query, st: &Stats) -> f64 {
        let norm = K1 * (1.0 - B + B * st.length as f64 / self.avg_length());
        let sat = |tf: f64| tf * (K1 + 1.0) / (tf + norm);
        let mut score = 0.0;
        let mut adjacent_weight = 0.0;
        for (l, leaf) in q.leaves.iter().enumerate() {
            if !q.positive[l] {
                continue;
            }
            let width = match leaf {
                Leaf::Words { tokens, .. } => tokens.len(),
                Leaf::Substring(s) => s.chars().count().div_ceil(2),
            } as f64;
            let weight = self.idf(l) * width;
            adjacent_weight += weight;
            let tf = st.body_tf[l] as f64 + TITLE_WEIGHT * st.title_tf[l] as f64;
            if tf > 0.0 {
                score += weight * sat(tf);
            }
        }
        if st.adjacent_tf > 0 {
            score += ADJACENT_BONUS * adjacent_weight * sat(st.adjacent_tf as f64);
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folded way for one field: occurrences per leaf, merged original ranges, distinct.
    fn by_folding(q: &Query, text: &str) -> FieldHits {
        let f = Folded::new(text);
        let (tf, hits, distinct) = folded_hits(q, &f);
        (tf, to_original(&f, text, hits), distinct)
    }

    #[test]
    fn matching_on_the_original_text_agrees_with_folding() {
        let texts = [
            "Borrow the BORROWED borrow; re-borrow (borrow)",
            "café borrow naïve résumé borrow→x 借borrow用 borrowé",
            "kubectl get pods: Kubernetes kubernetes_1 KUBERNETES-node kube",
            "bo\u{301}rrow borrow\u{301} \u{212a}ubernetes ǅ İstanbul",
            "",
            "prefix kubeadm kube kubé kube→ kube_x",
        ];
        let queries = [
            "borrow",
            "kubernetes",
            "kube*",
            "borrow OR kubernetes",
            "borrow NOT kube",
            "cafe",
            "istanbul",
        ];
        let mut direct_used = 0;
        for qs in queries {
            let q = Query::parse(qs).unwrap();
            let pf = Prefilter::new(&q);
            let m = Matcher::new(&q, &pf);
            let d = m.direct.as_ref().expect("single-word queries go direct");
            for text in texts {
                let want = by_folding(&q, text);
                if let Some((tf, hits, distinct)) = d.field(&q, &pf, text) {
                    direct_used += 1;
                    assert_eq!((tf, merge(hits), distinct), want, "{qs:?} in {text:?}");
                }
            }
        }
        // Most pairs are decided on the original text; the rest fell back to folding.
        assert!(direct_used >= 20, "{direct_used}");
    }

    #[test]
    fn phrases_cjk_and_word_pairs_are_matched_folded() {
        for qs in ["\"docker compose\"", "docker compose", "大别山"] {
            let q = Query::parse(qs).unwrap();
            let pf = Prefilter::new(&q);
            assert!(Matcher::new(&q, &pf).direct.is_none(), "{qs}");
        }
    }
}
