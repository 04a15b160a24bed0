//! Bringing the index up to date with the stores, source by source, at every call: a source whose
//! stamps (size, mtime of the file and its side files, and the file's inode) are what the index
//! recorded is answered from the index; any other is read again through its agent, and each of
//! its sessions the index holds is compared with what is stored (`delta`), so that only the
//! counts that changed are written; a source that is gone is dropped with everything read from it.
use rayon::prelude::*;
use rusqlite::{params, Connection, OptionalExtension};
use rustc_hash::FxHashMap as HashMap;

use super::codec::{self, Writer};
pub use super::reading::Part;
use super::reading::{earlier_read, path_bytes, read_source, Body, Content, SourceRead};
pub use super::rows::set_segment_terms;
use super::rows::{self, Segments};
use super::store::Fault;
use crate::agents::{Agent, Source};
use crate::context::{Context, Progress};
use crate::read::page_cache::install_for;

/// What a source's part was read from: every stamp, inodes included (a file replaced by
/// another of the same size and time is still a new file).
pub fn key(src: &Source) -> Vec<u8> {
    let mut k = Vec::new();
    key_into(src, &mut k);
    k
}

/// `key` written over `out`.
fn key_into(src: &Source, out: &mut Vec<u8>) {
    Writer::over(out, |w| {
        w.put_u64(src.stamps.len() as u64);
        for s in &src.stamps {
            w.put_u64(s.size);
            w.put_i64(s.mtime_ns as i64);
            w.put_u64(s.inode);
        }
    })
}

/// Sources read and written at a time: progress is reported, and memory held, per batch (a batch
/// is read while the one before it is written, and one more may wait between them).
const BATCH: usize = 128;

/// How many sources of `a` a call needing `part` would read (changed, new or gone).
pub fn stale(conn: &Connection, ctx: &Context, a: &dyn Agent, part: Part) -> Result<u64, Fault> {
    let sources = a.sources(ctx);
    let c = compare(conn, a, &sources, part)?;
    Ok((c.stale.len() + c.gone.len()) as u64)
}

/// Where each source stands against what the index recorded.
struct Compared {
    /// Per source, in the caller's order: the index's id and session count when up to date.
    fresh: Vec<Option<(i64, usize)>>,
    /// The sources to read.
    stale: Vec<Stale>,
    /// Ids of recorded sources that are gone from the store.
    gone: Vec<i64>,
}

/// A source to read: its position, the key it is read from now, and whether the index holds
/// the part read from it before (then compared with what is read now).
struct Stale {
    at: usize,
    key: Vec<u8>,
    recorded: bool,
}

impl Stale {
    fn new(at: usize, key: Vec<u8>, recorded: bool) -> Stale {
        Stale { at, key, recorded }
    }
}

/// Walk the sources in path order beside the index's rows of the agent, which come in path
/// order (index `source_fresh`, which holds every column read here): no row is copied, and a
/// store of tens of thousands of files is compared in a few milliseconds.
fn compare(
    conn: &Connection,
    a: &dyn Agent,
    sources: &[Source],
    part: Part,
) -> Result<Compared, Fault> {
    let mut order: Vec<usize> = (0..sources.len()).collect();
    order.sort_unstable_by(|&x, &y| path_bytes(&sources[x].path).cmp(path_bytes(&sources[y].path)));
    let mut out = Compared {
        fresh: vec![None; sources.len()],
        stale: Vec::new(),
        gone: Vec::new(),
    };
    let sql = format!(
        "SELECT id, path, sessions, {} FROM source WHERE agent = ?1 ORDER BY path",
        part.key_column()
    );
    let mut st = conn.prepare_cached(&sql)?;
    let mut rows = st.query([a.name()])?;
    let mut next = order.into_iter().peekable();
    let mut now = Vec::new();
    while let Some(r) = rows.next()? {
        let path = r.get_ref(1)?.as_blob()?;
        let mut found = false;
        while let Some(&i) = next.peek() {
            let src = &sources[i];
            match path_bytes(&src.path).cmp(path) {
                // Not recorded: new.
                std::cmp::Ordering::Less => out.stale.push(Stale::new(i, key(src), false)),
                std::cmp::Ordering::Equal => {
                    found = true;
                    key_into(src, &mut now);
                    match r.get_ref(3)?.as_blob_or_null()? {
                        Some(have) if have == now.as_slice() => {
                            out.fresh[i] = Some((r.get(0)?, r.get::<_, i64>(2)? as usize));
                        }
                        recorded => out
                            .stale
                            .push(Stale::new(i, now.clone(), recorded.is_some())),
                    }
                }
                std::cmp::Ordering::Greater => break,
            }
            next.next();
        }
        if !found {
            out.gone.push(r.get(0)?);
        }
    }
    out.stale
        .extend(next.map(|i| Stale::new(i, key(&sources[i]), false)));
    Ok(out)
}

