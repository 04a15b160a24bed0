//! Bringing the index up to date with the stores, source by source, at every call: a source whose
//! stamps (size, mtime of the file and its side files, and the file's inode) are what the index
//! recorded is answered from the index; any other is read again through its agent, its sessions'
//! documents replaced (of a database of many sessions, those that changed); a source that is gone
//! is dropped with everything read from it. Documents are written to the SQLite file and the
//! postings under one new generation, the postings committed first.
use rayon::prelude::*;
use rusqlite::{params, Connection, OptionalExtension};
use rustc_hash::FxHashMap as HashMap;
use std::path::Path;

use super::codec::{self, Writer};
use super::postings::{Budget, Postings, PostingsWriter};
pub use super::reading::Part;
use super::reading::{earlier_read, path_bytes, read_source, Content, SourceRead};
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

/// How many of `sources` (all of `a`'s) a call needing `part` would read (changed, new or
/// gone).
pub fn stale(
    conn: &Connection,
    a: &dyn Agent,
    sources: &[Source],
    part: Part,
) -> Result<u64, Fault> {
    let c = compare(conn, a, sources, part, None)?;
    Ok((c.stale.len() + c.gone.len()) as u64)
}

/// The sessions a restored kept copy serves (the archived ones: those its agent's store no
/// longer holds), and the key they add to its stamps': a copy read for other sessions is read
/// again.
pub struct Served {
    pub ids: std::collections::HashSet<String>,
    key: [u8; 16],
}

impl Served {
    pub fn new(ids: std::collections::HashSet<String>) -> Served {
        let mut sorted: Vec<&str> = ids.iter().map(String::as_str).collect();
        sorted.sort_unstable();
        let key = xxhash_rust::xxh3::xxh3_128(sorted.join("\0").as_bytes()).to_le_bytes();
        Served { ids, key }
    }
}

/// `key` of a source, with the sessions it serves when it is a kept copy.
fn key_of(src: &Source, served: Option<&Served>) -> Vec<u8> {
    let mut k = key(src);
    if let Some(s) = served {
        k.extend_from_slice(&s.key);
    }
    k
}

