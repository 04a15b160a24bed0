//! A query's counts from the postings: for every session that holds what the query needs
//! (ignoring its NOTs, as the corpus statistics count them), the occurrences of each leaf per
//! field, counted as the scan's analysis counts them, and for an implicit AND of words their
//! occurrences side by side. Nothing here reads a session:
//!
//! - a word: its postings' frequencies, field by field; a prefix sums every token it starts;
//! - a phrase, words side by side: their positions, one after another within one text;
//! - CJK text: its characters' positions, touching (`tokens::each_cjk`), counted as
//!   non-overlapping substrings;
//! - what positions cannot tell (CJK text with other characters, a word longer than the index
//!   keeps, a phrase in a document whose copies are irregular) leaves those sessions `unsure`:
//!   the caller reads them and analyses them as the scan does.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::io;

use tantivy::postings::TermInfo;
use tantivy::postings::{Postings, SegmentPostings};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocId, DocSet, InvertedIndexReader, Searcher, SegmentReader, TERMINATED};

pub use crate::query::fields::FieldCounts;

use super::document::IRREGULAR;
use super::tokens::LONGEST;
use super::Fields;
use crate::query::fields::{Field, LeafCounts, FIELDS};
use crate::query::parse::{adjacency_leaf, Leaf, Query};
use crate::query::text::is_cjk;

/// A session the lookup found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Its row in the SQLite file.
    pub doc: i64,
    /// `None` when only reading it can tell (see the module's comment).
    pub counts: Option<Counts>,
    /// Where it is in the postings (segment, document) when its side-by-side count was left
    /// for later (`lookup`'s `later`) and its counts hold 0: `side_by_side` tells it.
    pub adjacent_at: Option<At>,
}

/// A document's place in the postings of one searcher: its segment's ordinal and its id there.
pub type At = (u32, DocId);

/// What one session holds of a query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// Occurrences per leaf, per field.
    pub tf: LeafCounts,
    /// Occurrences of an implicit AND's words side by side, in order (`adjacency_leaf`).
    pub adjacent: u32,
}

impl Counts {
    fn matches(&self, q: &Query) -> bool {
        q.eval(&|l| self.tf[l].iter().any(|&n| n > 0))
    }
}

/// Every session of `searcher` that may satisfy `q` ignoring its NOTs, with its counts. With
/// `later`, the side-by-side counts of an implicit AND's words (read from every occurrence's
/// position, the costly part of a query of common words) are left to `side_by_side`, for the
/// sessions a ranking still needs them of.
pub fn lookup(
    searcher: &Searcher,
    fields: &Fields,
    q: &Query,
    later: bool,
) -> io::Result<Vec<Found>> {
    let mut out = Vec::new();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        Segment::new(segment, fields)?.lookup(q, ord as u32, later, &mut out)?;
    }
    Ok(out)
}

/// The side-by-side counts of an implicit AND's words in the documents `at`, in that order.
pub fn side_by_side(
    searcher: &Searcher,
    fields: &Fields,
    q: &Query,
    at: &[At],
) -> io::Result<Vec<u32>> {
    let Some(Leaf::Words { tokens, .. }) = adjacency_leaf(q) else {
        return Ok(vec![0; at.len()]);
    };
    let mut counts: HashMap<At, u32> = HashMap::default();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let docs: HashSet<DocId> = (at.iter())
            .filter(|(o, _)| *o == ord as u32)
            .map(|(_, d)| *d)
            .collect();
        if docs.is_empty() {
            continue;
        }
        let seg = Segment::new(segment, fields)?;
        for (doc, n) in seg.body_side_by_side(&tokens, &docs)? {
            counts.insert((ord as u32, doc), n);
        }
    }
    Ok(at
        .iter()
        .map(|a| counts.get(a).copied().unwrap_or(0))
        .collect())
}

