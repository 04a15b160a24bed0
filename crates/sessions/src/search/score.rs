//! Matching a query against one session and scoring it. One function for every agent: BM25 term
//! saturation and inverse document frequency over the whole search, title hits weighted up,
//! phrases weighted by their length, an implicit-AND query's words found side by side rewarded.
use serde_json::Value;

use super::query::{Expr, Leaf, Query};
use super::snippet;
use super::text::Folded;
use crate::model::Session;

const K1: f64 = 1.2;
const B: f64 = 0.75;
const TITLE_WEIGHT: f64 = 3.0;
const ADJACENT_BONUS: f64 = 0.5;

/// What one session holds for the query, before corpus statistics are known.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Occurrences per leaf in the body and in the title.
    pub body_tf: Vec<u32>,
    pub title_tf: Vec<u32>,
    /// Occurrences of an implicit-AND query's words side by side, in order.
    pub adjacent_tf: u32,
    /// Tokens in the session (document length).
    pub length: u32,
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

/// Every searchable text of a session after its title: message content, thinking, tool names,
/// inputs and outputs.
fn fields(s: &Session) -> Vec<String> {
    let mut out = Vec::new();
    for m in &s.messages {
        if !m.content.is_empty() {
            out.push(m.content.clone());
        }
        if let Some(t) = m.thinking.as_deref().filter(|t| !t.is_empty()) {
            out.push(t.to_string());
        }
        for c in &m.tool_calls {
            let mut t = c.tool_name.clone();
            push_strings(&c.input, &mut t);
            if let Some(o) = &c.output {
                push_strings(o, &mut t);
            }
            out.push(t);
        }
        if let Some(r) = &m.tool_result {
            let mut t = r.tool_name.clone();
            push_strings(&r.output, &mut t);
            out.push(t);
        }
    }
    out
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

/// What a session holds for `q` (whether it matches: `Stats::matches`). The snippet is made only
/// for a match.
pub fn analyse(q: &Query, adjacency: Option<&Leaf>, s: &Session) -> Stats {
    let n = q.leaves.len();
    let mut st = Stats {
        body_tf: vec![0; n],
        title_tf: vec![0; n],
        ..Default::default()
    };
    // Best passage: most distinct leaves, then most hits, then earliest.
    let mut best: Option<Passage> = None;
    let title = Folded::new(&s.summary.title);
    st.length += title.tokens.len() as u32;
    let mut title_hits = Vec::new();
    for (l, leaf) in q.leaves.iter().enumerate() {
        let occ = occurrences(leaf, &title);
        st.title_tf[l] = occ.len() as u32;
        if q.positive[l] {
            title_hits.extend(occ);
        }
    }
    for text in fields(s) {
        let f = Folded::new(&text);
        st.length += f.tokens.len() as u32;
        let mut hits = Vec::new();
        let mut distinct = 0;
        for (l, leaf) in q.leaves.iter().enumerate() {
            let occ = occurrences(leaf, &f);
            st.body_tf[l] += occ.len() as u32;
            if q.positive[l] && !occ.is_empty() {
                distinct += 1;
                hits.extend(occ);
            }
        }
        if let Some(a) = adjacency {
            st.adjacent_tf += occurrences(a, &f).len() as u32;
        }
        let better = match &best {
            None => distinct > 0,
            Some((d, h, _, _)) => (distinct, hits.len()) > (*d, *h),
        };
        if better {
            let orig: Vec<(usize, usize)> = to_original(&f, &text, hits.clone());
            best = Some((distinct, hits.len(), text, orig));
        }
    }
    if !st.matches(q) {
        return st;
    }
    st.snippet = match best {
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
fn to_original(f: &Folded, original: &str, mut hits: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    hits.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (s, e) in hits {
        let (s, e) = (
            f.original_offset(s, original.len()),
            f.original_offset(e, original.len()),
        );
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
