//! What a search asks of the index, and the one place that answers it: `TermLookup`, read from
//! one snapshot of the index brought up to date with the stores (`Snapshot`).
//!
//! The postings (`postings`) tell which sessions hold a query's leaves and how often per field,
//! phrases and words side by side included; the SQLite file keeps each session's summary and
//! exact field lengths. The text is not kept twice: the sessions whose snippet is shown, and the
//! few whose counts positions cannot tell, are read again from the agents' stores, which the
//! snapshot has just found unchanged. The search engine (`search::indexed`) turns these into hits
//! exactly as its scan would.
use rusqlite::{Connection, OptionalExtension, Row};
// Keys are the index's own row ids: Fx hashing, not SipHash (a word in every session looks up
// thousands of them).
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use super::codec;
use super::heads::{HeadOf, Heads};
pub use super::postings::lookup::At;
use super::postings::lookup::{lookup, side_by_side, Counts, Found};
use super::postings::Fields;
use super::removed_if_broken;
use super::store::Fault;
use super::sync::Synced;
use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::model::{Session, SessionSummary};
use crate::options::OnlyDocs;
use crate::query::fields::{Field, FIELDS};
use crate::query::Query;

/// Documents found at least one in this many of the rows their ids span are read in one pass
/// over those rows, sparser ones one query each (the two cost alike at one in three).
pub const ONE_PASS_SPARSEST: u64 = 3;

/// A session in the index (its row id there).
pub type DocId = i64;
/// A source in the index (its row id there).
pub type SourceId = i64;

/// The sessions that hold given terms, and what the index keeps of them: the seam between the
/// search engine and whatever stores the index.
pub trait TermLookup {
    /// The sources searched, in the order a scan examines them (largest first: of two equal
    /// hits on one session the same copy is kept).
    fn sources(&self) -> &[Searched];

    /// Every session of the sources searched that may satisfy `q` ignoring its NOTs, with its
    /// counts of each leaf, or none when only reading it can tell. With `later`, the count of
    /// an implicit AND's words side by side is left at 0 where `FoundDoc::adjacent_at` says, for
    /// `side_by_side` to tell of the sessions that need it. `among`: the only documents that may
    /// be hits, when they are of this index's generation; the others are found for the corpus
    /// statistics alone (`FoundDoc::may_hit`), without their summaries. With `heads`, a found
    /// summary may hold its head alone: the search makes no more of it (`StoredSummary::head`).
    fn find(
        &self,
        q: &Query,
        later: bool,
        among: Option<&OnlyDocs>,
        heads: bool,
    ) -> Result<Vec<FoundDoc>, Fault>;

    /// The side-by-side counts of the sessions found at `at` (`FoundDoc::adjacent_at`).
    fn side_by_side(&self, q: &Query, at: &[At]) -> Result<Vec<u32>, Fault>;

    /// The sessions `ids` read again from their agents' stores, in that order, as the scan reads
    /// them: a text for which `needle_free` holds may be left out (`SearchSupport::
    /// load_for_search`).
    fn sessions(&self, ids: &[DocId], needle_free: &NeedleFree<'_>) -> Result<Vec<ReadDoc>, Fault>;

    /// The sessions `ids` read for the texts of `field` alone (`SearchSupport::load_field`,
    /// else as `sessions` reads them without tool outputs), in that order, each with the summary
    /// the index holds: for snippets known to lie in that field.
    fn field_texts(&self, ids: &[DocId], field: Field) -> Result<Vec<ReadDoc>, Fault>;
}

/// How `Snapshot::read_sessions` reads a source.
#[derive(Clone, Copy)]
enum Read<'a> {
    /// As search reads it, a text `needle_free` holds for left out.
    ForSearch(&'a NeedleFree<'a>),
    /// The texts of one field alone, where the agent can (`TermLookup::field_texts`).
    Field(Field),
}

/// Whether a text holds none of a query's needles (`search::score::Matcher::needle_free`).
pub type NeedleFree<'a> = dyn Fn(&str) -> bool + Sync + 'a;