/// Occurrences of one leaf in the documents of one segment that hold it.
#[derive(Default)]
struct LeafDocs {
    tf: HashMap<DocId, FieldCounts>,
    /// Documents that may hold it, counts unknown.
    unsure: HashSet<DocId>,
}

impl LeafDocs {
    fn has(&self, doc: DocId) -> bool {
        self.tf.contains_key(&doc) || self.unsure.contains(&doc)
    }
}

struct Segment<'a> {
    reader: &'a SegmentReader,
    words: Vec<std::sync::Arc<InvertedIndexReader>>,
    cjk: Vec<std::sync::Arc<InvertedIndexReader>>,
    /// Documents marked `IRREGULAR`, read once when a query needs positions.
    irregular: Option<HashSet<DocId>>,
}

/// The text and field indexes of the word fields that hold body text (not the title).
const BODY: [Field; 4] = [
    Field::Conversation,
    Field::Thinking,
    Field::ToolInput,
    Field::ToolOutput,
];

impl<'a> Segment<'a> {
    fn new(reader: &'a SegmentReader, fields: &'a Fields) -> io::Result<Segment<'a>> {
        let inv = |f| reader.inverted_index(f).map_err(io::Error::other);
        Ok(Segment {
            reader,
            words: fields
                .words
                .iter()
                .map(|&f| inv(f))
                .collect::<io::Result<_>>()?,
            cjk: fields
                .cjk
                .iter()
                .map(|&f| inv(f))
                .collect::<io::Result<_>>()?,
            irregular: None,
        })
    }

    fn alive(&self, doc: DocId) -> bool {
        self.reader.alive_bitset().is_none_or(|a| a.is_alive(doc))
    }

    fn irregular(&mut self) -> io::Result<&HashSet<DocId>> {
        if self.irregular.is_none() {
            let flags = self
                .reader
                .fast_fields()
                .u64("flags")
                .map_err(io::Error::other)?;
            let set = (0..self.reader.max_doc())
                .filter(|&d| flags.first(d).unwrap_or(0) & IRREGULAR != 0)
                .collect();
            self.irregular = Some(set);
        }
        Ok(self.irregular.as_ref().expect("just read"))
    }

    fn lookup(&mut self, q: &Query, ord: u32, later: bool, out: &mut Vec<Found>) -> io::Result<()> {
        let leaves: Vec<LeafDocs> = q
            .leaves
            .iter()
            .map(|l| self.leaf(l))
            .collect::<io::Result<_>>()?;
        let mut docs: Vec<DocId> = leaves
            .iter()
            .flat_map(|l| l.tf.keys().chain(l.unsure.iter()).copied())
            .collect();
        docs.sort_unstable();
        docs.dedup();
        let ids = self
            .reader
            .fast_fields()
            .u64("doc")
            .map_err(io::Error::other)?;
        let adjacency = adjacency_leaf(q);
        let mut side_by_side = Vec::new();
        let first = out.len();
        let mut at = Vec::new();
        for doc in docs {
            if !self.alive(doc) || !q.eval_ignoring_not(&|l| leaves[l].has(doc)) {
                continue;
            }
            let unsure = leaves.iter().any(|l| l.unsure.contains(&doc));
            let counts = (!unsure).then(|| Counts {
                tf: leaves
                    .iter()
                    .map(|l| l.tf.get(&doc).copied().unwrap_or_default())
                    .collect(),
                adjacent: 0,
            });
            if adjacency.is_some() && counts.as_ref().is_some_and(|c| c.matches(q)) {
                side_by_side.push(out.len() - first);
            }
            at.push(doc);
            out.push(Found {
                doc: ids.first(doc).unwrap_or(0) as i64,
                counts,
                adjacent_at: None,
            });
        }
        match adjacency {
            Some(_) if later => {
                let irregular = self.irregular()?;
                for &i in &side_by_side {
                    let found = &mut out[first + i];
                    match irregular.contains(&at[i]) {
                        true => found.counts = None,
                        false => found.adjacent_at = Some((ord, at[i])),
                    }
                }
            }
            Some(Leaf::Words { tokens, .. }) => {
                self.add_side_by_side(&tokens, &side_by_side, &at, &mut out[first..])?
            }
            _ => {}
        }
        Ok(())
    }

    /// Occurrences of `tokens` side by side over the body's texts, in the documents `docs`.
    fn body_side_by_side(
        &self,
        tokens: &[String],
        docs: &HashSet<DocId>,
    ) -> io::Result<HashMap<DocId, u32>> {
        let mut total: HashMap<DocId, u32> = HashMap::default();
        for f in BODY {
            let inv = &self.words[f as usize];
            let slots = self.slots(inv, tokens, false)?;
            for (doc, n) in phrase_counts(inv, &slots, false, Some(docs))? {
                *total.entry(doc).or_default() += n;
            }
        }
        Ok(total)
    }

    /// The side-by-side counts of the matches at `at` in `out` (over the body's texts); a match
    /// whose positions cannot tell becomes unsure.
    fn add_side_by_side(
        &mut self,
        tokens: &[String],
        matching: &[usize],
        at: &[DocId],
        out: &mut [Found],
    ) -> io::Result<()> {
        let docs: HashSet<DocId> = matching.iter().map(|&i| at[i]).collect();
        let total = self.body_side_by_side(tokens, &docs)?;
        let irregular = self.irregular()?.clone();
        for &i in matching {
            let found = &mut out[i];
            if irregular.contains(&at[i]) {
                found.counts = None;
            } else if let Some(c) = found.counts.as_mut() {
                c.adjacent = total.get(&at[i]).copied().unwrap_or(0);
            }
        }
        Ok(())
    }

    /// The term infos each token stands for in one field: itself, or for the last one of a
    /// prefix every token it starts.
    fn slots(
        &self,
        inv: &InvertedIndexReader,
        tokens: &[String],
        prefix: bool,
    ) -> io::Result<Vec<Vec<TermInfo>>> {
        let last = tokens.len() - 1;
        tokens
            .iter()
            .enumerate()
            .map(|(i, t)| expansions(inv, t.as_bytes(), prefix && i == last))
            .collect()
    }

    fn leaf(&mut self, leaf: &Leaf) -> io::Result<LeafDocs> {
        match leaf {
            Leaf::Words { tokens, prefix } => {
                // A word the index may hold cut (a cut ends up to 3 bytes short, on a
                // character boundary) could stand for longer ones.
                let too_long = tokens.iter().any(|t| t.len() + 4 > LONGEST);
                if too_long {
                    let cut: Vec<String> = tokens
                        .iter()
                        .map(|t| super::tokens::indexed_word(t).to_string())
                        .collect();
                    return self.unsure_holding(&cut, *prefix, false);
                }
                self.counted(tokens, *prefix, false)
            }
            Leaf::Substring(s) => {
                let chars: Vec<String> = s.chars().map(String::from).collect();
                if s.chars().all(is_cjk) {
                    self.counted(&chars, false, true)
                } else {
                    let cjk: Vec<String> =
                        s.chars().filter(|&c| is_cjk(c)).map(String::from).collect();
                    self.unsure_holding(&cjk, false, true)
                }
            }
        }
    }

    /// Counts per field of `tokens` one after another (one token: its frequency). For CJK,
    /// non-overlapping runs of characters.
    fn counted(&mut self, tokens: &[String], prefix: bool, cjk: bool) -> io::Result<LeafDocs> {
        let mut out = LeafDocs::default();
        for k in 0..FIELDS {
            let inv = if cjk { &self.cjk[k] } else { &self.words[k] };
            let slots = self.slots(inv, tokens, prefix)?;
            let counts = if tokens.len() == 1 {
                frequencies(inv, &slots[0])?
            } else {
                phrase_counts(inv, &slots, cjk, None)?
            };
            for (doc, n) in counts {
                out.tf.entry(doc).or_default()[k] += n;
            }
        }
        if tokens.len() > 1 {
            // Positions in an irregular document may miss a phrase its copy holds.
            let irregular: Vec<DocId> = self.irregular()?.iter().copied().collect();
            for doc in irregular {
                if self.holds_all(doc, tokens, prefix, cjk)? {
                    out.tf.remove(&doc);
                    out.unsure.insert(doc);
                }
            }
        }
        Ok(out)
    }

    /// Every document that holds all of `tokens` in any of its fields, unsure.
    fn unsure_holding(
        &mut self,
        tokens: &[String],
        prefix: bool,
        cjk: bool,
    ) -> io::Result<LeafDocs> {
        let mut sets: Vec<HashSet<DocId>> = Vec::new();
        let last = tokens.len().saturating_sub(1);
        for (i, t) in tokens.iter().enumerate() {
            let mut set = HashSet::default();
            for k in 0..FIELDS {
                let inv = if cjk { &self.cjk[k] } else { &self.words[k] };
                for info in expansions(inv, t.as_bytes(), prefix && i == last)? {
                    let mut p = inv.read_postings_from_terminfo(&info, IndexRecordOption::Basic)?;
                    while p.doc() != TERMINATED {
                        set.insert(p.doc());
                        p.advance();
                    }
                }
            }
            sets.push(set);
        }
        let mut out = LeafDocs::default();
        if let Some((first, rest)) = sets.split_first() {
            out.unsure = first
                .iter()
                .filter(|d| rest.iter().all(|s| s.contains(d)))
                .copied()
                .collect();
        }
        Ok(out)
    }

    /// Does `doc` hold every one of `tokens`, in any field?
    fn holds_all(
        &self,
        doc: DocId,
        tokens: &[String],
        prefix: bool,
        cjk: bool,
    ) -> io::Result<bool> {
        let last = tokens.len() - 1;
        for (i, t) in tokens.iter().enumerate() {
            let mut held = false;
            'fields: for k in 0..FIELDS {
                let inv = if cjk { &self.cjk[k] } else { &self.words[k] };
                for info in expansions(inv, t.as_bytes(), prefix && i == last)? {
                    let mut p = inv.read_postings_from_terminfo(&info, IndexRecordOption::Basic)?;
                    if p.seek(doc) == doc {
                        held = true;
                        break 'fields;
                    }
                }
            }
            if !held {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The term infos of `token` in a field, or of every term it starts when `prefix`.
fn expansions(inv: &InvertedIndexReader, token: &[u8], prefix: bool) -> io::Result<Vec<TermInfo>> {
    if !prefix {
        return Ok(inv.terms().get(token)?.into_iter().collect());
    }
    let mut out = Vec::new();
    let mut stream = inv.terms().range().ge(token).into_stream()?;
    while stream.advance() {
        if !stream.key().starts_with(token) {
            break;
        }
        out.push(stream.value().clone());
    }
    Ok(out)
}

/// Occurrences per document of any of `infos` (a word or the tokens a prefix starts).
fn frequencies(inv: &InvertedIndexReader, infos: &[TermInfo]) -> io::Result<HashMap<DocId, u32>> {
    let mut out: HashMap<DocId, u32> = HashMap::default();
    for info in infos {
        let mut p = inv.read_postings_from_terminfo(info, IndexRecordOption::WithFreqs)?;
        while p.doc() != TERMINATED {
            *out.entry(p.doc()).or_default() += p.term_freq();
            p.advance();
        }
    }
    Ok(out)
}

/// Occurrences per document of the slots one after another (each slot: the terms that may
/// stand there), in documents of `only` when given. Overlapping runs count as the scan counts
/// words; `non_overlapping` as it counts substrings.
fn phrase_counts(
    inv: &InvertedIndexReader,
    slots: &[Vec<TermInfo>],
    non_overlapping: bool,
    only: Option<&HashSet<DocId>>,
) -> io::Result<HashMap<DocId, u32>> {
    let mut out = HashMap::default();
    if slots.iter().any(Vec::is_empty) {
        return Ok(out);
    }
    // The documents each slot holds, then those every slot holds.
    let mut common: Option<Vec<DocId>> = None;
    for slot in slots {
        let mut docs = Vec::new();
        for info in slot {
            let mut p = inv.read_postings_from_terminfo(info, IndexRecordOption::Basic)?;
            while p.doc() != TERMINATED {
                if only.is_none_or(|o| o.contains(&p.doc())) {
                    docs.push(p.doc());
                }
                p.advance();
            }
        }
        docs.sort_unstable();
        docs.dedup();
        common = Some(match common {
            None => docs,
            Some(c) => c
                .into_iter()
                .filter(|d| docs.binary_search(d).is_ok())
                .collect(),
        });
    }
    let common = common.unwrap_or_default();
    if common.is_empty() {
        return Ok(out);
    }
    let mut postings: Vec<Vec<SegmentPostings>> = slots
        .iter()
        .map(|slot| {
            slot.iter()
                .map(|info| {
                    inv.read_postings_from_terminfo(info, IndexRecordOption::WithFreqsAndPositions)
                })
                .collect::<io::Result<_>>()
        })
        .collect::<io::Result<_>>()?;
    let mut positions: Vec<Vec<u32>> = vec![Vec::new(); slots.len()];
    let mut buf = Vec::new();
    for doc in common {
        for (k, slot) in postings.iter_mut().enumerate() {
            positions[k].clear();
            for p in slot.iter_mut() {
                if p.doc() <= doc && p.seek(doc) == doc {
                    p.positions(&mut buf);
                    positions[k].extend_from_slice(&buf);
                }
            }
            if slot.len() > 1 {
                positions[k].sort_unstable();
            }
        }
        let n = count_runs(&positions, non_overlapping);
        if n > 0 {
            out.insert(doc, n);
        }
    }
    Ok(out)
}

/// Starts `p` of `positions[0]` with `p + k` in `positions[k]` for every slot `k`. Every list
/// is sorted, so one cursor per slot walks it once.
fn count_runs(positions: &[Vec<u32>], non_overlapping: bool) -> u32 {
    let width = positions.len() as u32;
    let mut count = 0;
    let mut free_from = 0u32;
    let mut cursors = vec![0usize; positions.len()];
    for &p in &positions[0] {
        if non_overlapping && p < free_from {
            continue;
        }
        let mut all = true;
        for (k, ps) in positions.iter().enumerate().skip(1) {
            let want = p + k as u32;
            let at = &mut cursors[k];
            while *at < ps.len() && ps[*at] < want {
                *at += 1;
            }
            if ps.get(*at) != Some(&want) {
                all = false;
                break;
            }
        }
        if all {
            count += 1;
            free_from = p + width;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::count_runs;

    #[test]
    fn runs_overlap_for_words_and_not_for_substrings() {
        // "the the the": positions 0 1 2; the phrase "the the" starts at 0 and 1.
        let p = vec![vec![0, 1, 2], vec![0, 1, 2]];
        assert_eq!(count_runs(&p, false), 2);
        // "aaa" searched for "aa": one non-overlapping match, as `str::match_indices` finds.
        assert_eq!(count_runs(&p, true), 1);
        assert_eq!(count_runs(&[vec![3, 9], vec![4, 11]], false), 1);
        // Three slots, runs at 0 and 7; 4 lacks its third.
        let p = vec![vec![0, 4, 7, 20], vec![1, 5, 8], vec![2, 9, 30]];
        assert_eq!(count_runs(&p, true), 2);
        assert_eq!(count_runs(&p, false), 2);
    }
}
