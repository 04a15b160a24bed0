//! The team database: one PostgreSQL holding the sessions of many machines. `conn` reaches it
//! (URL, `PG*` variables, `.pgpass`, `sslmode`), `schema` keeps its tables at this version,
//! `push` writes this machine's sessions into it (`amux sync`).
pub mod conn;
pub mod push;
pub mod schema;
