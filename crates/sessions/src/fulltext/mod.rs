//! A full-text index of sessions on tantivy: per field, each token once with a compressed list of
//! the sessions that hold it, how often, and where. It answers which sessions hold a query's
//! leaves and with what statistics (`Stats`), exactly as the scan's analysis counts them, so the
//! search engine's own scoring ranks them alike.
//!
//! - `tokens`: our folding as tantivy's tokenizers (words; CJK characters);
//! - `document`: a session as a document: its texts per field, each text its own value (a
//!   phrase never spans two), a tool's output that repeats its message's content indexed once,
//!   and the exact field lengths (tantivy's own field norms are lossy) as fast fields;
//! - `build`: a first build on every core, and the sources it read (`Catalog`);
//! - `lookup`: a query's statistics from postings and positions (phrases, words side by side,
//!   CJK substrings), and the sessions that only a read can tell;
//! - `hits`: the search engine's hits from them, sources changed since the build scanned.
//!
//! The text itself is not kept: a hit's snippet is made from its session read again.
use std::path::{Path, PathBuf};

use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, STORED,
};
use tantivy::Index;

use crate::search::score::FIELDS;

pub mod build;
pub mod document;
pub mod hits;
pub mod lookup;
pub mod tokens;

/// The fields of an index (one set per `Schema`).
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// Word tokens per `score::Field`.
    pub words: [Field; FIELDS],
    /// CJK characters per `score::Field`.
    pub cjk: [Field; FIELDS],
    /// The session's source (its number in the `Catalog`): fast, and indexed to delete by it.
    pub source: Field,
    /// The session's place among its source's sessions.
    pub ordinal: Field,
    /// Exact bytes of searchable text per field.
    pub lengths: [Field; FIELDS],
    /// `document::IRREGULAR` and other bits.
    pub flags: Field,
    /// The session's summary (`index::codec`), in the document store.
    pub summary: Field,
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
                    // Lengths are kept exactly in `lengths`.
                    .set_fieldnorms(false),
            )
        };
        let words = FIELD_NAMES.map(|n| b.add_text_field(n, text(tokens::WORDS)));
        let cjk = FIELD_NAMES.map(|n| b.add_text_field(&format!("{n}_cjk"), text(tokens::CJK)));
        let fast = || NumericOptions::default().set_fast();
        let source = b.add_u64_field("source", fast().set_indexed());
        let ordinal = b.add_u64_field("ordinal", fast());
        let lengths = FIELD_NAMES.map(|n| b.add_u64_field(&format!("{n}_len"), fast()));
        let flags = b.add_u64_field("flags", fast());
        let summary = b.add_bytes_field("summary", STORED);
        let fields = Fields {
            words,
            cjk,
            source,
            ordinal,
            lengths,
            flags,
            summary,
        };
        (b.build(), fields)
    }
}

/// One source the index read: where, its stamps when read, and how many sessions it held.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CatalogSource {
    pub agent: String,
    pub path: PathBuf,
    /// (size, mtime in ns) of the file and each side file.
    pub stamps: Vec<(u64, i128)>,
    pub sessions: usize,
}

/// The sources an index holds, by number (a document's `source`).
pub type Catalog = Vec<CatalogSource>;

const CATALOG: &str = "catalog.json";

/// An open index.
pub struct FullText {
    pub index: Index,
    /// Opened once: each search takes a snapshot of it (`searcher`), reloaded by hand.
    pub reader: tantivy::IndexReader,
    pub fields: Fields,
    pub catalog: Catalog,
    pub dir: PathBuf,
    /// Of the build that made it in this process: reading and indexing, then merging.
    pub timings: (std::time::Duration, std::time::Duration),
}

/// Register our tokenizers on `index` (tantivy keeps their names, not their code).
fn with_tokenizers(index: Index) -> Index {
    index.tokenizers().register(tokens::WORDS, tokens::Words);
    index.tokenizers().register(tokens::CJK, tokens::Cjk);
    index
}

fn reader_of(index: &Index) -> tantivy::Result<tantivy::IndexReader> {
    index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()
}

impl FullText {
    /// A new empty index in `dir` (created).
    pub fn create(dir: &Path) -> tantivy::Result<FullText> {
        std::fs::create_dir_all(dir)?;
        let (schema, fields) = Fields::schema();
        let index = with_tokenizers(Index::create_in_dir(dir, schema)?);
        Ok(FullText {
            reader: reader_of(&index)?,
            index,
            fields,
            catalog: Vec::new(),
            dir: dir.to_path_buf(),
            timings: Default::default(),
        })
    }

    /// The index in `dir`; an error when there is none, or it is not of this schema.
    pub fn open(dir: &Path) -> tantivy::Result<FullText> {
        let index = with_tokenizers(Index::open_in_dir(dir)?);
        let (schema, fields) = Fields::schema();
        if index.schema() != schema {
            return Err(tantivy::TantivyError::SchemaError(
                "an index of another schema".into(),
            ));
        }
        let catalog = std::fs::read(dir.join(CATALOG))?;
        let catalog = serde_json::from_slice(&catalog)
            .map_err(|e| tantivy::TantivyError::InvalidArgument(e.to_string()))?;
        Ok(FullText {
            reader: reader_of(&index)?,
            index,
            fields,
            catalog,
            dir: dir.to_path_buf(),
            timings: Default::default(),
        })
    }

    /// Write the catalog beside the index (after a commit).
    pub fn save_catalog(&self) -> std::io::Result<()> {
        let tmp = self.dir.join(format!("{CATALOG}.tmp"));
        std::fs::write(&tmp, serde_json::to_vec(&self.catalog)?)?;
        std::fs::rename(tmp, self.dir.join(CATALOG))
    }
}
