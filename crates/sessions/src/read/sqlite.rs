//! Reading SQLite stores: the read-only opening (in `sqlite_open`, re-exported here) and helpers
//! for schemas that differ between versions and cells whose storage class is loose.
use rusqlite::types::ValueRef;
use rusqlite::Connection;

pub use super::sqlite_open::{open_read_only, ReadOnlyDb};

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let c: &Connection = &c;
        let star = c.prepare("SELECT * FROM session").unwrap();
        assert_eq!(star.column_count(), 2, "the damaged column is there");
        drop(star);
        assert_eq!(columns(c, "session"), vec!["id"]);
        assert_eq!(all_columns(c, "session", "s"), "s.\"id\"");
        let sql = format!("SELECT {} FROM session s", all_columns(c, "session", "s"));
        let raw = c.query_row(&sql, [], |r| Ok(row_to_json(r))).unwrap();
        assert_eq!(raw, serde_json::json!({"id": "a"}));
        assert_eq!(all_columns(c, "nope", "s"), "NULL");
    }
}