/// Where each source stands against what the index recorded.
pub(super) struct Compared {
    /// Per source, in the caller's order: the index's id and session count when up to date.
    pub(super) fresh: Vec<Option<(i64, usize)>>,
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
/// store of tens of thousands of files is compared in a few milliseconds. `served`: the sources
/// are restored kept copies (`super::archived`), with the sessions each serves, compared with
/// the archived rows only; else the live rows only.
pub(super) fn compare(
    conn: &Connection,
    a: &dyn Agent,
    sources: &[Source],
    part: Part,
    served: Option<&[Served]>,
) -> Result<Compared, Fault> {
    let mut order: Vec<usize> = (0..sources.len()).collect();
    order.sort_unstable_by(|&x, &y| path_bytes(&sources[x].path).cmp(path_bytes(&sources[y].path)));
    let mut out = Compared {
        fresh: vec![None; sources.len()],
        stale: Vec::new(),
        gone: Vec::new(),
    };
    let sql = format!(
        "SELECT id, path, sessions, {} FROM source WHERE agent = ?1 AND archived = ?2
         ORDER BY path",
        part.key_column()
    );
    let mut st = conn.prepare_cached(&sql)?;
    let mut rows = st.query(params![a.name(), served.is_some()])?;
    let key = |i: usize| key_of(&sources[i], served.map(|s| &s[i]));
    let mut next = order.into_iter().peekable();
    let mut now = Vec::new();
    while let Some(r) = rows.next()? {
        let path = r.get_ref(1)?.as_blob()?;
        let mut found = false;
        while let Some(&i) = next.peek() {
            let src = &sources[i];
            match path_bytes(&src.path).cmp(path) {
                // Not recorded: new.
                std::cmp::Ordering::Less => out.stale.push(Stale::new(i, key(i), false)),
                std::cmp::Ordering::Equal => {
                    found = true;
                    key_into(src, &mut now);
                    if let Some(s) = served {
                        now.extend_from_slice(&s[i].key);
                    }
                    let recorded = (r.get(0)?, r.get(2)?, r.get_ref(3)?.as_blob_or_null()?);
                    weigh(i, &now, recorded, &mut out.fresh, &mut out.stale);
                }
                std::cmp::Ordering::Greater => break,
            }
            next.next();
        }
        if !found {
            out.gone.push(r.get(0)?);
        }
    }
    out.stale.extend(next.map(|i| Stale::new(i, key(i), false)));
    Ok(out)
}

/// A source as the index records it once up to date: its id there, and how many sessions it
/// holds (for search; 0 when unreadable).
pub struct Synced {
    pub source: Source,
    pub id: i64,
    pub sessions: usize,
}

/// Bring `part` of every source of `a` up to date in the index of `dir`; returns the sources, in
/// the agent's order.
pub fn sync(
    conn: &Connection,
    dir: &Path,
    ctx: &Context,
    a: &dyn Agent,
    part: Part,
) -> Result<Vec<Synced>, Fault> {
    sync_sources(conn, dir, ctx, a, a.sources(ctx), part)
}

/// `sync` of sources already listed (a search lists every agent's at once).
pub fn sync_sources(
    conn: &Connection,
    dir: &Path,
    ctx: &Context,
    a: &dyn Agent,
    sources: Vec<Source>,
    part: Part,
) -> Result<Vec<Synced>, Fault> {
    sync_of(conn, dir, ctx, a, sources, part, None)
}

/// `sync_sources`, of live sources or (`served`) of restored kept copies.
pub(super) fn sync_of(
    conn: &Connection,
    dir: &Path,
    ctx: &Context,
    a: &dyn Agent,
    sources: Vec<Source>,
    part: Part,
    served: Option<&[Served]>,
) -> Result<Vec<Synced>, Fault> {
    let Compared {
        mut fresh,
        stale,
        gone,
    } = compare(conn, a, &sources, part, served)?;
    // One transaction for every batch; none when nothing changed: an up-to-date call takes no
    // write lock.
    if !gone.is_empty() || !stale.is_empty() {
        let change = Change {
            ctx,
            a,
            sources: &sources,
            stale: &stale,
            gone: &gone,
            part,
            served,
        };
        write_compared(conn, dir, &change, &mut fresh, None)?;
    }
    Ok(synced(sources, fresh))
}

/// A source `at` whose key is `now`, beside its row (`id`, `sessions`, the key recorded, if
/// any): fresh when the keys are equal, else stale.
fn weigh(
    at: usize,
    now: &[u8],
    (id, sessions, have): (i64, i64, Option<&[u8]>),
    fresh: &mut [Option<(i64, usize)>],
    stale: &mut Vec<Stale>,
) {
    match have {
        Some(have) if have == now => fresh[at] = Some((id, sessions as usize)),
        recorded => stale.push(Stale::new(at, now.to_vec(), recorded.is_some())),
    }
}

/// Write `change` in one transaction, filling `fresh` with the sources written, and finish the
/// postings once the file is committed. `expect`: the generation the index must still be of,
/// else nothing is written and `None` returned. Returns the generation written.
fn write_compared(
    conn: &Connection,
    dir: &Path,
    change: &Change,
    fresh: &mut [Option<(i64, usize)>],
    expect: Option<u64>,
) -> Result<Option<u64>, Fault> {
    let written = immediate(conn, |tx| {
        if let Some(g) = expect {
            if generation(tx)? != g {
                return Ok::<_, Fault>(None);
            }
        }
        let writer = write_changes(tx, dir, change, fresh)?;
        Ok(Some((writer, generation(tx)?)))
    })?;
    let Some((writer, now)) = written else {
        return Ok(None);
    };
    if let Some(w) = writer {
        w.finish()?;
    }
    Ok(Some(now))
}

/// The `sources` the index holds up to date (`fresh`, in their order), in that order.
fn synced(sources: Vec<Source>, fresh: Vec<Option<(i64, usize)>>) -> Vec<Synced> {
    (sources.into_iter().zip(fresh))
        .filter_map(|(source, f)| {
            let (id, sessions) = f?;
            Some(Synced {
                source,
                id,
                sessions,
            })
        })
        .collect()
}

/// `sync_sources` of a few of `a`'s sources, stamped again since the index was of
/// `generation` (the rest unchanged, none gone): each looked up by its path rather than the
/// whole store walked. Returns them with the generation they are searched at, or `None` when
/// the index is of another generation by then (another connection wrote it).
pub fn sync_restamped(
    conn: &Connection,
    dir: &Path,
    ctx: &Context,
    a: &dyn Agent,
    sources: Vec<Source>,
    generation_was: u64,
) -> Result<Option<(Vec<Synced>, u64)>, Fault> {
    let part = Part::Documents;
    let mut fresh = vec![None; sources.len()];
    let mut stale = Vec::new();
    {
        let sql = format!(
            "SELECT id, sessions, {} FROM source WHERE agent = ?1 AND archived = 0 AND path = ?2",
            part.key_column()
        );
        let mut st = conn.prepare_cached(&sql)?;
        for (i, src) in sources.iter().enumerate() {
            let now = key(src);
            let mut rows = st.query(params![a.name(), path_bytes(&src.path)])?;
            match rows.next()? {
                Some(r) => {
                    let recorded = (r.get(0)?, r.get(1)?, r.get_ref(2)?.as_blob_or_null()?);
                    weigh(i, &now, recorded, &mut fresh, &mut stale);
                }
                None => stale.push(Stale::new(i, now, false)),
            }
        }
    }
    let generation_now = match stale.is_empty() {
        true => Some(generation(conn)?).filter(|g| *g == generation_was),
        false => {
            let change = Change {
                ctx,
                a,
                sources: &sources,
                stale: &stale,
                gone: &[],
                part,
                served: None,
            };
            write_compared(conn, dir, &change, &mut fresh, Some(generation_was))?
        }
    };
    let Some(generation_now) = generation_now else {
        return Ok(None);
    };
    Ok(Some((synced(sources, fresh), generation_now)))
}

/// What the index holds of `sources` as they are now, without writing (another process is
/// writing it, or the caller leaves the writing for later).
pub struct Unsynced {
    /// The sources the index holds unchanged.
    pub fresh: Vec<Synced>,
    /// The others, which the caller reads itself.
    pub changed: Vec<Source>,
    /// How many sources the index holds that are gone from the store.
    pub gone: usize,
}

/// `Unsynced` of `sources`.
pub fn unsynced(conn: &Connection, a: &dyn Agent, sources: Vec<Source>) -> Result<Unsynced, Fault> {
    let c = compare(conn, a, &sources, Part::Documents, None)?;
    let mut out = Unsynced {
        fresh: Vec::new(),
        changed: Vec::new(),
        gone: c.gone.len(),
    };
    for (source, fresh) in sources.into_iter().zip(c.fresh) {
        match fresh {
            Some((id, sessions)) => out.fresh.push(Synced {
                source,
                id,
                sessions,
            }),
            None => out.changed.push(source),
        }
    }
    Ok(out)
}

/// What a sync writes: the sources of `a` to read again and those gone.
struct Change<'a> {
    ctx: &'a Context,
    a: &'a dyn Agent,
    sources: &'a [Source],
    stale: &'a [Stale],
    gone: &'a [i64],
    part: Part,
    /// Restored kept copies, with the sessions each serves: only those are stored.
    served: Option<&'a [Served]>,
}