/// A source searched.
#[derive(Clone)]
pub enum Searched {
    /// Held by the index as it is now: its id there and how many sessions it holds (0 when
    /// unreadable).
    Indexed(SourceId, usize),
    /// Changed since another process, still writing, last committed the index: to be scanned.
    Changed(&'static dyn Agent, Source),
}

/// A session `TermLookup::find` found.
pub struct FoundDoc {
    pub id: DocId,
    pub source: SourceId,
    /// Bytes of searchable text per field.
    pub lengths: [u64; FIELDS],
    /// Occurrences per leaf, per field, and side by side; `None` when a read must tell.
    pub counts: Option<Counts>,
    /// Where to ask its side-by-side count, when `find` left it for later.
    pub adjacent_at: Option<At>,
    /// Its summary as stored (empty when it may not be a hit).
    pub summary: StoredSummary,
    /// Whether it may be a hit (`TermLookup::find`'s `among`); else its summary is not read.
    pub may_hit: bool,
}

/// A found session's summary as the index stores it, decoded only as far as it is needed: a
/// broad search ranks thousands of matches from their heads and returns a few.
pub struct StoredSummary {
    held: Held,
    /// Served from a kept copy: its source is gone.
    archived: bool,
}

/// What a `StoredSummary` holds.
enum Held {
    /// The stored bytes, whole.
    Bytes(Vec<u8>),
    /// Its head, of the scope's heads (`Scope::heads`), the rest not read.
    Head(Arc<Heads>, HeadOf),
}

impl StoredSummary {
    /// Which session it is and its dates, read in place.
    pub fn head_ref(&self) -> Result<codec::HeadRef<'_>, Fault> {
        match &self.held {
            Held::Bytes(b) => codec::summary_head_ref(b).map_err(|_| corrupt()),
            Held::Head(heads, head) => Ok(heads.head_ref(head)),
        }
    }

    /// The session's summary as search reports it (of one found with its head alone, an
    /// error: `TermLookup::find`'s `heads` is asked only of searches that make heads alone).
    pub fn whole(&self) -> Result<SessionSummary, Fault> {
        let Held::Bytes(b) = &self.held else {
            return Err(Fault::Unusable(
                "a summary was found with its head alone".into(),
            ));
        };
        let mut s = decode_summary(b)?;
        s.archived = self.archived;
        Ok(s)
    }

    /// Its ids and dates only (`SessionSummary::new`), read without the rest.
    pub fn head(&self) -> Result<SessionSummary, Fault> {
        let h = self.head_ref()?;
        let mut s = SessionSummary::new(h.agent, h.session_id, h.created_at, h.updated_at);
        s.archived = self.archived;
        Ok(s)
    }
}

/// A session read again (`TermLookup::sessions`).
pub struct ReadDoc {
    pub id: DocId,
    pub source: SourceId,
    pub session: Session,
}

