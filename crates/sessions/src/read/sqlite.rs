//! Read-only SQLite opening that never creates or changes a file in the agent's directory (no
//! `-wal`, no `-shm`, no journal) and still sees committed rows of a WAL database being written.
//!
//! - WAL database whose `-wal` and `-shm` exist (the agent is running, or did not close cleanly):
//!   open `mode=ro`; SQLite reads both and sees every committed transaction, creating nothing.
//! - WAL database without them: all content is in the main file; open `immutable=1`, which takes no
//!   locks and so never needs a `-shm` (a read-only connection would otherwise create one).
//! - Rollback-journal database: `mode=ro` takes shared locks only and creates nothing.
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, Result};

/// Open `path` read-only as described above. Errors name the path and say why.
pub fn open_read_only(path: &Path) -> Result<Connection> {
    let header = read_header(path).map_err(|e| Error::parse(path.display(), e))?;
    if &header[..16] != b"SQLite format 3\0" {
        return Err(Error::parse(path.display(), "not a SQLite database"));
    }
    let wal_mode = header[18] == 2 || header[19] == 2;
    let wal_present = sidecar(path, "-wal").is_file() && sidecar(path, "-shm").is_file();
    let params = if wal_mode && !wal_present {
        "immutable=1"
    } else {
        "mode=ro"
    };
    let uri = format!("file:{}?{params}", encode_uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn =
        Connection::open_with_flags(&uri, flags).map_err(|e| Error::parse(path.display(), e))?;
    // A writer holding a lock briefly should not fail a read.
    let _ = conn.busy_timeout(Duration::from_millis(2000));
    // Touch the schema now so a file that is not a database fails here, with its path.
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_err(|e| Error::parse(path.display(), e))?;
    Ok(conn)
}

/// Column names of `table` (empty if the table does not exist): schema versions differ in the wild.
pub fn columns(conn: &Connection, table: &str) -> Vec<String> {
    let sql = format!("PRAGMA table_info(\"{}\")", table.replace('"', "\"\""));
    let Ok(mut stmt) = conn.prepare(&sql) else {
        return Vec::new();
    };
    let rows = stmt.query_map([], |r| r.get::<_, String>(1));
    match rows {
        Ok(rows) => rows.filter_map(|r| r.ok()).collect(),
        Err(_) => Vec::new(),
    }
}

/// `alias."c1", alias."c2", …` for every column of `table` whose name is valid UTF-8: what
/// `alias.*` would select, minus names rusqlite cannot handle (its name lookups panic on a
/// non-UTF-8 column name, which a damaged schema can hold; found by fuzzing). `NULL` when the
/// table has no readable column.
pub fn all_columns(conn: &Connection, table: &str, alias: &str) -> String {
    let cols: Vec<String> = columns(conn, table)
        .iter()
        .map(|c| format!("{alias}.\"{}\"", c.replace('"', "\"\"")))
        .collect();
    if cols.is_empty() {
        "NULL".to_string()
    } else {
        cols.join(", ")
    }
}

/// Does `table` (or view) exist?
pub fn has_table(conn: &Connection, table: &str) -> bool {
    conn.query_row(
        "SELECT 1 FROM sqlite_master WHERE name = ?1 AND type IN ('table','view')",
        [table],
        |_| Ok(()),
    )
    .is_ok()
}

/// `alias.column` when `column` is in `cols`, else `NULL`: one SELECT serves every schema version,
/// since columns come and go between versions and may sit in any physical order.
pub fn col_or_null(cols: &[String], alias: &str, column: &str) -> String {
    if cols.iter().any(|c| c == column) {
        format!("{alias}.\"{column}\"")
    } else {
        "NULL".to_string()
    }
}

/// A cell as a float, whatever its storage class (SQLite affinity is loose: a REAL column can
/// hold TEXT written by an older version).
pub fn cell_f64(v: ValueRef<'_>) -> Option<f64> {
    match v {
        ValueRef::Integer(i) => Some(i as f64),
        ValueRef::Real(f) => Some(f),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// A cell as a non-negative count (tokens); anything else is 0.
pub fn cell_u64(v: ValueRef<'_>) -> u64 {
    cell_f64(v)
        .filter(|f| f.is_finite() && *f > 0.0)
        .map(|f| f as u64)
        .unwrap_or(0)
}

/// A cell as text (invalid UTF-8 repaired); BLOBs are decoded as UTF-8 too, NULL is `None`.
pub fn cell_string(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
        ValueRef::Null => None,
    }
}

/// One row as a JSON object keyed by column name (for `Session.raw`). BLOBs that are not UTF-8
/// become `null`; JSON kept in TEXT columns stays a string, as stored.
pub fn row_to_json(row: &rusqlite::Row<'_>) -> serde_json::Value {
    let stmt = row.as_ref();
    let mut obj = serde_json::Map::new();
    for i in 0..stmt.column_count() {
        let name = stmt.column_name(i).unwrap_or("").to_string();
        let v = match row.get_ref(i) {
            Ok(ValueRef::Null) | Err(_) => serde_json::Value::Null,
            Ok(ValueRef::Integer(n)) => n.into(),
            Ok(ValueRef::Real(f)) => serde_json::Number::from_f64(f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Ok(ValueRef::Text(t)) => String::from_utf8_lossy(t).into_owned().into(),
            Ok(ValueRef::Blob(b)) => std::str::from_utf8(b)
                .map(|s| s.to_string().into())
                .unwrap_or(serde_json::Value::Null),
        };
        obj.insert(name, v);
    }
    serde_json::Value::Object(obj)
}

fn read_header(path: &Path) -> std::io::Result<[u8; 100]> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut buf = [0u8; 100];
    f.read_exact(&mut buf)
        .map_err(|_| std::io::Error::other("too short to be a SQLite database"))?;
    Ok(buf)
}

fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Percent-encode the characters that are special in a SQLite URI path.
fn encode_uri_path(path: &Path) -> String {
    let s = path.to_string_lossy();
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' | '?' | '#' | ' ' => out.push_str(&format!("%{:02X}", c as u32)),
            '\\' => out.push('/'),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn closed_wal_db_opens_without_creating_files() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("state db?.db");
        {
            let c = Connection::open(&db).unwrap();
            c.execute_batch(
                "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1);",
            )
            .unwrap();
        }
        let before = listing(dir.path());
        let c = open_read_only(&db).unwrap();
        let n: i64 = c
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(columns(&c, "t"), vec!["x"]);
        assert!(has_table(&c, "t") && !has_table(&c, "nope"));
        drop(c);
        assert_eq!(listing(dir.path()), before);
    }

    /// Found by fuzzing OpenCode's database: a column name that is not UTF-8 (a damaged schema)
    /// made rusqlite panic when `SELECT s.*` rows were read by name. `all_columns` leaves it out.
    #[test]
    fn a_non_utf8_column_name_is_left_out_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("bad.db");
        {
            let c = Connection::open(&db).unwrap();
            c.execute_batch(
                "CREATE TABLE session(id TEXT, xx TEXT); INSERT INTO session VALUES ('a', 'b');
                 PRAGMA writable_schema = ON;",
            )
            .unwrap();
            // The same schema text with the second column's name as the bytes 'x', 0xFF.
            let bad: &[u8] = b"CREATE TABLE session(id TEXT, \"x\xff\" TEXT)";
            c.execute(
                "UPDATE sqlite_master SET sql = CAST(?1 AS TEXT) WHERE name = 'session'",
                [bad],
            )
            .unwrap();
        }
        let c = open_read_only(&db).unwrap();
        let star = c.prepare("SELECT * FROM session").unwrap();
        assert_eq!(star.column_count(), 2, "the damaged column is there");
        drop(star);
        assert_eq!(columns(&c, "session"), vec!["id"]);
        assert_eq!(all_columns(&c, "session", "s"), "s.\"id\"");
        let sql = format!("SELECT {} FROM session s", all_columns(&c, "session", "s"));
        let raw = c.query_row(&sql, [], |r| Ok(row_to_json(r))).unwrap();
        assert_eq!(raw, serde_json::json!({"id": "a"}));
        assert_eq!(all_columns(&c, "nope", "s"), "NULL");
    }

    #[test]
    fn sees_committed_rows_of_a_live_writer() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("live.db");
        let w = Connection::open(&db).unwrap();
        w.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x);")
            .unwrap();
        w.execute("INSERT INTO t VALUES (1)", []).unwrap();
        let before = listing(dir.path());
        let r = open_read_only(&db).unwrap();
        w.execute("INSERT INTO t VALUES (2)", []).unwrap();
        let n: i64 = r
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 2);
        assert_eq!(listing(dir.path()), before);
    }

    #[test]
    fn not_a_database_is_a_parse_error_naming_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("junk.db");
        std::fs::write(&db, b"hello").unwrap();
        let e = open_read_only(&db).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::ParseError);
        assert!(e.message.contains("junk.db"));
    }
}
