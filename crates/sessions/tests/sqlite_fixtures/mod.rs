//! Building SQLite fixture stores from the agents' real DDL (read at test time from
//! `../shared/research/`; tests using it are ignored without it), shared by the cursor, opencode and hermes tests.
#![allow(dead_code)]
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::types::Value;
use rusqlite::Connection;

pub mod opencode;

/// `../shared/<dir>/<name>` (the real DDL in `research`, the spec's notes in `spec`) as text.
pub fn research_file(dir: &str, name: &str) -> String {
    let p = crate::common::shared(&format!("{dir}/{name}"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Run a `.schema` dump as SQLite printed it. Its lines for SQLite's own tables cannot be replayed
/// and are dropped: `sqlite_sequence` (made with the first AUTOINCREMENT table) and FTS5 shadow
/// tables (`CREATE TABLE IF NOT EXISTS '<name>_data'…`, made by their `CREATE VIRTUAL TABLE`).
pub fn apply_ddl(conn: &Connection, ddl: &str) {
    let sql: String = ddl
        .lines()
        .filter(|l| {
            let l = l.trim_start();
            !l.starts_with("CREATE TABLE sqlite_sequence")
                && !l.starts_with("CREATE TABLE IF NOT EXISTS '")
        })
        .collect::<Vec<_>>()
        .join("\n");
    conn.execute_batch(&sql).expect("DDL applies");
}

/// A new database at `path` in WAL mode with `ddl` applied; the connection stays open.
pub fn create_db(path: &Path, ddl: &str, wal: bool) -> Connection {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = Connection::open(path).unwrap();
    if wal {
        c.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
    }
    apply_ddl(&c, ddl);
    c
}

/// Column names of `table` in this database.
pub fn table_columns(conn: &Connection, table: &str) -> Vec<String> {
    let mut st = conn
        .prepare(&format!("PRAGMA table_info(\"{table}\")"))
        .unwrap();
    st.query_map([], |r| r.get::<_, String>(1))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

/// Insert a row, keeping only the columns this schema version has (older versions lack some),
/// so one data set serves several versions. Returns the rowid.
pub fn insert(conn: &Connection, table: &str, values: &[(&str, Value)]) -> i64 {
    let cols = table_columns(conn, table);
    let kept: Vec<&(&str, Value)> = values
        .iter()
        .filter(|(c, _)| cols.iter().any(|x| x == c))
        .collect();
    let names: Vec<String> = kept.iter().map(|(c, _)| format!("\"{c}\"")).collect();
    let marks: Vec<String> = (1..=kept.len()).map(|i| format!("?{i}")).collect();
    let sql = format!(
        "INSERT INTO \"{table}\" ({}) VALUES ({})",
        names.join(", "),
        marks.join(", ")
    );
    let params: Vec<&Value> = kept.iter().map(|(_, v)| v).collect();
    conn.execute(&sql, rusqlite::params_from_iter(params))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    conn.last_insert_rowid()
}

pub fn t(s: &str) -> Value {
    Value::Text(s.to_string())
}
pub fn r(x: f64) -> Value {
    Value::Real(x)
}
pub fn i(x: i64) -> Value {
    Value::Integer(x)
}
pub fn null() -> Value {
    Value::Null
}

/// Replace bytes in the middle of a database file so that page reads fail, keeping the header
/// (so it still opens as SQLite).
pub fn corrupt_pages(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    for b in bytes[page..].iter_mut() {
        *b = 0xA5;
    }
    std::fs::write(path, bytes).unwrap();
}

/// A snapshot of `root` (path → hash) without SQLite `-shm` files: a reader of a database that a
/// live writer keeps in WAL mode maps the writer's shared-memory index, and SQLite may move a read
/// mark in it. It holds no data and is recreated from the WAL; every other byte must be unchanged.
pub fn snapshot_without_shm(root: &Path) -> BTreeMap<PathBuf, u64> {
    let mut s = crate::common::snapshot(root);
    s.retain(|p, _| !p.to_string_lossy().ends_with("-shm"));
    s
}

/// Paths of every `-wal`/`-shm`/`-journal` file under `root`.
pub fn sidecars(root: &Path) -> Vec<PathBuf> {
    crate::common::snapshot(root)
        .into_keys()
        .filter(|p| {
            let s = p.to_string_lossy();
            s.ends_with("-wal") || s.ends_with("-shm") || s.ends_with("-journal")
        })
        .collect()
}
