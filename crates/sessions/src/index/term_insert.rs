//! The insert of a flush's term rows (`rows::Segments::flush`), ten million in a build:
//! - many rows per statement, so that SQLite keeps its cursor on the table's last page from one
//!   row to the next instead of seeking from the root for each (in a build, rows come in key
//!   order after every row the table holds); a standalone insert of 4 million sorted rows took
//!   1.5–1.6 s this way against 3.4–3.9 s one row per statement;
//! - each value bound where it lies: rusqlite binds text and blobs as `SQLITE_TRANSIENT`, which
//!   makes SQLite allocate, copy and free every value (a tenth of a build's writing thread).
use rusqlite::ffi;
use rusqlite::Connection;
use std::ffi::{c_int, CStr};

use super::codec;
use crate::query::terms::TermCount;

/// Rows per statement (the standalone insert: 64 as fast as 256, both far ahead of 1).
const ROWS: usize = 64;

/// Insert `(token, doc, counts)` rows of segment `seg`, in the order given.
pub(super) fn insert_terms<'a>(
    conn: &Connection,
    seg: i64,
    rows: impl Iterator<Item = (&'a str, i64, &'a TermCount)>,
) -> rusqlite::Result<()> {
    let mut full: Option<Statement> = None;
    let mut chunk = Vec::with_capacity(ROWS);
    let mut counts = vec![Vec::new(); ROWS];
    let mut rows = rows.fuse();
    loop {
        chunk.clear();
        chunk.extend(rows.by_ref().take(ROWS));
        let mut last;
        let st = match (chunk.len(), &mut full) {
            (0, _) => return Ok(()),
            (ROWS, Some(st)) => st,
            (ROWS, None) => full.insert(Statement::prepare(conn, &insert_sql(ROWS))?),
            (n, _) => {
                last = Statement::prepare(conn, &insert_sql(n))?;
                &mut last
            }
        };
        for ((_, _, c), buf) in chunk.iter().zip(&mut counts) {
            codec::term_count_into(c, buf);
        }
        let values: Vec<(&str, i64, &[u8])> = chunk
            .iter()
            .zip(&counts)
            .map(|(&(token, doc, _), buf)| (token, doc, buf.as_slice()))
            .collect();
        st.run(seg, &values)?;
    }
}

/// `INSERT INTO term` of `n` rows: `?1` the segment, then token, doc and counts of each row.
fn insert_sql(n: usize) -> String {
    let rows: Vec<String> = (0..n)
        .map(|i| format!("(?1, ?{}, ?{}, ?{})", 3 * i + 2, 3 * i + 3, 3 * i + 4))
        .collect();
    format!(
        "INSERT INTO term(seg, token, doc, counts) VALUES {}",
        rows.join(", ")
    )
}

/// A prepared insert of `conn` whose rows' values are bound in place; finalized when dropped.
struct Statement<'c> {
    conn: &'c Connection,
    stmt: *mut ffi::sqlite3_stmt,
}

