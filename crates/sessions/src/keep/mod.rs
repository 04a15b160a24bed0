//! Our own copy of every session amux saw, so that history survives the agents' own clean-up:
//! the sources' bytes as the agents wrote them, in the data directory (`place`), cut into
//! zstd-compressed chunks named by their hash (`chunks`), one manifest of versions per source
//! (`manifest`), and a catalog of what is kept read at each call (`catalog`). A kept version is
//! read again by the agent's own parser from a restored copy (`restore`), so it answers exactly
//! as the source did.
//!
//! Separate from the index: nothing here is in the cache directory but the restored copies,
//! which are made again when missing. Only the storage layer decides when to keep and when to
//! serve what was kept.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::agents::Source;
use crate::context::Context;

pub mod catalog;
pub mod chunks;
pub mod files;
pub mod manifest;
pub mod pause;
pub mod place;
pub mod restore;
pub mod take;

pub use catalog::{Catalog, Entry};
pub use manifest::{KeptFile, KeptSession, Manifest};
pub use place::Origin;

/// Sources kept in one call above which their files are synced together.
const SMALL_BATCH: usize = 16;
/// Garbage (chunks no version uses any more) allowed before a sweep: this much, or a tenth of
/// the store.
const GARBAGE_FLOOR: u64 = 64 << 20;
/// A chunk younger than this is never swept: a process keeping at the same time may have written
/// it for a manifest it has not written yet.
const SWEEP_MIN_AGE: std::time::Duration = std::time::Duration::from_secs(600);

/// A kept store (it may not exist yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub dir: PathBuf,
}

/// What one `take` did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Taken {
    pub sources: usize,
    /// Compressed bytes written.
    pub bytes: u64,
    /// Sources that could not be kept, and why.
    pub faults: Vec<String>,
    /// The catalog as written, when it was.
    pub catalog: Option<Written>,
}

/// The catalog a `take` wrote: `base` with `changes`, as it stands `at`; `before`, where `base`
/// stood when it was the catalog given to the take (a holder of it applies `changes` to its own).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub before: Option<catalog::At>,
    pub at: catalog::At,
    pub base: std::sync::Arc<Catalog>,
    pub changes: Vec<catalog::Change>,
}

/// What a `take` may use rather than read or store again.
#[derive(Default)]
pub struct Given<'a> {
    /// A catalog the caller read, with where it stood: used while it stands there still (else
    /// read again).
    pub catalog: Option<(catalog::At, std::sync::Arc<Catalog>)>,
    /// Chunks stored ahead (`take_chunks`): used for each source still at the stamps it was
    /// listed at then.
    pub chunks: Option<&'a Chunked>,
}

/// The sources whose chunks were stored ahead of their sessions (`Kept::take_chunks`), by path:
/// the stamps they were listed at, their file and side files as chunks, the bytes written.
#[derive(Debug, Default)]
pub struct Chunked(HashMap<PathBuf, Ahead>);

type Ahead = (Vec<(u64, i128, u64)>, Vec<Option<KeptFile>>, u64);

impl Kept {
    /// The store of `ctx`'s data directory.
    pub fn of(ctx: &Context) -> Option<Kept> {
        place::kept_dir(ctx).map(|dir| Kept { dir })
    }

    /// Whether anything was ever kept here.
    pub fn exists(&self) -> bool {
        self.dir.join("sources").is_dir()
    }

    pub fn catalog(&self) -> (Catalog, Vec<String>) {
        catalog::load(&self.dir)
    }

    /// The catalog and where it stood when read (`catalog::load_at`).
    pub fn catalog_read(&self) -> (Catalog, Option<catalog::At>, Vec<String>) {
        catalog::load_at(&self.dir)
    }

    /// Where the catalog stands now (`catalog::at`).
    pub fn catalog_at(&self) -> Option<catalog::At> {
        catalog::at(&self.dir)
    }