/// What a snapshot searches: the live sources the index holds up to date, the restored kept
/// copies it holds, the sources changed since (to be scanned), and how many it holds that are
/// gone.
pub(super) type Searchable = (
    Vec<(&'static dyn Agent, Synced)>,
    Vec<(&'static dyn Agent, Synced)>,
    Vec<(&'static dyn Agent, Source)>,
    usize,
);

/// A session to read again: its doc, its id, how many sessions of that id come before it in its
/// source (a store may hold one id twice), and the summary the index holds of it.
type Wanted = (DocId, String, usize, SessionSummary);

/// The index read for one search: a read transaction of the SQLite file and the postings of the
/// same generation, so every lookup of the search sees one index whatever other processes write
/// meanwhile. A lookup that finds the index damaged removes it (`removed_if_broken`).
pub struct Snapshot {
    dir: PathBuf,
    conn: Connection,
    fields: Fields,
    searcher: tantivy::Searcher,
    /// The generation the file and the postings are of.
    generation: u64,
    ctx: Context,
    scope: Arc<Scope>,
}

/// The sources a snapshot searches, as the index holds them: shared by the searches of a
/// client that lives while the stores and the index stay as they were (`super::Warm`), and made
/// anew from the last one's when a few sources were stamped again since (`restamped`).
pub struct Scope {
    sources: Vec<Searched>,
    /// Of each of `sources`, in that order, what orders them (`scan_order`).
    order: Vec<ScanKey>,
    /// The indexed sources searched: their agent and the source as listed when the scope this
    /// one was made from was made (`restamped` holds those stamped again since).
    in_scope: Arc<HashMap<SourceId, (&'static dyn Agent, Source)>>,
    restamped: HashMap<SourceId, Source>,
    /// Those of them that are restored kept copies (`super::archived`).
    archived: Arc<HashSet<SourceId>>,
    /// The keys of `in_scope` alone, looked up for every document found: small enough to stay
    /// in the cache, where a map of whole sources misses it at each lookup.
    searched: Arc<HashSet<SourceId>>,
    /// Whether the stores hold changes the index has not taken in.
    left_changes: bool,
    /// The heads of the index's documents, once a broad search read them (`heads`): the scope
    /// lives as long as the generation it was made of.
    heads: OnceLock<Arc<Heads>>,
    /// The heads of the scope this one was made from, or of one before it, and the sources
    /// stamped again since: brought up to date when a broad search needs them.
    heads_before: Option<(Arc<Heads>, HashSet<SourceId>)>,
}

/// Where a scan takes a source: larger first, then as listed.
type ScanKey = (std::cmp::Reverse<u64>, u32);

impl Scope {
    /// The live sources `synced` the index holds up to date, the restored kept copies
    /// `archived` it holds, the sources `changed` since (to be scanned), and how many it holds
    /// that are `gone`.
    pub(super) fn new(found: Searchable) -> Scope {
        let (mut synced, archived, changed, gone) = found;
        let left_changes = !changed.is_empty() || gone > 0;
        let archived_ids = archived.iter().map(|(_, s)| s.id).collect();
        synced.extend(archived);
        let (sources, order) = scan_order(&synced, changed);
        let searched = synced.iter().map(|(_, s)| s.id).collect();
        let in_scope = synced
            .into_iter()
            .map(|(a, s)| (s.id, (a, s.source)))
            .collect();
        Scope {
            sources,
            order,
            in_scope: Arc::new(in_scope),
            restamped: HashMap::default(),
            archived: Arc::new(archived_ids),
            searched: Arc::new(searched),
            left_changes,
            heads: OnceLock::new(),
            heads_before: None,
        }
    }

    /// This scope once the live sources `now` (each in it) were stamped again and brought up to
    /// date in the index, nothing else having changed: what `new` makes of the sources listed
    /// again, without listing them. `None` when one is not a live source of this scope, or this
    /// scope holds changes the index has not taken in.
    pub(super) fn restamped(&self, now: Vec<Synced>) -> Option<Scope> {
        if self.left_changes {
            return None;
        }
        let mut sources = self.sources.clone();
        let mut order = self.order.clone();
        let mut restamped = self.restamped.clone();
        let mut changed: HashSet<SourceId> = HashSet::default();
        for s in now {
            if !self.in_scope.contains_key(&s.id) || self.archived.contains(&s.id) {
                return None;
            }
            let at = sources
                .iter()
                .position(|x| matches!(x, Searched::Indexed(id, _) if *id == s.id))?;
            sources.remove(at);
            let (_, rank) = order.remove(at);
            let key = (std::cmp::Reverse(size(&s.source)), rank);
            let to = order.partition_point(|k| *k < key);
            sources.insert(to, Searched::Indexed(s.id, s.sessions));
            order.insert(to, key);
            restamped.insert(s.id, s.source);
            changed.insert(s.id);
        }
        let heads_before = match (self.heads.get(), &self.heads_before) {
            (Some(h), _) => Some((h.clone(), changed)),
            (None, Some((h, before))) => {
                Some((h.clone(), before.union(&changed).copied().collect()))
            }
            (None, None) => None,
        };
        Some(Scope {
            sources,
            order,
            in_scope: self.in_scope.clone(),
            restamped,
            archived: self.archived.clone(),
            searched: self.searched.clone(),
            left_changes: false,
            heads: OnceLock::new(),
            heads_before,
        })
    }

    /// A searched source's agent and the source as listed now.
    fn source(&self, id: SourceId) -> Option<(&'static dyn Agent, &Source)> {
        let (a, listed) = self.in_scope.get(&id)?;
        Some((*a, self.restamped.get(&id).unwrap_or(listed)))
    }
}

impl Scope {
    /// Whether the stores hold changes the index has not taken in.
    pub fn left_changes(&self) -> bool {
        self.left_changes
    }
}

/// The bytes of a source's files.
fn size(s: &Source) -> u64 {
    s.stamps.iter().map(|t| t.size).sum()
}

/// The sources in the order a scan examines them: largest first, sources of one size in the
/// agents' order; and each one's place in that order.
fn scan_order(
    synced: &[(&'static dyn Agent, Synced)],
    changed: Vec<(&'static dyn Agent, Source)>,
) -> (Vec<Searched>, Vec<ScanKey>) {
    let mut v: Vec<(ScanKey, Searched)> = synced
        .iter()
        .map(|(_, s)| (size(&s.source), Searched::Indexed(s.id, s.sessions)))
        .chain(
            changed
                .into_iter()
                .map(|(a, src)| (size(&src), Searched::Changed(a, src))),
        )
        .enumerate()
        .map(|(rank, (size, s))| ((std::cmp::Reverse(size), rank as u32), s))
        .collect();
    // Ranks are unique: the order is the stable one of sizes alone.
    v.sort_unstable_by_key(|(key, _)| *key);
    v.into_iter().map(|(key, s)| (s, key)).unzip()
}

impl TermLookup for Snapshot {
    fn sources(&self) -> &[Searched] {
        &self.scope.sources
    }

    fn find(
        &self,
        q: &Query,
        later: bool,
        among: Option<&OnlyDocs>,
        heads: bool,
    ) -> Result<Vec<FoundDoc>, Fault> {
        let among = among.filter(|o| o.generation == self.generation);
        removed_if_broken(&self.dir, self.read_found(q, later, among, heads))
    }

    fn side_by_side(&self, q: &Query, at: &[At]) -> Result<Vec<u32>, Fault> {
        let counted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            side_by_side(&self.searcher, &self.fields, q, at)
        }));
        removed_if_broken(&self.dir, postings_read(counted))
    }

    fn sessions(&self, ids: &[DocId], needle_free: &NeedleFree<'_>) -> Result<Vec<ReadDoc>, Fault> {
        removed_if_broken(
            &self.dir,
            self.read_sessions(ids, Read::ForSearch(needle_free)),
        )
    }

    fn field_texts(&self, ids: &[DocId], field: Field) -> Result<Vec<ReadDoc>, Fault> {
        removed_if_broken(&self.dir, self.read_sessions(ids, Read::Field(field)))
    }
}

impl Snapshot {
    /// The index `conn` (in `dir`), in a read transaction begun once the sources of `scope`
    /// were brought up to date, and `searcher`, its postings of `generation`; `Err` when the
    /// file records another (another process between its two commits).
    pub(super) fn new(
        ctx: &Context,
        dir: PathBuf,
        conn: Connection,
        postings: (Fields, tantivy::Searcher, u64),
        scope: Arc<Scope>,
    ) -> Result<Snapshot, Fault> {
        let (fields, searcher, generation) = postings;
        let recorded: i64 = conn.query_row("SELECT generation FROM postings", [], |r| r.get(0))?;
        if recorded as u64 != generation {
            return Err(Fault::Unusable(format!(
                "postings of generation {generation}, the file records {recorded}"
            )));
        }
        Ok(Snapshot {
            dir,
            conn,
            fields,
            searcher,
            generation,
            ctx: ctx.clone(),
            scope,
        })
    }

    /// Whether the stores hold changes the index has not taken in: sources new or changed since
    /// (scanned by this search), or gone.
    pub fn left_changes(&self) -> bool {
        self.scope.left_changes
    }

    fn read_found(
        &self,
        q: &Query,
        later: bool,
        among: Option<&OnlyDocs>,
        heads: bool,
    ) -> Result<Vec<FoundDoc>, Fault> {
        // tantivy may panic on a damaged file rather than fail: that is damage too.
        let looked_up = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lookup(&self.searcher, &self.fields, q, later)
        }));
        let mut found = postings_read(looked_up)?;
        found.sort_unstable_by_key(|f| f.doc);
        match heads.then(|| self.heads(&found)).transpose()?.flatten() {
            Some(heads) => self.found_heads(found, among, heads),
            None => self.stored_rows(found, among),
        }
    }

    /// The scope's heads, when held, or read now for documents `found` so many that a pass over
    /// every row costs about what reading theirs does.
    fn heads(&self, found: &[Found]) -> Result<Option<Arc<Heads>>, Fault> {
        if let Some(h) = self.scope.heads.get() {
            return Ok(Some(h.clone()));
        }
        // Heads held before a few sources changed are brought up to date, whatever was found:
        // that costs less than a pass over every row.
        let heads = match &self.scope.heads_before {
            Some((before, changed)) => before.updated(&self.conn, changed, &self.scope.searched)?,
            None if (found.len() as u64).saturating_mul(ONE_PASS_SPARSEST)
                < self.searcher.num_docs() =>
            {
                return Ok(None)
            }
            None => Heads::read(&self.conn, &self.scope.searched)?,
        };
        let heads = Arc::new(heads);
        Ok(Some(self.scope.heads.get_or_init(|| heads).clone()))
    }

    /// The documents `found` (in id order) of the sources searched, from `heads`: their summaries
    /// hold their heads alone.
    fn found_heads(
        &self,
        found: Vec<Found>,
        among: Option<&OnlyDocs>,
        heads: Arc<Heads>,
    ) -> Result<Vec<FoundDoc>, Fault> {
        let rows: Vec<Option<u32>> = heads.rows_of(found.iter().map(|f| f.doc)).collect();
        let mut out = Vec::with_capacity(found.len());
        for (f, row) in found.into_iter().zip(rows) {
            // The postings and the heads are of one generation: a document without its row is
            // damage.
            let row = row.ok_or_else(corrupt)?;
            let h = heads.row(row);
            if !h.searched {
                continue;
            }
            let may_hit = among.is_none_or(|o| o.docs.contains(&f.doc));
            out.push(FoundDoc {
                id: f.doc,
                source: h.source,
                lengths: h.lengths,
                counts: f.counts,
                adjacent_at: f.adjacent_at,
                summary: StoredSummary {
                    held: match may_hit {
                        true => Held::Head(heads.clone(), h.head),
                        false => Held::Bytes(Vec::new()),
                    },
                    archived: self.scope.archived.contains(&h.source),
                },
                may_hit,
            });
        }
        Ok(out)
    }

    /// What the SQLite file keeps of the documents `found` (in id order), those of the sources
    /// searched, in id order. Dense among the rows they span (a word in most sessions), they are read in one
    /// pass over those rows; sparse, each by its id.
    fn stored_rows(
        &self,
        found: Vec<Found>,
        among: Option<&OnlyDocs>,
    ) -> Result<Vec<FoundDoc>, Fault> {
        let may_hit = |doc: DocId| among.is_none_or(|o| o.docs.contains(&doc));
        let (Some(first), Some(last)) = (found.first(), found.last()) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity(found.len());
        if !dense(&found) {
            let mut st = self
                .conn
                .prepare_cached("SELECT source, lengths, summary FROM doc WHERE id = ?1")?;
            for f in found {
                let mut rows = st.query([f.doc])?;
                // The postings and the file are of one generation: a document without its row
                // is damage.
                let r = rows.next()?.ok_or_else(corrupt)?;
                let hit = may_hit(f.doc);
                out.extend(self.stored(f, r, 0, hit)?);
            }
            return Ok(out);
        }
        let mut st = self.conn.prepare_cached(
            "SELECT id, source, lengths, summary FROM doc WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
        )?;
        let mut rows = st.query([first.doc, last.doc])?;
        let mut found = found.into_iter().peekable();
        while let Some(r) = rows.next()? {
            let id: DocId = r.get(0)?;
            // Rows no document found are passed over.
            while let Some(f) = found.next_if(|f| f.doc == id) {
                let hit = may_hit(f.doc);
                out.extend(self.stored(f, r, 1, hit)?);
            }
        }
        match found.next() {
            Some(_) => Err(corrupt()),
            None => Ok(out),
        }
    }

    /// `f` with what its row `r` keeps (source, lengths and summary from column `at` on, the
    /// summary when it `may_hit`), or `None` when its source is not searched.
    fn stored(
        &self,
        f: Found,
        r: &Row,
        at: usize,
        may_hit: bool,
    ) -> Result<Option<FoundDoc>, Fault> {
        let source: SourceId = r.get(at)?;
        if !self.scope.searched.contains(&source) {
            return Ok(None);
        }
        let lengths = r.get_ref(at + 1)?.as_blob()?;
        Ok(Some(FoundDoc {
            id: f.doc,
            source,
            lengths: codec::decode_lengths(lengths).map_err(|_| corrupt())?,
            counts: f.counts,
            adjacent_at: f.adjacent_at,
            summary: StoredSummary {
                held: Held::Bytes(match may_hit {
                    true => r.get_ref(at + 2)?.as_blob()?.to_vec(),
                    false => Vec::new(),
                }),
                archived: self.scope.archived.contains(&source),
            },
            may_hit,
        }))
    }

    fn read_sessions(&self, ids: &[DocId], how: Read<'_>) -> Result<Vec<ReadDoc>, Fault> {
        // Per source, the ids asked of it.
        let mut asked: HashMap<SourceId, Vec<DocId>> = HashMap::default();
        let mut source_of = self
            .conn
            .prepare_cached("SELECT source FROM doc WHERE id = ?1")?;
        for &id in ids {
            let source: SourceId = source_of
                .query_row([id], |r| r.get(0))
                .optional()?
                .ok_or_else(corrupt)?;
            asked.entry(source).or_default().push(id);
        }
        let asked: Vec<(SourceId, Vec<DocId>)> = asked.into_iter().collect();
        let read: Vec<Result<Vec<ReadDoc>, Fault>> = {
            use rayon::prelude::*;
            // The session ids first (one connection, one thread), then the reads in parallel.
            let wanted: Vec<(SourceId, Vec<Wanted>)> = asked
                .iter()
                .map(|(source, docs)| Ok((*source, self.session_ids(*source, docs)?)))
                .collect::<Result<_, Fault>>()?;
            let (ctx, scope, kept) = (&self.ctx, &self.scope, &self.scope.archived);
            wanted
                .par_iter()
                .map(|(source, wanted)| match scope.source(*source) {
                    Some((agent, src)) => {
                        let mut read = read_source(ctx, agent, src, *source, wanted, how);
                        if let Ok(v) = &mut read {
                            let archived = kept.contains(source);
                            v.iter_mut()
                                .for_each(|d| d.session.summary.archived = archived);
                        }
                        read
                    }
                    None => Ok(Vec::new()),
                })
                .collect()
        };
        let mut by_id: HashMap<DocId, ReadDoc> = HashMap::default();
        for docs in read {
            for d in docs? {
                by_id.insert(d.id, d);
            }
        }
        ids.iter()
            .map(|id| by_id.remove(id).ok_or_else(changed))
            .collect()
    }

    /// Of each of `docs` of `source`: the session id, how many sessions of that id come before it
    /// in the source (a store may hold one id twice), and its summary as the index holds it.
    fn session_ids(&self, source: SourceId, docs: &[DocId]) -> Result<Vec<Wanted>, Fault> {
        let mut st = self
            .conn
            .prepare_cached("SELECT id, summary FROM doc WHERE source = ?1 ORDER BY id")?;
        let mut rows = st.query([source])?;
        let wanted: HashSet<DocId> = docs.iter().copied().collect();
        let mut seen: HashMap<String, usize> = HashMap::default();
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let id: DocId = r.get(0)?;
            let head =
                codec::decode_summary_head(r.get_ref(1)?.as_blob()?).map_err(|_| corrupt())?;
            let n = seen.entry(head.session_id.clone()).or_default();
            if wanted.contains(&id) {
                let mut summary = decode_summary(r.get_ref(1)?.as_blob()?)?;
                summary.archived = self.scope.archived.contains(&source);
                out.push((id, head.session_id, *n, summary));
            }
            *n += 1;
        }
        Ok(out)
    }
}