/// The postings of the index in `dir`, opened for writing by the holder of the SQLite file's
/// write lock: a build of many sources with the build's budget and no merging as it goes, an
/// update of a few on one thread. Postings of another generation than the file records are
/// damage (a commit of one without the other).
fn postings_writer(tx: &Connection, dir: &Path, sources: usize) -> Result<PostingsWriter, Fault> {
    let postings = Postings::open(&super::postings::path_in(dir, super::store::FORMAT))?;
    if postings.generation()? != generation(tx)? {
        return Err(Fault::Broken("postings of another generation".into()));
    }
    let many = sources >= BATCH;
    let budget = match many {
        true => Budget::build(),
        false => Budget::update(),
    };
    postings.writer(budget, many)
}

/// The generation of the postings the SQLite file records.
pub fn generation(conn: &Connection) -> Result<u64, Fault> {
    let g: i64 = conn.query_row("SELECT generation FROM postings", [], |r| r.get(0))?;
    Ok(g as u64)
}

/// Drop the gone sources, read the stale ones batch by batch and store what they hold; the
/// postings, when documents changed, are committed under a new generation before the caller
/// commits the file, and their writer returned, to finish once it has.
fn write_changes(
    tx: &Connection,
    dir: &Path,
    c: &Change,
    fresh: &mut [Option<(i64, usize)>],
) -> Result<Option<PostingsWriter>, Fault> {
    let documents = c.part == Part::Documents || !c.gone.is_empty();
    let mut postings = match documents {
        true => Some(postings_writer(tx, dir, c.stale.len())?),
        false => None,
    };
    for id in c.gone {
        for (doc, _) in documents_of(tx, *id)? {
            drop_document(tx, postings.as_ref(), doc)?;
        }
        tx.execute("DELETE FROM source WHERE id = ?1", [id])?;
    }
    if !c.stale.is_empty() {
        write_stale(tx, c, &mut postings, fresh)?;
    }
    if let Some(p) = postings.as_mut() {
        tx.execute("UPDATE postings SET generation = generation + 1", [])?;
        p.commit(generation(tx)?)?;
    }
    Ok(postings)
}

