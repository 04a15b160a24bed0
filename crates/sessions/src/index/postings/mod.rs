//! The index of terms, on tantivy: per field, each token once with a compressed list of the
//! sessions that hold it, how often, and where. It answers which sessions hold a query's leaves
//! and how often per field, exactly as the scan's analysis counts them, phrases and words side by
//! side from positions, so the search engine scores them without reading them.
//!
//! - `tokens`: our folding as tantivy's tokenizers (words; CJK characters);
//! - `document`: a session as a document: its texts per field, each text its own value (a
//!   phrase never spans two), a tool's output that repeats its message's content indexed once;
//! - `lookup`: a query's counts from postings and positions, and the sessions only a read can
//!   tell.
//!
//! A document is known by the id of its row in the SQLite file (`doc`), which keeps its summary
//! and exact field lengths (tantivy's field norms are lossy). The text itself is not kept: a hit's
//! snippet is cut from its session read again from the agent's store. Every commit carries the
//! generation the SQLite file records with it, so a pair of files that do not belong together is
//! never read.
use std::path::{Path, PathBuf};

use queued::{Gate, Queued};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, IndexWriter, Searcher, TantivyError, Term};

use super::store::Fault;
use crate::query::fields::FIELDS;

pub mod document;
pub mod lookup;
mod queued;
pub mod tokens;

/// The fields of an index (one set per `Schema`).
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// Word tokens per `query::fields::Field`.
    pub words: [Field; FIELDS],
    /// CJK characters per field.
    pub cjk: [Field; FIELDS],
    /// The session's row in the SQLite file: fast, and indexed to delete by it.
    pub doc: Field,
    /// `document::IRREGULAR` and other bits.
    pub flags: Field,
}

const FIELD_NAMES: [&str; FIELDS] = [
    "title",
    "conversation",
    "thinking",
    "tool_input",
    "tool_output",
];

impl Fields {
    /// The schema and its fields.
    pub fn schema() -> (Schema, Fields) {
        let mut b = Schema::builder();
        let text = |tokenizer: &str| {
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(tokenizer)
                    .set_index_option(IndexRecordOption::WithFreqsAndPositions)
                    // Lengths are kept exactly in the SQLite file.
                    .set_fieldnorms(false),
            )
        };
        let words = FIELD_NAMES.map(|n| b.add_text_field(n, text(tokens::WORDS)));
        let cjk = FIELD_NAMES.map(|n| b.add_text_field(&format!("{n}_cjk"), text(tokens::CJK)));
        let doc = b.add_u64_field("doc", NumericOptions::default().set_fast().set_indexed());
        let flags = b.add_u64_field("flags", NumericOptions::default().set_fast());
        let fields = Fields {
            words,
            cjk,
            doc,
            flags,
        };
        (b.build(), fields)
    }
}

/// The directory of the postings beside the SQLite file `index-v<format>.sqlite`.
pub fn path_in(dir: &Path, format: i64) -> PathBuf {
    dir.join(format!("index-v{format}.postings"))
}

/// A tantivy error as a fault: a file missing, damaged or of another schema is damage (the index
/// is removed and built again); anything else (a full or unwritable disk, a lock) is not.
pub fn fault(e: TantivyError) -> Fault {
    match e {
        TantivyError::DataCorruption(_)
        | TantivyError::OpenReadError(_)
        | TantivyError::SchemaError(_)
        | TantivyError::IndexAlreadyExists
        | TantivyError::IncompatibleIndex(_)
        | TantivyError::FieldNotFound(_) => Fault::Broken(e.to_string()),
        // Another process writes the postings.
        TantivyError::LockFailure(..) => Fault::Busy(e.to_string()),
        _ => Fault::Unusable(e.to_string()),
    }
}

/// The postings of one index directory.
pub struct Postings {
    pub index: Index,
    pub fields: Fields,
    dir: PathBuf,
}

/// How a writer builds.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// tantivy's indexing threads.
    pub threads: usize,
    /// Memory for their buffers, all threads together (a segment is written when it is full).
    pub memory: usize,
    /// Whether the segments it wrote are merged into one once it has committed: each segment
    /// holds its own dictionary of terms, and a query looks each term up in every segment.
    pub merge: bool,
}

/// A first build's budget set by a benchmark (`set_build_budget`), in place of `Budget::build`.
static BUILD_BUDGET: std::sync::Mutex<Option<Budget>> = std::sync::Mutex::new(None);

/// Measure first builds with `budget` (examples/index_build.rs compares them).
pub fn set_build_budget(budget: Budget) {
    *BUILD_BUDGET.lock().unwrap_or_else(|e| e.into_inner()) = Some(budget);
}

impl Budget {
    /// A build from nothing: every core, a buffer large enough that segments come out few.
    pub fn build() -> Budget {
        if let Some(b) = *BUILD_BUDGET.lock().unwrap_or_else(|e| e.into_inner()) {
            return b;
        }
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(4);
        Budget {
            threads,
            memory: threads * (96 << 20),
            merge: true,
        }
    }

    /// An update of a few sources: one thread, tantivy's least buffer; its small segments are
    /// merged among themselves as they come (`writer`).
    pub fn update() -> Budget {
        Budget {
            threads: 1,
            memory: 16 << 20,
            merge: false,
        }
    }
}

