//! Building an index: every source of the agents read on every core, each session handed to
//! tantivy's writer, whose own threads tokenize and write segments side by side.
use rayon::prelude::*;
use std::path::Path;

use super::document::Texts;
use super::{CatalogSource, FullText};
use crate::agents::{Agent, Source};
use crate::context::Context;

/// How the first build runs.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// tantivy's indexing threads.
    pub threads: usize,
    /// Memory for their buffers, all threads together (a segment is written when it is full).
    pub memory: usize,
    /// Merge the segments into one at the end (fewer lookups per query, a longer build).
    pub merge: bool,
}

impl Default for Options {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Options {
            threads,
            memory: 256 << 20,
            merge: true,
        }
    }
}

/// The stamps of a source, as the catalog keeps them.
pub fn stamps_of(src: &Source) -> Vec<(u64, i128)> {
    src.stamps.iter().map(|s| (s.size, s.mtime_ns)).collect()
}

/// Build an index of every session of `agents` in `dir` (made anew).
pub fn build(
    ctx: &Context,
    agents: &[&'static dyn Agent],
    dir: &Path,
    opts: Options,
) -> tantivy::Result<FullText> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    let started = std::time::Instant::now();
    let mut ft = FullText::create(dir)?;
    let sources: Vec<(&'static dyn Agent, Source)> = agents
        .iter()
        .flat_map(|&a| a.sources(ctx).into_iter().map(move |s| (a, s)))
        .collect();
    // tantivy's least per thread is 15 MB.
    let per_thread = (opts.memory / opts.threads.max(1)).max(16 << 20);
    let mut writer: tantivy::IndexWriter = ft
        .index
        .writer_with_num_threads(opts.threads, per_thread * opts.threads)?;
    // Segments are merged once, at the end, if asked: not by tantivy's policy as they come.
    writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    let fields = ft.fields;
    let counts: Vec<tantivy::Result<usize>> = sources
        .par_iter()
        .enumerate()
        .map(|(n, (a, src))| {
            // An unreadable source holds no session here, as the scan skips it.
            let Ok(sessions) = a.load_source(ctx, src) else {
                return Ok(0);
            };
            let count = sessions.len();
            for (ordinal, s) in sessions.into_iter().enumerate() {
                let summary = crate::index::codec::summary(&s.summary);
                let doc = Texts::of(&s).document(&fields, n as u64, ordinal as u64, summary);
                writer.add_document(doc)?;
            }
            Ok(count)
        })
        .collect();
    writer.commit()?;
    ft.timings.0 = started.elapsed();
    if opts.merge {
        let ids = ft.index.searchable_segment_ids()?;
        if ids.len() > 1 {
            writer.merge(&ids).wait()?;
        }
    }
    writer.garbage_collect_files().wait()?;
    writer.wait_merging_threads()?;
    ft.timings.1 = started.elapsed() - ft.timings.0;
    for ((a, src), count) in sources.iter().zip(counts) {
        ft.catalog.push(CatalogSource {
            agent: a.name().to_string(),
            path: src.path.clone(),
            stamps: stamps_of(src),
            sessions: count?,
        });
    }
    ft.reader.reload()?;
    ft.save_catalog()?;
    Ok(ft)
}