/// How long a sync writes before it commits what it has written and goes on in a new
/// transaction: an interrupted build keeps all but its last stretch, and other processes see the
/// index fill. `AGENT_MUX_INDEX_CHECKPOINT_MS` sets another (tests interrupt short builds).
fn checkpoint_every(ctx: &Context) -> std::time::Duration {
    let ms = ctx.env.var("AGENT_MUX_INDEX_CHECKPOINT_MS");
    std::time::Duration::from_millis(ms.and_then(|v| v.parse().ok()).unwrap_or(10_000))
}

/// Commit what was written so far, postings first under a new generation, and begin the next
/// transaction, waiting for the write lock as long as a connection waits for a busy file (other
/// processes hold it only to find the postings' writer taken).
fn checkpoint(tx: &Connection, postings: Option<&mut PostingsWriter>) -> Result<(), Fault> {
    if let Some(p) = postings {
        tx.execute("UPDATE postings SET generation = generation + 1", [])?;
        p.commit(generation(tx)?)?;
    }
    tx.execute_batch("COMMIT")?;
    // A new file is built in rollback mode, where a writer keeps readers waiting: the rest of
    // a long build is written in WAL.
    super::store::to_wal(tx);
    tx.execute_batch("BEGIN IMMEDIATE")?;
    Ok(())
}

/// Read the stale sources batch by batch and store what they hold, committing as it goes
/// (`checkpoint_every`).
fn write_stale(
    tx: &Connection,
    c: &Change,
    postings: &mut Option<PostingsWriter>,
    fresh: &mut [Option<(i64, usize)>],
) -> Result<(), Fault> {
    let Change {
        ctx,
        a,
        sources,
        stale,
        part,
        served,
        ..
    } = *c;
    let total = stale.len() as u64;
    let mut done = 0u64;
    // What the index kept of its earlier reads of the stale sources read session by session.
    let mut earlier = Vec::with_capacity(stale.len());
    for st in stale {
        // A kept copy is read whole: only the sessions it serves are kept of it.
        let many = st.recorded && a.many_sessions().is_some() && served.is_none();
        earlier.push(match many {
            true => earlier_read(tx, a, &sources[st.at], part)?,
            false => None,
        });
    }
    let earlier = &earlier;
    // The next batch is read (on the thread pool) while this one is written: reading takes
    // every core, writing one (and tantivy's own threads).
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
                            let read = read_source(ctx, a, &sources[st.at], part, e.as_ref());
                            match served {
                                Some(s) => read.only(&s[st.at].ids),
                                None => read,
                            }
                        })
                        .collect()
                });
                // The writer stopped (an error): read no more.
                if send.send(reads).is_err() {
                    break;
                }
            }
        });
        let every = checkpoint_every(ctx);
        let mut since = std::time::Instant::now();
        for (batch, reads) in stale.chunks(BATCH).zip(batches) {
            for (st, r) in batch.iter().zip(reads) {
                let src = &sources[st.at];
                let archived = served.is_some();
                fresh[st.at] = Some(write(
                    tx,
                    postings.as_ref(),
                    a.name(),
                    archived,
                    src,
                    &st.key,
                    r,
                )?);
            }
            done += batch.len() as u64;
            if since.elapsed() >= every && done < total {
                checkpoint(tx, postings.as_mut())?;
                since = std::time::Instant::now();
            }
            if let Some(p) = &ctx.options.progress {
                (p.0)(&Progress {
                    agent: a.name(),
                    done,
                    total,
                });
            }
        }
        Ok(())
    })
}

