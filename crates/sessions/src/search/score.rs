//! Matching a query against one session and scoring it. One function for every agent (and for
//! the index, which keeps `Stats` per session): BM25 term saturation and inverse document
//! frequency over the whole search, computed per field and weighted by where the hit is
//! (`Field`), phrases weighted by their length, an implicit-AND query's words found side by side
//! rewarded. The engine then blends in recency (`recency`) and ranks by coverage (`Stats::terms`).
use rayon::prelude::*;
use std::collections::HashSet;

use crate::query::caseless::Caseless;
use crate::query::parse::{Leaf, Query};
use crate::query::prefilter::{folds_in_place, Prefilter};
use crate::query::snippet;

use crate::model::{Message, Session, Timestamp};
use crate::query::fields::{answered, for_each_field, Field, FieldCounts, LeafCounts, FIELDS};
pub use crate::query::parse::adjacency_leaf;
use crate::query::text::{folds_differently, is_cjk, is_token_char, Folded};

const K1: f64 = 1.2;
const B: f64 = 0.75;
const ADJACENT_BONUS: f64 = 0.5;

/// A field's weight is the ranking's: it stays with the scoring.
impl Field {
    /// The weight of a fully saturated hit here, relative to the conversation's (docs/search.md).
    pub fn weight(self) -> f64 {
        match self {
            Field::Title => 3.0,
            Field::Conversation => 1.0,
            Field::Thinking => 0.5,
            Field::ToolInput => 0.3,
            Field::ToolOutput => 0.2,
        }
    }
}

/// What one session holds for the query, before corpus statistics are known. Everything here
/// comes from the session model, so the index can keep it and score again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Occurrences per leaf, per field.
    pub tf: LeafCounts,
    /// Occurrences of an implicit-AND query's words side by side, in order.
    pub adjacent_tf: u32,
    /// Bytes of searchable text per field (field lengths). Bytes rather than tokens: CJK text
    /// forms no word tokens but is as much text.
    pub lengths: [u64; FIELDS],
    pub snippet: Option<String>,
}

impl Stats {
    pub fn has(&self, leaf: usize) -> bool {
        self.tf[leaf].iter().any(|&n| n > 0)
    }

    pub fn matches(&self, q: &Query) -> bool {
        q.eval(&|l| self.has(l))
    }

    /// Occurrences of `leaf` in every field.
    fn occurrences(&self, leaf: usize) -> u64 {
        self.tf[leaf].iter().map(|&n| n as u64).sum()
    }

    /// Hits of the leaves that count (NOT-ed ones do not); each occurrence once.
    pub fn match_count(&self, q: &Query) -> u64 {
        (0..q.leaves.len())
            .filter(|&l| q.positive[l])
            .map(|l| self.occurrences(l))
            .sum()
    }

    /// Coverage: how many of the leaves that count occur (`a OR b OR c` finding all three ranks
    /// above finding one, whatever the frequencies).
    pub fn terms(&self, q: &Query) -> usize {
        (0..q.leaves.len())
            .filter(|&l| q.positive[l] && self.has(l))
            .count()
    }

    /// Bytes of searchable text in the session.
    pub fn length(&self) -> u64 {
        self.lengths.iter().sum()
    }
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

/// A place a term occurs in a text: its byte range and the query leaf it matches.
type Occurrence = (usize, usize, usize);

/// Snippet windows span at most this many bytes, first hit to last, so that a window fits in
/// the snippet after its lead-in.
const WINDOW: usize = 120;

/// What makes one field's passage a better snippet than another's: most distinct leaves in its
/// densest window, then conversation over thinking over tools, then the tighter window, then
/// more hits. Equal passages: the earlier one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PassageKey {
    distinct: usize,
    field: Field,
    /// Of the densest window, when it holds more than one leaf (else 0).
    span: usize,
    hits: usize,
}

