//! The search engine's hits from a full-text index (its `Files`, until the index sits behind the
//! storage layer): statistics from `lookup`, ranked by the scan's own `rank`, so scores, order
//! and counts are the scan's. Hits are left pending for their snippet (and, for words side by
//! side, the bonus the ranking settles), which a read of their session makes.
//!
//! Never stale: every source of the agents is stat'ed and compared with the catalog; a source
//! new or changed since the index was written is scanned, and the index answers for the rest
//! (what a process that cannot take the writer's lock does until the index is updated).
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;

use tantivy::schema::Value;
use tantivy::{Searcher, TantivyDocument};

use super::build::stamps_of;
use super::lookup::{lookup, Found};
use super::FullText;
use crate::agents::{self, Agent, Source};
use crate::context::Context;
use crate::model::{Session, SessionSummary};
use crate::query::prefilter::Prefilter;
use crate::query::Query;
use crate::search::scan::{rank, Examined, FileHit, ReadSession};
use crate::search::score::{analyse, Matcher};
use crate::search::{Completed, Files, PendingSummary};

/// One search's view of an index: a snapshot of it, and the sessions its pending hits stand for.
pub struct IndexedHits<'a> {
    snap: Snapshot<'a>,
    /// Per pending key: the catalog's source number and the session's place in it.
    keys: RefCell<Vec<(u64, u64)>>,
    /// The call's context and the sources found fresh, by catalog number.
    read_from: RefCell<Option<(Context, HashMap<u64, Source>)>>,
    tally: RefCell<Tally>,
}

/// Where one search's statistics came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Sessions whose statistics came from the index alone.
    pub indexed: usize,
    /// Sessions read because positions could not tell (`lookup::Found::stats` is `None`).
    pub unsure: usize,
    /// Sources scanned because they changed since the index was written.
    pub scanned: usize,
    /// Sessions read to complete a hit (its snippet, a side-by-side bonus).
    pub completed: usize,
}

/// An index, one snapshot of its segments, and their document stores (for summaries).
struct Snapshot<'a> {
    ft: &'a FullText,
    searcher: Searcher,
    stores: Vec<tantivy::store::StoreReader>,
}

impl<'a> IndexedHits<'a> {
    pub fn new(ft: &'a FullText) -> tantivy::Result<IndexedHits<'a>> {
        let searcher = ft.reader.searcher();
        let stores = searcher
            .segment_readers()
            .iter()
            .map(|s| s.get_store_reader(64))
            .collect::<std::io::Result<_>>()?;
        Ok(IndexedHits {
            snap: Snapshot {
                ft,
                searcher,
                stores,
            },
            keys: RefCell::new(Vec::new()),
            read_from: RefCell::new(None),
            tally: RefCell::new(Tally::default()),
        })
    }
}

impl Snapshot<'_> {
    /// The stored summary of a found session, as search reports it.
    fn summary(&self, f: &Found) -> Option<SessionSummary> {
        let doc: TantivyDocument = self.stores.get(f.segment as usize)?.get(f.doc).ok()?;
        let bytes = doc.get_first(self.ft.fields.summary)?.as_bytes()?;
        let mut s = crate::index::codec::decode_summary(bytes).ok()?;
        s.unified_id = crate::ids::unified_id(&s.agent, &s.session_id);
        Some(s)
    }

    /// The session at `ordinal` of catalog source `source`, read again from `src`.
    fn read(&self, ctx: &Context, source: u64, src: &Source, ordinal: u64) -> Option<Session> {
        let entry = self.ft.catalog.get(source as usize)?;
        let agent = agents::find(&entry.agent)?;
        let mut sessions = agent.load_source(ctx, src).ok()?;
        let ordinal = ordinal as usize;
        (ordinal < sessions.len()).then(|| sessions.swap_remove(ordinal))
    }
}

/// A session as the scan reports it when it matches.
fn hit(
    agent: &str,
    st: &crate::search::score::Stats,
    q: &Query,
    summary: SessionSummary,
) -> Option<Box<SessionSummary>> {
    st.matches(q).then(|| {
        let mut s = Box::new(summary);
        s.unified_id = crate::ids::unified_id(agent, &s.session_id);
        s
    })
}

