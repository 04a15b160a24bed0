//! The vocabulary of a search that agents share with the search engine: the parsed query
//! (`parse`, folding in `text`), the raw-byte prefilter (`prefilter`, `caseless`), the filter a
//! database adapter feeds its rows to (`byte_filter`), snippets (`snippet`) and a hit an agent's own index
//! found (`NativeHit`). It sits below `agents/`, so an agent can answer a search without
//! importing the engine that runs it.
use std::path::PathBuf;

pub mod byte_filter;
pub mod caseless;
pub mod fields;
pub mod files;
pub mod parse;
pub mod prefilter;
pub mod snippet;
pub mod text;

pub use byte_filter::{ByteFilter, SessionMasks};
pub use parse::Query;

/// A session found by an agent's own search engine.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeHit {
    /// The id to report first, then other ids of the same logical session (a compression
    /// continuation's own id): the first one the agent lists is used.
    pub session_ids: Vec<String>,
    /// Higher is better, on the BM25 scale (so it normalises with the file engine's scores).
    pub score: f64,
    pub match_count: u64,
    pub snippet: Option<String>,
    /// The best matching row, when its snippet is left to `SearchSupport::native_snippets`
    /// (made only for the results returned).
    pub snippet_row: Option<StoreRow>,
}

/// A row of one of an agent's stores: the store's path and the row's id in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreRow {
    pub store: PathBuf,
    pub row: i64,
}