impl PassageKey {
    fn beats(&self, other: &PassageKey) -> bool {
        use std::cmp::Reverse;
        let key = |k: &PassageKey| (k.distinct, Reverse(k.field), Reverse(k.span), k.hits);
        key(self) > key(other)
    }
}

/// A candidate snippet: its field's text, hit ranges (original bytes, sorted, merged) and where
/// its densest window starts.
struct Passage {
    key: PassageKey,
    text: String,
    ranges: Vec<(usize, usize)>,
    from: usize,
}

/// The densest window of a field's hits, sorted by start: most distinct leaves, then shortest,
/// then first. Returns (distinct leaves, span, start).
fn densest_window(hits: &[Occurrence], leaves: usize) -> (usize, usize, usize) {
    let mut count = vec![0u32; leaves];
    let mut distinct = 0;
    let mut first = 0;
    let mut best = (0, usize::MAX, 0);
    for (j, &(_, end, leaf)) in hits.iter().enumerate() {
        if count[leaf] == 0 {
            distinct += 1;
        }
        count[leaf] += 1;
        // Drop hits on the left while the window is too wide or their leaf recurs further on.
        while first < j {
            let (start, _, l) = hits[first];
            if end - start <= WINDOW && count[l] == 1 {
                break;
            }
            count[l] -= 1;
            if count[l] == 0 {
                distinct -= 1;
            }
            first += 1;
        }
        let span = end - hits[first].0;
        if distinct > best.0 || (distinct == best.0 && span < best.1) {
            best = (distinct, span, hits[first].0);
        }
    }
    best
}

/// The body part of `Stats` for a run of messages, with its best passage.
struct Body {
    tf: LeafCounts,
    adjacent: u32,
    lengths: [u64; FIELDS],
    best: Option<Passage>,
}