    /// The sources of `agent` whose stamps differ from those they were last kept at.
    pub fn changed<'a>(
        &self,
        cat: &Catalog,
        agent: &str,
        sources: &'a [Source],
    ) -> Vec<&'a Source> {
        sources
            .iter()
            .filter(|s| {
                let name = manifest::name_of(agent, &s.path);
                let now = manifest::stamps_of(&s.stamps);
                cat.sources.get(&name).is_none_or(|e| e.stamps != now)
            })
            .collect()
    }

    /// Store the chunks of `sources` of `agent` (those `changed` found), before their sessions
    /// are known (beside the index's write), for `take` to write their versions from; durable
    /// once `sync_chunks` returns. Until then no manifest names them, so nothing kept changes;
    /// what could not be stored is left for `take` to store and report.
    pub fn take_chunks(&self, ctx: &Context, agent: &str, sources: &[&Source]) -> Chunked {
        if sources.is_empty() || files::private_dir(&self.dir).is_err() {
            return Chunked::default();
        }
        pause::arm(ctx);
        let made = (sources.par_iter())
            .filter_map(|src| {
                let name = manifest::name_of(agent, &src.path);
                let prev = manifest::read(&self.dir, &name).ok().flatten();
                let (files, wrote) = take::files(&self.dir, src, prev.as_ref(), true).ok()?;
                Some((
                    src.path.clone(),
                    (manifest::stamps_of(&src.stamps), files, wrote),
                ))
            })
            .collect();
        Chunked(made)
    }

    /// Make the chunks `take_chunks` stored durable: one sync of the store's file system.
    pub fn sync_chunks(&self) -> std::io::Result<()> {
        files::sync_batch(&self.dir)
    }

    /// Keep `sources` of `agent` (those `changed` found), each with the sessions `sessions_of`
    /// reads from it (`None`: unreadable, not kept). Chunks are written first, in parallel, unless
    /// `given` holds them; then, under the store's lock, each manifest gains its version and the
    /// catalog is written.
    pub fn take(
        &self,
        ctx: &Context,
        agent: &str,
        sources: &[&Source],
        sessions_of: &(dyn Fn(&Source) -> Option<Vec<KeptSession>> + Sync),
        given: Given,
    ) -> Taken {
        let mut taken = Taken::default();
        if sources.is_empty() {
            return taken;
        }
        pause::arm(ctx);
        // A large batch (a first keep) is made durable by one sync of the store; a few files
        // (the call after an append) are each fsynced, rather than a sync of the whole disk.
        let batched = sources.len() > SMALL_BATCH;
        if let Err(e) = files::private_dir(&self.dir) {
            taken.faults.push(format!("{}: {e}", self.dir.display()));
            return taken;
        }
        let now_ms = ctx
            .env
            .now()
            .unwrap_or_else(chrono::Utc::now)
            .timestamp_millis();
        let ahead = |src: &Source| {
            let (stamps, files, wrote) = given.chunks?.0.get(&src.path)?;
            (*stamps == manifest::stamps_of(&src.stamps)).then(|| (files.clone(), *wrote))
        };
        let stored_now = std::sync::atomic::AtomicBool::new(false);
        let made: Vec<Result<(String, manifest::Version, u64), String>> = sources
            .par_iter()
            .filter_map(|src| {
                let sessions = sessions_of(src)?;
                let name = manifest::name_of(agent, &src.path);
                if let Some((files, wrote)) = ahead(src) {
                    let v = take::of_files(src, files, sessions, now_ms);
                    return Some(Ok((name, v, wrote)));
                }
                stored_now.store(true, std::sync::atomic::Ordering::Relaxed);
                let prev = manifest::read(&self.dir, &name).ok().flatten();
                Some(
                    take::version(&self.dir, src, prev.as_ref(), sessions, now_ms, batched)
                        .map(|(v, w)| (name, v, w))
                        .map_err(|e| format!("{}: {e}", src.path.display())),
                )
            })
            .collect();
        // The chunks are durable before any manifest names them (those stored ahead were made so).
        let synced = match batched && stored_now.into_inner() {
            true => files::sync_batch(&self.dir),
            false => Ok(()),
        };
        if let Err(e) = synced {
            taken.faults.push(format!("{}: {e}", self.dir.display()));
            return taken;
        }
        pause::at("chunks-written");
        let lock = match files::Lock::take(&self.dir) {
            Ok(l) => l,
            Err(e) => {
                taken.faults.push(format!("{}: {e}", self.dir.display()));
                return taken;
            }
        };
        // The catalog as it stands now: the one given while its files are as it was read.
        let given_at = given
            .catalog
            .filter(|(at, _)| self.catalog_at().as_ref() == Some(at));
        let (before, base) = match given_at {
            Some((at, c)) => (Some(at), c),
            None => {
                let (c, at, faults) = self.catalog_read();
                taken.faults.extend(faults);
                (at, std::sync::Arc::new(c))
            }
        };
        let by_path: BTreeMap<&Path, &Source> =
            sources.iter().map(|s| (s.path.as_path(), *s)).collect();
        // Each manifest gains its version (in parallel: a first keep writes thousands).
        let versioned: Vec<Result<(String, Manifest, u64, u64), String>> = (made.into_par_iter())
            .map(|r| {
                let (name, v, wrote) = r?;
                // A damaged or foreign manifest is left as it is (reported), never overwritten.
                let m = manifest::read(&self.dir, &name)?;
                let mut m = m.unwrap_or_else(|| {
                    let src = by_path
                        .values()
                        .find(|s| manifest::name_of(agent, &s.path) == name);
                    Manifest {
                        format: manifest::FORMAT,
                        agent: agent.to_string(),
                        path: src.map(|s| s.path.clone()).unwrap_or_default(),
                        side_files: src.map(|s| s.side_files.clone()).unwrap_or_default(),
                        versions: Vec::new(),
                    }
                });
                let mut garbage = 0;
                if m.versions
                    .last()
                    .is_some_and(|last| last.files == v.files && last.sessions == v.sessions)
                {
                    // The same bytes (a touch, another process kept it first): only the stamps
                    // move.
                    if let Some(last) = m.versions.last_mut() {
                        last.stamps = v.stamps;
                    }
                } else {
                    let before: HashSet<String> = chunk_names(&m);
                    m.versions.push(v);
                    m.retain();
                    let after = chunk_names(&m);
                    garbage = before.difference(&after).count() as u64 * (64 << 10);
                }
                manifest::write(&self.dir, &name, &m, batched)
                    .map_err(|e| format!("{}: {e}", m.path.display()))?;
                Ok((name, m, wrote, garbage))
            })
            .collect();
        let mut changes = Vec::with_capacity(versioned.len());
        let mut garbage = base.garbage;
        for r in versioned {
            match r {
                Ok((name, m, wrote, g)) => {
                    garbage += g;
                    let entry = Some(Entry::of(&m));
                    changes.push(catalog::Change {
                        name,
                        entry,
                        garbage,
                    });
                    taken.sources += 1;
                    taken.bytes += wrote;
                }
                Err(e) => taken.faults.push(e),
            }
        }
        // The manifests too, before the catalog that lists them.
        let synced = match batched {
            true => files::sync_batch(&self.dir),
            false => Ok(()),
        };
        if let Err(e) = synced {
            taken.faults.push(format!("{}: {e}", self.dir.display()));
            return taken;
        }
        if changes.is_empty() {
            return taken;
        }
        let mut written = match catalog::write_changes(&self.dir, &base, before.as_ref(), &changes)
        {
            Ok((at, None)) => Written {
                before,
                at,
                base,
                changes,
            },
            Ok((at, Some(whole))) => Written {
                before,
                at,
                base: std::sync::Arc::new(whole),
                changes: Vec::new(),
            },
            Err(e) => {
                taken.faults.push(format!("{}: {e}", self.dir.display()));
                return taken;
            }
        };
        // The store's size is walked for only when the garbage passes the floor.
        if garbage > GARBAGE_FLOOR && garbage > self.bytes() / 10 {
            let mut c = (*written.base).clone();
            c.apply(&written.changes);
            self.sweep(&mut c);
            match catalog::write(&self.dir, &c) {
                Ok(at) => {
                    written.at = at;
                    written.base = std::sync::Arc::new(c);
                    written.changes = Vec::new();
                }
                Err(e) => taken.faults.push(format!("{}: {e}", self.dir.display())),
            }
        }
        drop(lock);
        taken.catalog = Some(written);
        taken
    }

    /// Forget the kept sessions of `agent` named in `ids` (every agent's, native ids, when
    /// `agent` is `None`), or last updated before `before_ms`; how many were forgotten. Their
    /// chunks are deleted once no version uses them.
    pub fn forget(
        &self,
        ids: &HashSet<(String, String)>,
        before_ms: Option<i64>,
    ) -> std::io::Result<usize> {
        if !self.exists() {
            return Ok(0);
        }
        let _lock = files::Lock::take(&self.dir)?;
        let (mut cat, _) = self.catalog();
        let mut forgotten = 0;
        let names: Vec<String> = cat.sources.keys().cloned().collect();
        for name in names {
            let entry = &cat.sources[&name];
            let drop_id = |id: &str, updated: i64| {
                ids.contains(&(entry.agent.clone(), id.to_string()))
                    || before_ms.is_some_and(|b| updated < b)
            };
            let gone: HashSet<String> = (entry.sessions.iter())
                .filter(|(id, u, _)| drop_id(id, *u))
                .map(|(id, _, _)| id.clone())
                .collect();
            if gone.is_empty() {
                continue;
            }
            let Ok(Some(mut m)) = manifest::read(&self.dir, &name) else {
                continue;
            };
            for v in &mut m.versions {
                v.sessions.retain(|s| !gone.contains(&s.id));
            }
            m.retain();
            forgotten += gone.len();
            manifest::write(&self.dir, &name, &m, false)?;
            // No stamps: a source still there is kept again when it is next read while keeping
            // is on (it is still in the agent's store; `keep off` stops keeping).
            let mut e = Entry::of(&m);
            e.stamps = Vec::new();
            cat.sources.insert(name, e);
        }
        self.sweep_now(&mut cat);
        catalog::write(&self.dir, &cat)?;
        Ok(forgotten)
    }

    /// Delete the chunks no manifest uses (older than `SWEEP_MIN_AGE`).
    fn sweep(&self, cat: &mut Catalog) {
        self.sweep_older_than(cat, SWEEP_MIN_AGE)
    }

    /// The same, for chunks of any age (a forget: what it frees must go now).
    fn sweep_now(&self, cat: &mut Catalog) {
        self.sweep_older_than(cat, std::time::Duration::ZERO)
    }

    fn sweep_older_than(&self, cat: &mut Catalog, age: std::time::Duration) {
        let mut used = HashSet::new();
        for name in cat.sources.keys() {
            match manifest::read(&self.dir, name) {
                Ok(Some(m)) => used.extend(chunk_names(&m)),
                // A manifest that cannot be read may still be repaired: keep every chunk.
                _ => return,
            }
        }
        let now = std::time::SystemTime::now();
        let Ok(fans) = std::fs::read_dir(self.dir.join("chunks")) else {
            return;
        };
        for fan in fans.flatten() {
            let Ok(rd) = std::fs::read_dir(fan.path()) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if used.contains(&name) {
                    continue;
                }
                let old = (e.metadata().and_then(|m| m.modified()))
                    .ok()
                    .and_then(|t| now.duration_since(t).ok())
                    .is_some_and(|d| d >= age);
                if old || age.is_zero() {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        cat.garbage = 0;
    }

    /// Bytes of the store's files.
    pub fn bytes(&self) -> u64 {
        fn walk(p: &Path) -> u64 {
            let Ok(rd) = std::fs::read_dir(p) else {
                return 0;
            };
            rd.flatten()
                .map(|e| match e.file_type() {
                    Ok(t) if t.is_dir() => walk(&e.path()),
                    _ => e.metadata().map(|m| m.len()).unwrap_or(0),
                })
                .sum()
        }
        walk(&self.dir)
    }

    /// Version `version` of the manifest `name` restored under `base`: its root and its source.
    pub fn restore(
        &self,
        base: &Path,
        name: &str,
        version: usize,
    ) -> Result<(Manifest, PathBuf, Source), String> {
        let m =
            manifest::read(&self.dir, name)?.ok_or_else(|| format!("{name}: no longer kept"))?;
        let v = m
            .versions
            .get(version)
            .ok_or_else(|| format!("{name}: no version {version}"))?;
        let (root, src) = restore::restore(&self.dir, base, &m, v)?;
        Ok((m, root, src))
    }

    /// What is damaged in the store: the catalog, each manifest (its checksum), and each chunk a
    /// manifest names: present, and with `verify` its content hashing to its name (every chunk
    /// read and decompressed, in parallel, each once: the cost of reading the whole store).
    pub fn check(&self, verify: bool) -> Vec<String> {
        let (cat, mut faults) = self.catalog();
        let mut wanted: BTreeMap<String, (u64, PathBuf)> = BTreeMap::new();
        for name in cat.sources.keys() {
            match manifest::read(&self.dir, name) {
                Ok(Some(m)) => {
                    for f in m.versions.iter().flat_map(|v| v.files.iter().flatten()) {
                        for (h, len) in &f.chunks {
                            wanted.insert(h.clone(), (*len, m.path.clone()));
                        }
                    }
                }
                Ok(None) => faults.push(format!("{name}: manifest missing")),
                Err(e) => faults.push(e),
            }
        }
        let bad: Vec<String> = wanted
            .par_iter()
            .filter_map(|(h, (len, src))| {
                let fault = match verify {
                    true => chunks::get(&self.dir, h, *len).err(),
                    false => (!chunks::path(&self.dir, h).is_file())
                        .then(|| format!("chunk {h} is missing")),
                };
                fault.map(|e| format!("{} (kept from {}): {e}", h, src.display()))
            })
            .collect();
        faults.extend(bad);
        faults
    }
}

fn chunk_names(m: &Manifest) -> HashSet<String> {
    (m.versions.iter())
        .flat_map(|v| v.files.iter().flatten())
        .flat_map(|f| f.chunks.iter().map(|(h, _)| h.clone()))
        .collect()
}
