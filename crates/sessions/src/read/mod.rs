//! Readers shared by every adapter: written once, used by all.
pub mod fingerprint;
pub mod fs;
pub mod head;
pub mod json_str;
pub mod jsonl;
pub mod lenient;
pub mod page_cache;
pub mod project;
mod ro_vfs;
pub mod scratch;
pub mod sqlite;
mod sqlite_open;
pub mod tree;