impl Body {
    /// Sums, and the better passage (`self`'s on a tie: it comes first).
    fn merge(mut self, other: Body) -> Body {
        for (a, b) in self.tf.iter_mut().zip(&other.tf) {
            for (a, b) in a.iter_mut().zip(b) {
                *a += b;
            }
        }
        self.adjacent += other.adjacent;
        for (a, b) in self.lengths.iter_mut().zip(other.lengths) {
            *a += b;
        }
        if let Some(o) = other.best {
            if self.best.as_ref().is_none_or(|b| o.key.beats(&b.key)) {
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
    /// Matching on the original text only where folding leaves it as written (`for_snippets`).
    direct_in_place_only: bool,
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
            direct_in_place_only: false,
        }
    }

    /// For snippets and counts of leaves alone, not of words side by side (the index counts
    /// those): an implicit AND of words is matched on the original text too, where folding leaves
    /// it as written but for ASCII case (`prefilter::folds_in_place`: there the folded text has
    /// the same bytes and offsets, so hits, windows and passages are the same), rather than
    /// folded and tokenised.
    pub fn for_snippets(q: &'a Query, pf: &'a Prefilter) -> Matcher<'a> {
        match adjacency_leaf(q) {
            None => Matcher::new(q, pf),
            Some(_) => Matcher {
                adjacency: None,
                direct: Direct::new(q),
                direct_in_place_only: true,
                ..Matcher::new(q, pf)
            },
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

/// Matching on the original text, for queries made only of single ASCII words and of CJK text
/// (the common cases): no folded copy of the field. Fields where folding could change the
/// outcome, or a word boundary takes folding to tell, go the folded way.
struct Direct {
    finder: Caseless,
    /// For each pattern, the leaves it stands for and whether each is a prefix.
    serves: Vec<Vec<(usize, bool)>>,
    /// For each pattern, whether it is CJK text (matched anywhere, without overlaps, as
    /// `str::match_indices` counts) rather than a word.
    cjk: Vec<bool>,
}

/// Per field: occurrences per leaf, hits (positive leaves), positive leaves hit.
type FieldHits = (Vec<u32>, Vec<Occurrence>, usize);

impl Direct {
    fn new(q: &Query) -> Option<Direct> {
        let mut patterns: Vec<&str> = Vec::new();
        let mut serves: Vec<Vec<(usize, bool)>> = Vec::new();
        let mut cjk = Vec::new();
        for (l, leaf) in q.leaves.iter().enumerate() {
            let (t, prefix, is_cjk_text) = match leaf {
                Leaf::Words { tokens, prefix } => match tokens.as_slice() {
                    [t] if t.is_ascii() => (t, *prefix, false),
                    _ => return None,
                },
                // CJK characters neither fold nor form words: where nothing folds into a
                // needle's character (`Prefilter::folding_may_matter`), the folded text holds
                // the same runs of them as the original.
                Leaf::Substring(s) if s.chars().all(is_cjk) => (s, false, true),
                Leaf::Substring(_) => return None,
            };
            let k = match patterns.iter().position(|p| p == t) {
                Some(k) => k,
                None => {
                    patterns.push(t);
                    serves.push(Vec::new());
                    cjk.push(is_cjk_text);
                    patterns.len() - 1
                }
            };
            serves[k].push((l, prefix));
        }
        let finder = Caseless::new(&patterns)?;
        Some(Direct {
            finder,
            serves,
            cjk,
        })
    }

    fn field(&self, q: &Query, pf: &Prefilter, text: &str) -> Option<FieldHits> {
        if pf.folding_may_matter(text) {
            return None;
        }
        let mut tf = vec![0u32; q.leaves.len()];
        let mut hits = Vec::new();
        // Matches of CJK patterns, overlapping ones included: counted once all are found.
        let mut cjk: Vec<(usize, usize, usize)> = Vec::new();
        // A boundary only folding can tell sends the whole field the folded way.
        let mut unclear = false;
        self.finder.each(text.as_bytes(), |m| {
            if self.cjk[m.needle] {
                cjk.push((m.needle, m.start, m.end));
                return true;
            }
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
                    hits.push((m.start, end, l));
                }
            }
            true
        });
        if unclear {
            return None;
        }
        // Per pattern, leftmost first, each match past the end of the one kept before it.
        cjk.sort_unstable();
        let mut kept_to: Option<(usize, usize)> = None;
        for (k, s, e) in cjk {
            if kept_to.is_some_and(|(pk, end)| pk == k && s < end) {
                continue;
            }
            kept_to = Some((k, e));
            for &(l, _) in &self.serves[k] {
                tf[l] += 1;
                if q.positive[l] {
                    hits.push((s, e, l));
                }
            }
        }
        let distinct = positive_leaves_hit(q, &tf);
        Some((tf, hits, distinct))
    }
}

/// The folded way for one field: occurrences per leaf, hits in the folded text (positive
/// leaves), positive leaves hit.
fn folded_hits(q: &Query, f: &Folded) -> FieldHits {
    let mut tf = vec![0u32; q.leaves.len()];
    let mut hits = Vec::new();
    for (l, leaf) in q.leaves.iter().enumerate() {
        let occ = occurrences(leaf, f);
        tf[l] = occ.len() as u32;
        if q.positive[l] {
            hits.extend(occ.into_iter().map(|(s, e)| (s, e, l)));
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
    /// Only the texts of this field are looked at (`snippet`): the counts are then not the
    /// session's.
    only: Option<Field>,
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
    let mut lengths = [0; FIELDS];
    // Text the read left out (`Matcher::needle_free`, tool outputs) is measured, never matched.
    lengths[Field::ToolOutput as usize] = messages.iter().map(|m| m.elided).sum();
    let mut body = Body {
        tf: smallvec::smallvec![[0; FIELDS]; q.leaves.len()],
        adjacent: 0,
        lengths,
        best: None,
    };
    // The previous text's length, occurrences and side-by-side pairs, for its copy.
    let mut previous = (0u64, vec![0u32; q.leaves.len()], 0u32);
    let mut scratch = String::new();
    for_each_field(
        messages,
        &a.answered,
        &mut scratch,
        &mut |field, text, copy| {
            if a.only.is_some_and(|only| only != field) {
                return;
            }
            let k = field as usize;
            let len = text.len() as u64;
            let beyond = |n: u64, seen: u64| copy.beyond(n, seen);
            body.lengths[k] += beyond(len, previous.0);
            previous.0 = len;
            // Direct matching is one pass and, without a hit, finds nothing to count. Otherwise
            // most fields hold no needle at all: nothing to fold or count there.
            let direct = (a.m.direct.as_ref())
                .filter(|_| !a.m.direct_in_place_only || folds_in_place(text))
                .and_then(|d| d.field(q, pf, text));
            if direct.is_none() && a.m.needle_free(text) {
                previous.1.fill(0);
                previous.2 = 0;
                return;
            }
            let folded = direct.is_none().then(|| Folded::new(text));
            let mut adjacent = 0;
            let (tf, mut hits, distinct) = match (direct, &folded) {
                (Some(found), _) => found,
                (None, Some(f)) => {
                    if let Some(a) = adjacency {
                        adjacent = occurrences(a, f).len() as u32;
                    }
                    folded_hits(q, f)
                }
                (None, None) => unreachable!("folded when not direct"),
            };
            body.adjacent += beyond(adjacent as u64, previous.2 as u64) as u32;
            for (l, &n) in tf.iter().enumerate() {
                body.tf[l][k] += beyond(n as u64, previous.1[l] as u64) as u32;
            }
            previous.1 = tf;
            previous.2 = adjacent;
            if distinct == 0 {
                return;
            }
            hits.sort_unstable();
            let (distinct, span, from) = densest_window(&hits, q.leaves.len());
            let key = PassageKey {
                distinct,
                field,
                span: if distinct > 1 { span } else { 0 },
                hits: hits.len(),
            };
            if body.best.as_ref().is_some_and(|b| !key.beats(&b.key)) {
                return;
            }
            let ranges = hits.iter().map(|&(s, e, _)| (s, e)).collect();
            let (ranges, from) = match &folded {
                Some(f) => (
                    to_original(f, text, ranges),
                    f.original_offset(from, text.len()),
                ),
                None => (merge(ranges), from),
            };
            body.best = Some(Passage {
                key,
                text: text.to_string(),
                ranges,
                from,
            });
        },
    );
    body
}

/// What a session holds for `q` (whether it matches: `Stats::matches`). The snippet is made only
/// for a match. Fields the search's prefilter rules out are only measured.
pub fn analyse(m: &Matcher, s: &Session) -> Stats {
    let q = m.q;
    let a = Analysis {
        m,
        answered: answered(&s.messages),
        only: None,
    };
    let body = analyse_body(&a, &s.messages);
    let title = Folded::new(&s.summary.title);
    let (title_tf, title_hits, _) = folded_hits(q, &title);
    let mut st = Stats {
        tf: body.tf,
        adjacent_tf: body.adjacent,
        lengths: body.lengths,
        snippet: None,
    };
    let t = Field::Title as usize;
    for (counts, n) in st.tf.iter_mut().zip(title_tf) {
        counts[t] = n;
    }
    st.lengths[t] = s.summary.title.len() as u64;
    if !st.matches(q) {
        return st;
    }
    st.snippet = match body.best {
        Some(p) => Some(snippet::make_redacted(&p.text, &p.ranges, p.from, q.redact)),
        None => title_snippet_of(q, &title, &s.summary.title, title_hits),
    };
    st
}

/// The one body field whose texts hold the snippet of a session that matches `q` with these
/// counts (occurrences per leaf and field), when the counts tell it: a query with one leaf that
/// counts makes every passage with a hit hold that leaf alone, so the snippet is in the first
/// field (conversation, thinking, tool inputs, tool outputs: `PassageKey`) that holds it. (A
/// copy of a text holds no hit its text does not, and that text's field comes first.)
pub fn snippet_field(q: &Query, tf: &[FieldCounts]) -> Option<Field> {
    let mut positive = (0..q.leaves.len()).filter(|&l| q.positive[l]);
    let (Some(leaf), None) = (positive.next(), positive.next()) else {
        return None;
    };
    (Field::ALL.into_iter())
        .filter(|&f| f != Field::Title)
        .find(|&f| tf[leaf][f as usize] > 0)
}

/// The snippet of a session known to match `q`, as `analyse` makes it, looking only at the texts
/// of `field` when given (`snippet_field`: the snippet is there).
pub fn snippet(m: &Matcher, s: &Session, field: Option<Field>) -> Option<String> {
    let Some(only) = field else {
        return analyse(m, s).snippet;
    };
    let a = Analysis {
        m,
        answered: answered(&s.messages),
        only: Some(only),
    };
    match analyse_body(&a, &s.messages).best {
        Some(p) => Some(snippet::make_redacted(
            &p.text, &p.ranges, p.from, m.q.redact,
        )),
        None => title_snippet(m.q, &s.summary.title),
    }
}

/// The snippet of a session found by its title alone: the title, its hits marked.
pub fn title_snippet(q: &Query, title: &str) -> Option<String> {
    let folded = Folded::new(title);
    let (_, hits, _) = folded_hits(q, &folded);
    title_snippet_of(q, &folded, title, hits)
}

fn title_snippet_of(
    q: &Query,
    folded: &Folded,
    title: &str,
    hits: Vec<(usize, usize, usize)>,
) -> Option<String> {
    if hits.is_empty() {
        return None;
    }
    let ranges = hits.iter().map(|&(s, e, _)| (s, e)).collect();
    let ranges = to_original(folded, title, ranges);
    let from = ranges.first().map_or(0, |r| r.0);
    Some(snippet::make_redacted(title, &ranges, from, q.redact))
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
    /// Bytes per field over the measured (parsed) documents.
    pub total_lengths: [u64; FIELDS],
    pub measured: u64,
}

impl Corpus {
    fn idf(&self, leaf: usize) -> f64 {
        let n = self.docs.max(1) as f64;
        let df = self.df[leaf].min(self.docs) as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Average length of the given bytes per measured document.
    fn avg(&self, total: u64) -> f64 {
        if self.measured == 0 {
            1.0
        } else {
            (total as f64 / self.measured as f64).max(1.0)
        }
    }

    /// The raw (unnormalised) text score of a matching session: per leaf and field, BM25
    /// saturation against that field's length, times the field's weight.
    pub fn score(&self, q: &Query, st: &Stats) -> f64 {
        let (base, side_by_side) = self.score_parts(q, st);
        base + side_by_side.map_or(0.0, |b| b.value(st.adjacent_tf))
    }

    /// The least and the most `score` can be for a session whose side-by-side count is not
    /// known yet (`later`; its `adjacent_tf` 0): without the bonus, and with every occurrence
    /// of its rarest word in the body side by side (each run holds one occurrence of every
    /// word, and the title is not searched for runs). Known: its score, twice.
    pub fn bounds(&self, q: &Query, st: &Stats, later: bool) -> (f64, f64) {
        let (base, bonus) = self.score_parts(q, st);
        let exact = base + bonus.map_or(0.0, |b| b.value(st.adjacent_tf));
        let Some(bonus) = bonus.filter(|_| later) else {
            return (exact, exact);
        };
        let body = |l: usize| -> u32 {
            (Field::ALL.iter())
                .filter(|&&f| f != Field::Title)
                .map(|&f| st.tf[l][f as usize])
                .sum()
        };
        let most = (0..q.leaves.len())
            .filter(|&l| q.positive[l])
            .map(body)
            .min()
            .unwrap_or(0);
        (exact, base + bonus.value(most))
    }

    /// The score without the side-by-side bonus, and what that bonus is made of, for an
    /// implicit-AND query of words.
    fn score_parts(&self, q: &Query, st: &Stats) -> (f64, Option<Bonus>) {
        let norms = Field::ALL.map(|f| {
            let k = f as usize;
            self.norm(st.lengths[k], self.total_lengths[k])
        });
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
            for f in Field::ALL {
                let n = st.tf[l][f as usize];
                if n > 0 {
                    score += weight * f.weight() * sat(n as f64, norms[f as usize]);
                }
            }
        }
        let bonus = adjacency_leaf(q).map(|_| Bonus {
            weight: adjacent_weight,
            norm: self.norm(st.length(), self.total_lengths.iter().sum()),
        });
        (score, bonus)
    }

    fn norm(&self, len: u64, total: u64) -> f64 {
        K1 * (1.0 - B + B * len as f64 / self.avg(total))
    }
}

/// BM25 term-frequency saturation.
fn sat(tf: f64, norm: f64) -> f64 {
    tf * (K1 + 1.0) / (tf + norm)
}

/// The side-by-side bonus of one session, once its count is known.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Bonus {
    weight: f64,
    norm: f64,
}

impl Bonus {
    /// The bonus for `adjacent` occurrences of the words side by side (increasing in it).
    fn value(&self, adjacent: u32) -> f64 {
        if adjacent == 0 {
            return 0.0;
        }
        ADJACENT_BONUS * self.weight * sat(adjacent as f64, self.norm)
    }
}

/// Half-life of the recency decay, in days (docs/search.md).
pub const HALF_LIFE_DAYS: f64 = 90.0;

/// The part of a score that does not decay with age, so that a clearly stronger old match still
/// beats a passing mention last week, while a much newer session beats a slightly stronger one.
pub const TIMELESS: f64 = 0.5;

/// The factor a session's score is multiplied by for its age at `now`: 1 when new, halfway to
/// `TIMELESS` after `HALF_LIFE_DAYS`. A session dated after `now` counts as new.
pub fn recency(updated: Timestamp, now: Timestamp) -> f64 {
    let days = (now - updated).num_seconds().max(0) as f64 / 86_400.0;
    TIMELESS + (1.0 - TIMELESS) * 0.5f64.powf(days / HALF_LIFE_DAYS)
}

/// The messages of `messages` that hold a hit of a leaf that counts (as `analyse` finds them, a
/// call's output counted at the tool message that carries it): each one's index and its best
/// passage as a snippet. The title is not a message and is not looked at.
pub fn message_hits(m: &Matcher, messages: &[Message]) -> Vec<(usize, String)> {
    let a = Analysis {
        m,
        answered: answered(messages),
        only: None,
    };
    let q = m.q;
    (0..messages.len())
        .into_par_iter()
        .filter_map(|i| {
            let body = analyse_body(&a, std::slice::from_ref(&messages[i]));
            let hit =
                (0..q.leaves.len()).any(|l| q.positive[l] && body.tf[l].iter().any(|&n| n > 0));
            let snippet = body
                .best
                .map(|p| snippet::make_redacted(&p.text, &p.ranges, p.from, q.redact));
            hit.then(|| (i, snippet.unwrap_or_default()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folded way for one field: occurrences per leaf, merged original ranges, distinct.
    fn by_folding(q: &Query, text: &str) -> (Vec<u32>, Vec<(usize, usize)>, usize) {
        let f = Folded::new(text);
        let (tf, hits, distinct) = folded_hits(q, &f);
        (tf, to_original(&f, text, ranges(&hits)), distinct)
    }

    fn ranges(hits: &[Occurrence]) -> Vec<(usize, usize)> {
        hits.iter().map(|&(s, e, _)| (s, e)).collect()
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
            "大别山 大别山大别山 山山山 大\u{301}别山 大别大别山山, 別山 borrow大别山",
            "帮我总结一下大别山徒步路线 Ünïcode 大别山 café kubernetes",
        ];
        let queries = [
            "borrow",
            "kubernetes",
            "kube*",
            "borrow OR kubernetes",
            "borrow NOT kube",
            "cafe",
            "istanbul",
            "大别山",
            "山山",
            "大别 OR 别山",
            "大别山 OR borrow",
            "kube* NOT 大别山",
        ];
        let mut direct_used = 0;
        for qs in queries {
            let q = Query::parse(qs).unwrap();
            let pf = Prefilter::new(&q);
            let m = Matcher::new(&q, &pf);
            let d = m
                .direct
                .as_ref()
                .expect("single-word and CJK queries go direct");
            for text in texts {
                let want = by_folding(&q, text);
                if let Some((tf, hits, distinct)) = d.field(&q, &pf, text) {
                    direct_used += 1;
                    assert_eq!(
                        (tf, merge(ranges(&hits)), distinct),
                        want,
                        "{qs:?} in {text:?}"
                    );
                }
            }
        }
        // Most pairs are decided on the original text; the rest fell back to folding.
        assert!(direct_used >= 40, "{direct_used}");
    }

    #[test]
    fn phrases_word_pairs_and_mixed_cjk_are_matched_folded() {
        for qs in ["\"docker compose\"", "docker compose", "大别山abc"] {
            let q = Query::parse(qs).unwrap();
            let pf = Prefilter::new(&q);
            assert!(Matcher::new(&q, &pf).direct.is_none(), "{qs}");
        }
    }

    /// Words side by side are matched for snippets on the text as written where folding leaves
    /// it so, ASCII or not, and the snippets are the folded analysis's.
    #[test]
    fn snippets_of_words_side_by_side_match_text_that_folds_in_place() {
        use crate::model::{Role, SessionSummary};
        let session = |texts: &[&str]| Session {
            summary: SessionSummary::new("claude", "s", Timestamp::default(), Timestamp::default()),
            messages: texts.iter().map(|t| Message::new(Role::User, *t)).collect(),
            raw: None,
        };
        let sessions = [
            session(&[
                "✓ function returned",
                "  ✓ Function error → 大别山 (149 ms)",
            ]),
            session(&["✓ error first, then a function", "plain function error"]),
            session(&["café function ✓ error", "→ function error ✓ function error"]),
            session(&["function→error ✓", "FUNCTION ✓ ERROR"]),
        ];
        let mut compared = 0;
        for qs in ["function error", "error function", "function error 大别山"] {
            let q = Query::parse(qs).unwrap();
            let pf = Prefilter::new(&q);
            let (reference, m) = (Matcher::exhaustive(&q, &pf), Matcher::for_snippets(&q, &pf));
            for s in &sessions {
                let want = analyse(&reference, s).snippet;
                assert_eq!(snippet(&m, s, None), want, "{qs}");
                compared += want.is_some() as usize;
            }
        }
        assert_eq!(compared, 9);
    }

    /// A call's output is left to the tool message that answers it, but a result with no call
    /// id stands for no call: an unnamed call keeps its own output searchable.
    #[test]
    fn an_unnamed_result_answers_no_call() {
        use crate::model::{Message, Role, ToolCall, ToolResult};
        let call = |id: &str, output: &str| ToolCall {
            tool_call_id: id.into(),
            tool_name: "bash".into(),
            input: serde_json::json!({}),
            output: Some(serde_json::json!(output)),
            duration_ms: None,
            output_at_result: false,
        };
        let result = |id: &str, output: &str| {
            let mut m = Message::new(Role::Tool, "");
            m.tool_result = Some(ToolResult {
                tool_call_id: id.into(),
                tool_name: "bash".into(),
                output: serde_json::json!(output),
            });
            m
        };
        let mut asked = Message::new(Role::Assistant, "");
        asked.tool_calls = vec![call("", "zebra"), call("c1", "okapi")];
        let messages = vec![asked, result("", "lynx"), result("c1", "okapi")];
        let mut outputs = Vec::new();
        for_each_field(
            &messages,
            &answered(&messages),
            &mut String::new(),
            &mut |field, text, _| {
                if field == Field::ToolOutput {
                    outputs.push(text.to_string());
                }
            },
        );
        assert_eq!(outputs, [" zebra", "bash lynx", "bash okapi"]);
    }
}