impl<'c> Statement<'c> {
    fn prepare(conn: &'c Connection, sql: &str) -> rusqlite::Result<Statement<'c>> {
        let mut stmt = std::ptr::null_mut();
        // SAFETY: the connection is open for 'c, and the SQL's length is given.
        let rc = unsafe {
            ffi::sqlite3_prepare_v2(
                conn.handle(),
                sql.as_ptr().cast(),
                sql.len() as c_int,
                &mut stmt,
                std::ptr::null_mut(),
            )
        };
        let st = Statement { conn, stmt };
        st.check(rc)?;
        Ok(st)
    }

    /// Run the statement over `rows` (as many as it was prepared for). Their text and blobs are
    /// bound as `SQLITE_STATIC`: SQLite reads them in place during this call, and the bindings
    /// are cleared before it returns.
    fn run(&mut self, seg: i64, rows: &[(&str, i64, &[u8])]) -> rusqlite::Result<()> {
        // SAFETY: `stmt` is a live statement of `conn`; `rows` outlives the step, after which
        // the statement is reset and its bindings cleared.
        unsafe {
            let bound = self
                .bind(seg, rows)
                .and_then(|()| match ffi::sqlite3_step(self.stmt) {
                    ffi::SQLITE_DONE => Ok(()),
                    rc => self.check(rc),
                });
            ffi::sqlite3_reset(self.stmt);
            ffi::sqlite3_clear_bindings(self.stmt);
            bound
        }
    }

    /// # Safety
    /// The text and blobs of `rows` must stay where they are until the statement is reset.
    unsafe fn bind(&self, seg: i64, rows: &[(&str, i64, &[u8])]) -> rusqlite::Result<()> {
        unsafe {
            self.check(ffi::sqlite3_bind_int64(self.stmt, 1, seg))?;
            for (i, &(token, doc, counts)) in rows.iter().enumerate() {
                let at = 3 * i as c_int + 2;
                self.check(ffi::sqlite3_bind_text64(
                    self.stmt,
                    at,
                    token.as_ptr().cast(),
                    token.len() as u64,
                    ffi::SQLITE_STATIC(),
                    ffi::SQLITE_UTF8 as u8,
                ))?;
                self.check(ffi::sqlite3_bind_int64(self.stmt, at + 1, doc))?;
                self.check(ffi::sqlite3_bind_blob64(
                    self.stmt,
                    at + 2,
                    counts.as_ptr().cast(),
                    counts.len() as u64,
                    ffi::SQLITE_STATIC(),
                ))?;
            }
        }
        Ok(())
    }

    /// `rc` as rusqlite reports it, with the connection's message.
    fn check(&self, rc: c_int) -> rusqlite::Result<()> {
        if rc == ffi::SQLITE_OK {
            return Ok(());
        }
        // SAFETY: the connection is open; the message is copied before any other call.
        let message = unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(self.conn.handle())) };
        Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(rc),
            Some(message.to_string_lossy().into_owned()),
        ))
    }
}

impl Drop for Statement<'_> {
    fn drop(&mut self) {
        // SAFETY: finalized once, here; finalizing NULL (a failed prepare) is a no-op.
        unsafe { ffi::sqlite3_finalize(self.stmt) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::store;

    fn counts(i: usize) -> TermCount {
        let mut c = TermCount::default();
        for (f, n) in c.tf.iter_mut().enumerate() {
            *n = (i * 7 + f) as u32;
        }
        c.body = i as u32 * 3;
        c
    }

    fn stored(conn: &Connection, seg: i64) -> Vec<(String, i64, TermCount)> {
        let mut st = conn
            .prepare("SELECT token, doc, counts FROM term WHERE seg = ?1 ORDER BY token, doc")
            .unwrap();
        st.query_map([seg], |r| {
            let c: Vec<u8> = r.get(2)?;
            Ok((r.get(0)?, r.get(1)?, codec::decode_term_count(&c).unwrap()))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    }

    #[test]
    fn every_row_lands_whole_at_every_chunk_boundary() {
        let dir = tempfile::tempdir().unwrap();
        let conn = store::open(dir.path()).unwrap();
        for n in [0, 1, ROWS - 1, ROWS, ROWS + 1, 2 * ROWS + 1, 200] {
            let want: Vec<(String, i64, TermCount)> = (0..n)
                .map(|i| (format!("tok\u{e9}{i:04}"), 1000 + i as i64, counts(i)))
                .collect();
            let rows = want.iter().map(|(t, d, c)| (t.as_str(), *d, c));
            insert_terms(&conn, n as i64 + 1, rows).unwrap();
            assert_eq!(stored(&conn, n as i64 + 1), want, "{n} rows");
        }
        // A token as long as a pasted blob (one token of 100,000 letters).
        let long = "x".repeat(100_000);
        let c = counts(5);
        insert_terms(&conn, 800, [(long.as_str(), 7, &c)].into_iter()).unwrap();
        assert_eq!(stored(&conn, 800), vec![(long.clone(), 7, c)]);
        // A row that breaks the key fails the call with SQLite's message; the connection goes on.
        let c = counts(1);
        let twice = [("dup", 1, &c), ("dup", 1, &c)];
        match insert_terms(&conn, 900, twice.into_iter()) {
            Err(rusqlite::Error::SqliteFailure(e, Some(m))) => {
                assert_eq!(e.code, rusqlite::ErrorCode::ConstraintViolation);
                assert!(m.contains("UNIQUE"), "{m}");
            }
            other => panic!("{other:?}"),
        }
        insert_terms(&conn, 901, [("after", 2, &c)].into_iter()).unwrap();
        assert_eq!(stored(&conn, 901), vec![("after".to_string(), 2, c)]);
    }
}
