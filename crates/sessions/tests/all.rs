//! The integration tests, one module per file beside this one, in one test binary: each binary
//! links the whole crate with tantivy, SQLite and the PostgreSQL client, so one binary links once
//! where a binary per file linked them some forty times. One file's tests run with
//! `cargo test -p agent-mux-sessions --test all <file>::` (a name filter).
//!
//! Two files stay binaries of their own (Cargo.toml): `keep_listing.rs` counts the files this
//! process's listings stat, which other tests' listings would add to, and `update_golden.rs` is no
//! test (it writes the golden files on request).
mod common;
mod sample;
mod sqlite_fixtures;

mod branch;
mod claude;
mod codex;
mod copilot;
mod cost;
mod cost_real;
mod cost_reports;
mod cursor;
mod diff;
mod doctor;
mod export;
mod fulltext;
mod gemini;
mod generator_schema;
mod get;
mod hermes;
mod hostile_depth;
mod index;
mod keep;
mod layers;
mod list;
mod list_all;
mod memory;
mod omp;
mod openclaw;
mod opencode;
mod pi;
mod projects;
mod ranking;
mod search_db;
mod search_hermes;
mod summary_agrees;
mod team_copy;
mod team_sync;
mod terms;
mod touches;
mod watch;