/// The sessions `wanted` (doc, session id, copies of that id before it) of `source`. A file is
/// read as the scan reads it, leaving out what `how` allows: no tool output without a needle is
/// decoded (most of them, for a rare word); for one field's texts, only what its agent needs to
/// read them, and then the summary is the index's (the read's is partial).
fn read_source(
    ctx: &Context,
    agent: &dyn Agent,
    src: &Source,
    source: SourceId,
    wanted: &[Wanted],
    how: Read<'_>,
) -> Result<Vec<ReadDoc>, Fault> {
    let ids: Vec<&str> = wanted.iter().map(|(_, id, _, _)| id.as_str()).collect();
    let support = agent.search_support();
    let field_read = match how {
        Read::Field(field) => support.and_then(|s| s.load_field(ctx, src, field)),
        Read::ForSearch(_) => None,
    };
    let stored_summary = field_read.is_some();
    let for_search = || {
        let needle_free: &NeedleFree<'_> = match how {
            Read::ForSearch(needle_free) => needle_free,
            Read::Field(_) => &|_: &str| true,
        };
        support?.load_for_search(ctx, src, &|text: &str| needle_free(text))
    };
    let sessions = match agent.many_sessions() {
        Some(m) => m.sessions_of(ctx, src, &ids),
        None => field_read
            .or_else(for_search)
            .unwrap_or_else(|| agent.load_source(ctx, src)),
    }
    .map_err(|e| Fault::Unusable(e.message))?;
    let mut at: HashMap<(&str, usize), &Wanted> = HashMap::default();
    for w in wanted {
        at.insert((w.1.as_str(), w.2), w);
    }
    let mut seen: HashMap<String, usize> = HashMap::default();
    let mut out = Vec::new();
    for mut s in sessions {
        let n = seen.entry(s.summary.session_id.clone()).or_default();
        if let Some(&(doc, _, _, stored)) = at.get(&(s.summary.session_id.as_str(), *n)) {
            match stored_summary {
                true => s.summary = stored.clone(),
                false => {
                    s.summary.unified_id =
                        crate::ids::unified_id(agent.name(), &s.summary.session_id)
                }
            }
            out.push(ReadDoc {
                id: *doc,
                source,
                session: s,
            });
        }
        *n += 1;
    }
    Ok(out)
}