impl Files for IndexedHits<'_> {
    fn hits(
        &self,
        ctx: &Context,
        agents: &[&'static dyn Agent],
        q: &Query,
        _: PendingSummary,
    ) -> Vec<FileHit> {
        // Every source listed and stat'ed; those the catalog holds as they are now are answered
        // from the index, the others scanned.
        let listed: Vec<(&'static dyn Agent, Source)> = agents
            .par_iter()
            .flat_map_iter(|&a| a.sources(ctx).into_iter().map(move |s| (a, s)))
            .collect();
        let snap = &self.snap;
        let by_path: HashMap<&std::path::Path, usize> = snap
            .ft
            .catalog
            .iter()
            .enumerate()
            .map(|(n, c)| (c.path.as_path(), n))
            .collect();
        let mut fresh = vec![false; snap.ft.catalog.len()];
        let mut fresh_sources: HashMap<u64, Source> = HashMap::new();
        let mut changed = Vec::new();
        for (a, src) in &listed {
            match by_path.get(src.path.as_path()) {
                Some(&n)
                    if snap.ft.catalog[n].agent == a.name()
                        && snap.ft.catalog[n].stamps == stamps_of(src) =>
                {
                    fresh[n] = true;
                    fresh_sources.insert(n as u64, src.clone());
                }
                _ => changed.push((*a, src)),
            }
        }
        let pf = Prefilter::new(q);
        let matcher = Matcher::new(q, &pf);
        let found = lookup(&snap.searcher, &snap.ft.fields, q).unwrap_or_default();
        let mut read: HashMap<u64, Vec<(u64, ReadSession)>> = HashMap::new();
        let mut keys = self.keys.borrow_mut();
        let examined: Vec<(u64, u64, ReadSession)> = found
            .into_par_iter()
            .filter(|f| fresh[f.source as usize])
            .filter_map(|f| {
                let agent = &snap.ft.catalog[f.source as usize].agent;
                let r = match &f.stats {
                    Some(st) => {
                        let hit = match st.matches(q) {
                            true => Some(Box::new(snap.summary(&f)?)),
                            false => None,
                        };
                        ReadSession {
                            stats: st.clone(),
                            hit,
                            later: Some((u64::MAX, st.adjacent_tf)),
                        }
                    }
                    None => {
                        let src = fresh_sources.get(&f.source)?;
                        let s = snap.read(ctx, f.source, src, f.ordinal)?;
                        let st = analyse(&matcher, &s);
                        let hit = hit(agent, &st, q, s.summary);
                        ReadSession::complete(st, hit)
                    }
                };
                Some((f.source, f.ordinal, r))
            })
            .collect();
        let mut tally = self.tally.borrow_mut();
        tally.scanned += changed.len();
        for (source, ordinal, mut r) in examined {
            match r.later.is_some() {
                true => tally.indexed += 1,
                false => tally.unsure += 1,
            }
            if let Some(later) = r.later.as_mut() {
                later.0 = keys.len() as u64;
                keys.push((source, ordinal));
            }
            read.entry(source).or_default().push((ordinal, r));
        }
        // The scan's order of sources (largest first), each source's sessions in their order.
        let size = |stamps: &[(u64, i128)]| stamps.iter().map(|s| s.0).sum::<u64>();
        let mut order: Vec<(std::cmp::Reverse<u64>, Option<u64>, usize)> = Vec::new();
        for (n, c) in snap
            .ft
            .catalog
            .iter()
            .enumerate()
            .filter(|(n, _)| fresh[*n])
        {
            order.push((std::cmp::Reverse(size(&c.stamps)), Some(n as u64), 0));
        }
        for (i, (_, src)) in changed.iter().enumerate() {
            let stamps = stamps_of(src);
            order.push((std::cmp::Reverse(size(&stamps)), None, i));
        }
        order.sort_by_key(|o| o.0);
        let scanned: Vec<Examined> = changed
            .par_iter()
            .map(|(a, src)| match a.load_source(ctx, src) {
                Ok(sessions) => Examined {
                    sessions: sessions.len(),
                    read: sessions
                        .into_iter()
                        .map(|s| {
                            let st = analyse(&matcher, &s);
                            let hit = hit(a.name(), &st, q, s.summary);
                            ReadSession::complete(st, hit)
                        })
                        .collect(),
                },
                Err(_) => Examined {
                    sessions: 0,
                    read: Vec::new(),
                },
            })
            .collect();
        let mut scanned: Vec<Option<Examined>> = scanned.into_iter().map(Some).collect();
        let examined = order.into_iter().map(|(_, n, i)| match n {
            Some(n) => {
                let mut v = read.remove(&n).unwrap_or_default();
                v.sort_by_key(|(ordinal, _)| *ordinal);
                Examined {
                    sessions: snap.ft.catalog[n as usize].sessions,
                    read: v.into_iter().map(|(_, r)| r).collect(),
                }
            }
            None => scanned[i].take().expect("each scanned once"),
        });
        let hits = rank(q, examined);
        *self.read_from.borrow_mut() = Some((ctx.clone(), fresh_sources));
        hits
    }

    fn complete(&self, q: &Query, keys: &[u64]) -> Option<Vec<Completed>> {
        let read_from = self.read_from.borrow();
        let (ctx, sources) = read_from.as_ref()?;
        let pf = Prefilter::new(q);
        let matcher = Matcher::new(q, &pf);
        let all: Vec<(u64, u64)> = self.keys.borrow().clone();
        self.tally.borrow_mut().completed += keys.len();
        let snap = &self.snap;
        keys.par_iter()
            .map(|&k| {
                let &(source, ordinal) = all.get(k as usize)?;
                let s = snap.read(ctx, source, sources.get(&source)?, ordinal)?;
                let st = analyse(&matcher, &s);
                let mut summary = s.summary;
                summary.unified_id = crate::ids::unified_id(&summary.agent, &summary.session_id);
                Some(Completed {
                    adjacent: st.adjacent_tf,
                    snippet: st.snippet,
                    summary,
                })
            })
            .collect()
    }
}

/// `Client::search` with the hits of the agents without a search of their own from `ft`, and
/// where their statistics came from.
pub fn search(
    ft: &FullText,
    cache: &crate::list::SummaryCache,
    ctx: &Context,
    q: &crate::options::SearchQuery,
) -> tantivy::Result<(Vec<SessionSummary>, Tally)> {
    let targets: Vec<&'static dyn Agent> = match &q.agent {
        Some(name) => match agents::find(name) {
            Some(a) => vec![a],
            None => return Ok((Vec::new(), Tally::default())),
        },
        None => agents::all().to_vec(),
    };
    let summaries_of = |a: &dyn Agent, ids: &std::collections::HashSet<&str>| {
        cache.summaries_with_ids(ctx, a, ids)
    };
    let price = |v: &mut [SessionSummary]| crate::cost::apply_to_summaries(ctx, v);
    let files = IndexedHits::new(ft)?;
    let found = crate::search::run(ctx, &targets, q, &summaries_of, &price, &files);
    let tally = *files.tally.borrow();
    Ok((found, tally))
}