/// A source as the index records it once up to date: its id there, and how many sessions it
/// holds (for search; 0 when unreadable).
pub struct Synced {
    pub source: Source,
    pub id: i64,
    pub sessions: usize,
}

/// Bring `part` of every source of `a` up to date; returns the sources, in the agent's order.
pub fn sync(
    conn: &Connection,
    ctx: &Context,
    a: &dyn Agent,
    part: Part,
) -> Result<Vec<Synced>, Fault> {
    sync_sources(conn, ctx, a, a.sources(ctx), part)
}

/// `sync` of sources already listed (a search lists every agent's at once).
pub fn sync_sources(
    conn: &Connection,
    ctx: &Context,
    a: &dyn Agent,
    sources: Vec<Source>,
    part: Part,
) -> Result<Vec<Synced>, Fault> {
    let Compared {
        mut fresh,
        stale,
        gone,
    } = compare(conn, a, &sources, part)?;
    if !gone.is_empty() {
        immediate(conn, |tx| {
            for id in &gone {
                rows::drop_documents(tx, *id)?;
                tx.execute("DELETE FROM source WHERE id = ?1", [id])?;
            }
            Ok(())
        })?;
    }
    // One transaction for every batch: the counts of a batch's sessions go all over the term
    // table, and committing each batch would write most of that table again every time. None
    // when nothing changed: an up-to-date call takes no write lock.
    if !stale.is_empty() {
        write_stale(conn, ctx, a, &sources, &stale, part, &mut fresh)?;
    }
    Ok(sources
        .into_iter()
        .zip(fresh)
        .filter_map(|(source, f)| {
            let (id, sessions) = f?;
            Some(Synced {
                source,
                id,
                sessions,
            })
        })
        .collect())
}

/// Read the stale sources batch by batch and store what they hold, in one transaction.
fn write_stale(
    conn: &Connection,
    ctx: &Context,
    a: &dyn Agent,
    sources: &[Source],
    stale: &[Stale],
    part: Part,
    fresh: &mut [Option<(i64, usize)>],
) -> rusqlite::Result<()> {
    let total = stale.len() as u64;
    immediate(conn, |tx| {
        let mut done = 0u64;
        let mut terms = Segments::open(tx)?;
        // What the index kept of its earlier reads of the stale sources read session by session.
        let mut earlier = Vec::with_capacity(stale.len());
        for st in stale {
            let many = st.recorded && a.many_sessions().is_some();
            earlier.push(match many {
                true => earlier_read(tx, a, &sources[st.at], part)?,
                false => None,
            });
        }
        let earlier = &earlier;
        // The next batch is read (on the thread pool) while this one is written: reading takes
        // every core, writing one.
        std::thread::scope(|scope| {
            let (send, batches) = std::sync::mpsc::sync_channel(1);
            scope.spawn(move || {
                for (batch, earlier) in stale.chunks(BATCH).zip(earlier.chunks(BATCH)) {
                    let paths = batch.iter().map(|st| sources[st.at].path.as_path());
                    let reads: Vec<SourceRead> = install_for(paths, || {
                        batch
                            .par_iter()
                            .zip(earlier)
                            .map(|(st, e)| {
                                let src = &sources[st.at];
                                read_source(ctx, a, src, part, st.recorded, e.as_ref())
                            })
                            .collect()
                    });
                    // The writer stopped (an error): read no more.
                    if send.send(reads).is_err() {
                        break;
                    }
                }
            });
            for (batch, reads) in stale.chunks(BATCH).zip(batches) {
                for (st, r) in batch.iter().zip(reads) {
                    let src = &sources[st.at];
                    fresh[st.at] = Some(write(tx, a.name(), src, &st.key, r, &mut terms)?);
                }
                if terms.full() {
                    terms.flush(tx)?;
                }
                done += batch.len() as u64;
                if let Some(p) = &ctx.options.progress {
                    (p.0)(&Progress {
                        agent: a.name(),
                        done,
                        total,
                    });
                }
            }
            terms.flush(tx)
        })
    })
}

