//! The team database: one PostgreSQL holding the sessions of many machines. `conn` reaches it
//! (URL, `PG*` variables, `.pgpass`, `sslmode`), `schema` keeps its tables at this version.
pub mod conn;
pub mod schema;
