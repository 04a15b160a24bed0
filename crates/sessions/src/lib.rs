//! The pure Rust core of `@a5c-ai/agent-mux`: the session model, one adapter per agent, and the
//! engines (list, search, cost, export, diff) built once on top. Knows nothing of Node.
pub mod agents;
pub mod client;
pub mod context;
pub mod cost;
pub mod diff;
pub mod doctor;
pub mod env;
pub mod error;
pub mod export;
pub mod ids;
pub mod index;
pub mod js_order;
pub mod keep;
pub mod list;
pub mod memory;
pub mod model;
pub mod options;
pub mod query;
pub mod read;
pub mod recap;
pub mod redact;
pub mod search;
pub mod selection;
pub mod storage;
pub mod touched;
pub mod tsv;
pub mod window;

pub use client::Client;
pub use context::{ClientOptions, Context};
pub use env::Env;
pub use error::{Error, ErrorCode, Result};
pub use model::{Message, Role, Session, SessionSummary};