/// Run `f` in a write transaction taken at once (`BEGIN IMMEDIATE`: a second writer waits for the
/// busy timeout instead of failing halfway), rolled back if `f` fails.
pub fn immediate<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    match f(conn).and_then(|v| conn.execute_batch("COMMIT").map(|_| v)) {
        Ok(v) => Ok(v),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

fn source_id(tx: &Connection, agent: &str, src: &Source) -> rusqlite::Result<i64> {
    let path = path_bytes(&src.path);
    let found: Option<i64> = tx
        .query_row(
            "SELECT id FROM source WHERE agent = ?1 AND path = ?2",
            params![agent, path],
            |r| r.get(0),
        )
        .optional()?;
    match found {
        Some(id) => Ok(id),
        None => {
            tx.execute(
                "INSERT INTO source(agent, path) VALUES (?1, ?2)",
                params![agent, path],
            )?;
            Ok(tx.last_insert_rowid())
        }
    }
}

/// Store what was read from `src`; the counts of its new sessions go to `terms`, for the caller
/// to insert in key order.
fn write(
    tx: &Connection,
    agent: &str,
    src: &Source,
    k: &[u8],
    r: SourceRead,
    terms: &mut Segments,
) -> rusqlite::Result<(i64, usize)> {
    let id = source_id(tx, agent, src)?;
    let prints = r.prints.as_deref().map(codec::fingerprints);
    match r.content {
        Content::Summaries(res) => {
            let (blob, err) = match res {
                Ok(v) => (Some(codec::summaries(&v)), None),
                Err(e) => (None, Some(e)),
            };
            tx.execute(
                "UPDATE source SET list_key = ?2, summaries = ?3, list_error = ?4, list_prints = ?5
                 WHERE id = ?1",
                params![id, k, blob, err, prints],
            )?;
            Ok((id, 0))
        }
        Content::Documents { docs, kept } => {
            let docs = docs.unwrap_or_default();
            // A session read before keeps its doc; the others are dropped or added.
            // (A store may hold one id twice: each copy has its doc.)
            let mut before: HashMap<String, Vec<i64>> = HashMap::default();
            for (doc, sid) in rows::documents(tx, id)? {
                before.entry(sid).or_default().push(doc);
            }
            // The sessions that did not change keep their docs as they are.
            let kept = kept
                .iter()
                .filter_map(|sid| before.get_mut(sid).and_then(Vec::pop))
                .count();
            let sessions = (docs.len() + kept) as i64;
            let mut insert_doc = tx.prepare_cached(
                "INSERT INTO doc(source, agent, summary, lengths, seg) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            let mut insert_body = tx
                .prepare_cached("INSERT INTO body(id, messages, vocabulary) VALUES (?1, ?2, ?3)")?;
            let mut added = Vec::new();
            for d in docs {
                match (before.get_mut(&d.session_id).and_then(Vec::pop), d.body) {
                    (Some(doc), Body::Reread(now)) => {
                        rows::update_document(tx, doc, &d.summary, &now)?
                    }
                    (Some(doc), body) => {
                        rows::drop_document(tx, doc)?;
                        added.push((d.summary, body));
                    }
                    (None, body) => added.push((d.summary, body)),
                }
            }
            for doc in before.into_values().flatten() {
                rows::drop_document(tx, doc)?;
            }
            for (summary, body) in added {
                let c = body.into_counted().map_err(|_| rows::damaged())?;
                insert_doc.execute(params![id, agent, summary, c.lengths, terms.seg])?;
                let doc_id = tx.last_insert_rowid();
                insert_body.execute(params![doc_id, c.messages, c.vocabulary])?;
                terms.add(doc_id, c.terms);
            }
            tx.execute(
                "UPDATE source SET search_key = ?2, sessions = ?3, search_prints = ?4 WHERE id = ?1",
                params![id, k, sessions, prints],
            )?;
            Ok((id, sessions as usize))
        }
    }
}