/// Whether documents `found` (in id order) are dense enough among the rows they span to be read
/// in one pass over those rows (`ONE_PASS_SPARSEST`).
fn dense(found: &[Found]) -> bool {
    let (Some(first), Some(last)) = (found.first(), found.last()) else {
        return false;
    };
    let span = last.doc.abs_diff(first.doc).saturating_add(1);
    (found.len() as u64).saturating_mul(ONE_PASS_SPARSEST) >= span
}

/// A stored summary as search reports it.
fn decode_summary(blob: &[u8]) -> Result<SessionSummary, Fault> {
    let mut summary = codec::decode_summary(blob).map_err(|_| corrupt())?;
    summary.unified_id = crate::ids::unified_id(&summary.agent, &summary.session_id);
    Ok(summary)
}

/// What a read of the postings gave: files of the snapshot that do not read, or that make
/// tantivy panic, are damaged (they are mapped: no disk is full).
fn postings_read<T>(read: std::thread::Result<std::io::Result<T>>) -> Result<T, Fault> {
    match read {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(Fault::Broken(format!("the postings do not read: {e}"))),
        Err(_) => Err(Fault::Broken("the postings do not read".into())),
    }
}

/// A stored document that does not decode: damage.
pub(super) fn corrupt() -> Fault {
    Fault::Broken("a stored document does not decode".into())
}

/// A session the snapshot found unchanged is no longer there: the search is run again without
/// the index.
fn changed() -> Fault {
    Fault::Unusable("a session changed while it was searched".into())
}