impl Postings {
    /// The postings in `dir`, created empty when there are none.
    pub fn open(dir: &Path) -> Result<Postings, Fault> {
        let (schema, fields) = Fields::schema();
        let index = match dir.join("meta.json").is_file() {
            true => Index::open_in_dir(dir).map_err(fault)?,
            false => {
                crate::read::fs::private_dir(dir)?;
                Index::create_in_dir(dir, schema.clone()).map_err(fault)?
            }
        };
        if index.schema() != schema {
            return Err(Fault::Broken("postings of another schema".into()));
        }
        index.tokenizers().register(tokens::WORDS, tokens::Words);
        index.tokenizers().register(tokens::CJK, tokens::Cjk);
        Ok(Postings {
            index,
            fields,
            dir: dir.to_path_buf(),
        })
    }

    /// The generation of the last commit (0 before the first).
    pub fn generation(&self) -> Result<u64, Fault> {
        let meta = self.index.load_metas().map_err(fault)?;
        Ok(meta
            .payload
            .and_then(|p| p.parse().ok())
            .unwrap_or_default())
    }

    /// A snapshot of the last commit and its generation.
    pub fn searcher(&self) -> Result<(Searcher, u64), Fault> {
        loop {
            let before = self.generation()?;
            let reader: Result<tantivy::IndexReader, _> = self
                .index
                .reader_builder()
                .reload_policy(tantivy::ReloadPolicy::Manual)
                .try_into();
            // No commit in between: the reader holds that generation. After one, a file of
            // the commit read may be gone: that is no damage, the next commit is read.
            if self.generation()? == before {
                return Ok((reader.map_err(fault)?.searcher(), before));
            }
        }
    }

    /// A writer; the caller holds the SQLite file's write lock, so it is the only one. `many`:
    /// it writes many sources (a first build), and merges no segment as it goes.
    pub fn writer(&self, budget: Budget, many: bool) -> Result<PostingsWriter, Fault> {
        let per_thread = (budget.memory / budget.threads.max(1)).max(16 << 20);
        let writer: IndexWriter<Queued> = self
            .index
            .writer_with_num_threads(budget.threads, per_thread * budget.threads)
            .map_err(fault)?;
        // A writer cut off inside its commit (its process exited) left files no commit lists,
        // under the names this writer's commit will give the same change: removed first.
        writer.garbage_collect_files().wait().map_err(fault)?;
        if many {
            // A build writes its segments as its buffers fill and merges none: merging rewrites
            // every posting once more for a few milliseconds less per query.
            writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        } else {
            // An update adds a small segment; those are merged among themselves, never into a
            // build's large ones (which would take seconds for each message appended).
            let mut policy = tantivy::indexer::LogMergePolicy::default();
            policy.set_max_docs_before_merge(SMALL_SEGMENT);
            writer.set_merge_policy(Box::new(policy));
        }
        let merge_after = match budget.merge {
            true => Some(self.index.searchable_segment_ids().map_err(fault)?),
            false => None,
        };
        Ok(PostingsWriter {
            writer,
            merge_after,
            queue: Gate::new(QUEUED),
            fields: self.fields,
            dir: self.dir.clone(),
        })
    }
}

/// The text queued for tantivy's indexing threads, at most: enough to keep them busy.
const QUEUED: usize = 64 << 20;

/// The most documents a segment an update merges may hold.
const SMALL_SEGMENT: usize = 200;

/// The postings being written.
pub struct PostingsWriter {
    writer: IndexWriter<Queued>,
    /// The segments there were before it, when the ones it writes are to be merged.
    merge_after: Option<Vec<tantivy::index::SegmentId>>,
    queue: std::sync::Arc<Gate>,
    pub fields: Fields,
    dir: PathBuf,
}

impl PostingsWriter {
    /// Add `doc`, once the documents before it are indexed but for `QUEUED` bytes.
    pub fn add(&self, doc: tantivy::TantivyDocument) -> Result<(), Fault> {
        let doc = self.queue.admit(doc);
        self.writer.add_document(doc).map(drop).map_err(fault)
    }

    /// Delete the document of SQLite row `doc`.
    pub fn delete(&self, doc: i64) {
        self.writer
            .delete_term(Term::from_field_u64(self.fields.doc, doc as u64));
    }

    /// Commit what was added under `generation`, every file readable by its owner only. The
    /// writer goes on writing (a checkpoint of a long build); `finish` once the SQLite file has
    /// committed too.
    pub fn commit(&mut self, generation: u64) -> Result<(), Fault> {
        let mut prepared = self.writer.prepare_commit().map_err(fault)?;
        prepared.set_payload(&generation.to_string());
        prepared.commit().map_err(fault)?;
        private_files(&self.dir)?;
        Ok(())
    }

    /// Merge the segments a build wrote into one, and wait for the merges the last commit
    /// started (they keep its generation). Not before the SQLite file commits: a process that
    /// ends between the two commits leaves postings of another generation, which are rebuilt.
    pub fn finish(mut self) -> Result<(), Fault> {
        if let Some(before) = self.merge_after.take() {
            let mut ids = self
                .writer
                .index()
                .searchable_segment_ids()
                .map_err(fault)?;
            ids.retain(|id| !before.contains(id));
            if ids.len() > 1 {
                self.writer.merge(&ids).wait().map_err(fault)?;
            }
        }
        self.writer.wait_merging_threads().map_err(fault)?;
        private_files(&self.dir)?;
        Ok(())
    }
}

/// Owner-only permissions on every file of `dir` (tantivy creates them with the umask's).
fn private_files(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for e in std::fs::read_dir(dir)? {
            let e = e?;
            let meta = match e.metadata() {
                Ok(m) => m,
                // Removed by a merge meanwhile.
                Err(_) => continue,
            };
            if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
                let _ = std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o600));
            }
        }
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