/// Run `f` in a write transaction taken at once (`BEGIN IMMEDIATE`, so a second writer fails at
/// the start rather than halfway), rolled back if `f` fails. Another process writing is not
/// waited for (a build takes seconds): the caller answers without writing (`Fault::Busy`).
pub fn immediate<T, E: From<rusqlite::Error>>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> Result<T, E>,
) -> Result<T, E> {
    conn.busy_timeout(std::time::Duration::ZERO)?;
    let began = conn.execute_batch("BEGIN IMMEDIATE");
    conn.busy_timeout(super::store::BUSY)?;
    began?;
    match f(conn).and_then(|v| Ok(conn.execute_batch("COMMIT").map(|_| v)?)) {
        Ok(v) => Ok(v),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

fn source_id(tx: &Connection, agent: &str, archived: bool, src: &Source) -> rusqlite::Result<i64> {
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
                "INSERT INTO source(agent, path, archived) VALUES (?1, ?2, ?3)",
                params![agent, path, archived],
            )?;
            Ok(tx.last_insert_rowid())
        }
    }
}

/// The docs of a source: id and session id, in the order they were written.
fn documents_of(tx: &Connection, source: i64) -> Result<Vec<(i64, String)>, Fault> {
    let mut st = tx.prepare_cached("SELECT id, summary FROM doc WHERE source = ?1 ORDER BY id")?;
    let mut rows = st.query([source])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let head = codec::decode_summary_head(r.get_ref(1)?.as_blob()?)
            .map_err(|_| Fault::Broken("a stored summary does not decode".into()))?;
        out.push((r.get(0)?, head.session_id));
    }
    Ok(out)
}

/// Drop a doc's row and its postings.
fn drop_document(
    tx: &Connection,
    postings: Option<&PostingsWriter>,
    doc: i64,
) -> Result<(), Fault> {
    let postings = postings.ok_or_else(|| Fault::Unusable("no postings writer".into()))?;
    tx.execute("DELETE FROM doc WHERE id = ?1", [doc])?;
    super::touches::delete(tx, doc)?;
    postings.delete(doc);
    Ok(())
}

/// Store what was read from `src`.
fn write(
    tx: &Connection,
    postings: Option<&PostingsWriter>,
    agent: &str,
    archived: bool,
    src: &Source,
    k: &[u8],
    r: SourceRead,
) -> Result<(i64, usize), Fault> {
    let id = source_id(tx, agent, archived, src)?;
    let prints = r.prints.as_deref().map(codec::fingerprints);
    match r.content {
        Content::Summaries(res) => {
            let (blob, err, active) = match res {
                Ok(v) => {
                    let active = v.iter().map(|s| s.updated_at.timestamp_millis()).max();
                    (Some(codec::summaries(&v)), None, active)
                }
                Err(e) => (None, Some(e), None),
            };
            tx.execute(
                "UPDATE source SET list_key = ?2, summaries = ?3, list_error = ?4, list_prints = ?5,
                 active = ?6 WHERE id = ?1",
                params![id, k, blob, err, prints, active],
            )?;
            Ok((id, 0))
        }
        Content::Documents { docs, kept } => {
            let docs = docs.unwrap_or_default();
            // The sessions that did not change keep their docs; every other doc is replaced.
            // (A store may hold one id twice: each copy has its doc.)
            let mut before: HashMap<String, Vec<i64>> = HashMap::default();
            for (doc, sid) in documents_of(tx, id)? {
                before.entry(sid).or_default().push(doc);
            }
            let kept = kept
                .iter()
                .filter_map(|sid| before.get_mut(sid).and_then(Vec::pop))
                .count();
            for doc in before.into_values().flatten() {
                drop_document(tx, postings, doc)?;
            }
            let sessions = (docs.len() + kept) as i64;
            if !docs.is_empty() {
                let postings =
                    postings.ok_or_else(|| Fault::Unusable("no postings writer".into()))?;
                let mut insert = tx.prepare_cached(
                    "INSERT INTO doc(source, agent, summary, lengths) VALUES (?1, ?2, ?3, ?4)",
                )?;
                for d in docs {
                    insert.execute(params![id, agent, d.summary, d.lengths])?;
                    let doc = tx.last_insert_rowid();
                    super::touches::insert(tx, doc, &d.session_id, &d.touches)?;
                    // An agent searched by its own engine has no terms here, only its touches.
                    if let Some(texts) = d.texts {
                        postings.add(texts.document(&postings.fields, doc))?;
                    }
                }
            }
            tx.execute(
                "UPDATE source SET search_key = ?2, sessions = ?3, search_prints = ?4 WHERE id = ?1",
                params![id, k, sessions, prints],
            )?;
            Ok((id, sessions as usize))
        }
    }
}
