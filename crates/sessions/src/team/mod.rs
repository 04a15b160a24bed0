//! The team database: one PostgreSQL holding the sessions of many machines. `conn` reaches it
//! (URL, `PG*` variables, `.pgpass`, `sslmode`), `schema` keeps its tables at this version,
//! `push` writes this machine's sessions into it (`amux sync`), `read` answers a client made with
//! a `source` (list, search, get, cost) from its rows.
pub mod conn;
pub mod push;
pub mod read;
pub mod schema;
pub mod words;
