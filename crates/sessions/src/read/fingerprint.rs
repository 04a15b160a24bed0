//! Fingerprints of the sessions in a database of many sessions: for each session, a hash of every
//! row a read of that session uses, computed from the cells' bytes without parsing them. When
//! such a store changes, comparing fingerprints tells which of its sessions must be read again.
//!
//! A session's fingerprint is the sum of its rows' hashes (128-bit, wrapping), so it does not
//! depend on the order rows come in, and adding, removing or changing any row changes it. The
//! rows a read orders by are ordered by their own cells, which are hashed: the same set of rows
//! reads as the same session. The database's schema is hashed into every fingerprint, since a
//! read picks its columns from it.
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use rustc_hash::FxHashMap as HashMap;
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

pub type Fingerprint = u128;

/// A statement whose rows belong to sessions. Its first cell names what a row belongs to: a
/// session, or (`of` = n) a row of the n-th statement of `rows` that named itself. `names`: the
/// column whose cell names this statement's row for a later one (a message, for its parts), so
/// that rows reached through another are matched without a join.
pub struct Rows<'a> {
    pub sql: &'a str,
    pub of: Option<usize>,
    pub names: Option<usize>,
}

/// Each session's fingerprint, in the order `sessions` gives them. `sessions` selects one row per
/// session, its id first, then every cell a read of it uses; each of `rows` selects every cell a
/// read uses of rows that belong to sessions (see `Rows`). Rows that belong to no session that
/// `sessions` gives are passed over, as a read through joins would pass them over.
pub fn session_fingerprints(
    conn: &Connection,
    sessions: &str,
    rows: &[Rows<'_>],
) -> rusqlite::Result<Vec<(String, Fingerprint)>> {
    let mut h = Xxh3::new();
    let schema = {
        let mut st = conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master")?;
        let mut q = st.query([])?;
        let mut sum: Fingerprint = 0;
        while let Some(r) = q.next()? {
            sum = sum.wrapping_add(row_hash(&mut h, 0, r)?);
        }
        sum
    };
    let mut out: Vec<(String, Fingerprint)> = Vec::new();
    // The sessions by id, and for each statement that names its rows, the sessions of each.
    let mut by_id: HashMap<Fingerprint, Owners> = HashMap::default();
    {
        let mut st = conn.prepare(sessions)?;
        let mut q = st.query([])?;
        while let Some(r) = q.next()? {
            let Some(id) = cell_bytes(r.get_ref(0)?) else {
                continue;
            };
            Owners::add(&mut by_id, xxh3_128(id), &[out.len()]);
            let print = schema.wrapping_add(row_hash(&mut h, 0, r)?);
            out.push((String::from_utf8_lossy(id).into_owned(), print));
        }
    }
    let mut named: Vec<HashMap<Fingerprint, Owners>> = Vec::with_capacity(rows.len());
    for (n, statement) in rows.iter().enumerate() {
        let owners = match statement.of {
            None => &by_id,
            Some(k) if k < n => &named[k],
            Some(_) => return Err(rusqlite::Error::InvalidQuery),
        };
        let mut names: HashMap<Fingerprint, Owners> = HashMap::default();
        let mut st = conn.prepare(statement.sql)?;
        let mut q = st.query([])?;
        while let Some(r) = q.next()? {
            let Some(sessions) = cell_bytes(r.get_ref(0)?).and_then(|k| owners.get(&xxh3_128(k)))
            else {
                continue;
            };
            let sessions = sessions.as_slice();
            let print = row_hash(&mut h, n as u8 + 1, r)?;
            for &i in sessions {
                out[i].1 = out[i].1.wrapping_add(print);
            }
            if let Some(c) = statement.names {
                if let Some(own) = cell_bytes(r.get_ref(c)?) {
                    Owners::add(&mut names, xxh3_128(own), sessions);
                }
            }
        }
        named.push(names);
    }
    Ok(out)
}

/// The sessions an id belongs to: one, nearly always, held without an allocation (a map entry
/// per message of a store). An id given twice, in a table without a key on it, belongs to each.
enum Owners {
    One(usize),
    Many(Vec<usize>),
}

impl Owners {
    fn as_slice(&self) -> &[usize] {
        match self {
            Owners::One(i) => std::slice::from_ref(i),
            Owners::Many(v) => v,
        }
    }

    /// Add `sessions` to what `id` belongs to in `map`.
    fn add(map: &mut HashMap<Fingerprint, Owners>, id: Fingerprint, sessions: &[usize]) {
        use std::collections::hash_map::Entry;
        match (map.entry(id), sessions) {
            (Entry::Vacant(e), [one]) => {
                e.insert(Owners::One(*one));
            }
            (Entry::Vacant(e), many) => {
                e.insert(Owners::Many(many.to_vec()));
            }
            (Entry::Occupied(mut e), more) => {
                let mut all = e.get().as_slice().to_vec();
                all.extend_from_slice(more);
                e.insert(Owners::Many(all));
            }
        }
    }
}

/// An id cell's bytes (text or blob; other cells name nothing).
fn cell_bytes(v: ValueRef<'_>) -> Option<&[u8]> {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(b),
        _ => None,
    }
}

/// The hash of one row of statement number `table`: each cell's type, length and bytes, so no
/// two different rows encode alike.
fn row_hash(h: &mut Xxh3, table: u8, r: &rusqlite::Row<'_>) -> rusqlite::Result<Fingerprint> {
    h.reset();
    h.update(&[table]);
    for i in 0..r.as_ref().column_count() {
        match r.get_ref(i)? {
            ValueRef::Null => h.update(&[0]),
            ValueRef::Integer(v) => {
                h.update(&[1]);
                h.update(&v.to_le_bytes());
            }
            ValueRef::Real(v) => {
                h.update(&[2]);
                h.update(&v.to_bits().to_le_bytes());
            }
            ValueRef::Text(b) | ValueRef::Blob(b) => {
                // Text and blob read alike (`cell_string`); their bytes are what matters.
                h.update(&[3]);
                h.update(&(b.len() as u64).to_le_bytes());
                h.update(b);
            }
        }
    }
    Ok(h.digest128())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE s(id TEXT PRIMARY KEY, title TEXT);
             CREATE TABLE m(id TEXT PRIMARY KEY, sid TEXT, data TEXT, n INTEGER);
             INSERT INTO s VALUES ('a', 'A'), ('b', 'B');
             INSERT INTO m VALUES ('1', 'a', 'x', 1), ('2', 'a', 'y', 2), ('3', 'b', 'x', 1),
                                  ('4', 'zz', 'orphan', 0);",
        )
        .unwrap();
        c
    }

    fn rows(sql: &str) -> Rows<'_> {
        Rows {
            sql,
            of: None,
            names: None,
        }
    }

    fn prints(c: &Connection) -> Vec<(String, Fingerprint)> {
        session_fingerprints(
            c,
            "SELECT id, title FROM s ORDER BY id",
            &[rows("SELECT sid, id, data, n FROM m")],
        )
        .unwrap()
    }

    /// Each kind of change to a session's rows changes its fingerprint and no other's; the order
    /// rows come in, and rows of no session, change nothing.
    #[test]
    fn a_change_to_a_sessions_rows_changes_its_fingerprint_only() {
        let c = db();
        let before = prints(&c);
        assert_eq!(
            before.iter().map(|p| p.0.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_ne!(before[0].1, before[1].1);
        for change in [
            "UPDATE m SET data = 'X' WHERE id = '1'",
            "UPDATE m SET n = NULL WHERE id = '1'",
            "INSERT INTO m VALUES ('5', 'a', 'z', 3)",
            "INSERT INTO m VALUES ('5', 'a', 'x', 1)",
            "DELETE FROM m WHERE id = '2'",
            "UPDATE s SET title = 'A2' WHERE id = 'a'",
            "UPDATE m SET sid = 'b' WHERE id = '2'",
        ] {
            let c = db();
            c.execute_batch(change).unwrap();
            let after = prints(&c);
            assert_ne!(after[0].1, before[0].1, "{change}");
            if !change.contains("sid = 'b'") {
                assert_eq!(after[1], before[1], "{change}");
            }
        }
        let c = db();
        c.execute_batch(
            "INSERT INTO m VALUES ('6', 'nobody', 'q', 0); DELETE FROM m WHERE id = '4';",
        )
        .unwrap();
        assert_eq!(prints(&c), before, "rows of no session");
        let reversed = session_fingerprints(
            &db(),
            "SELECT id, title FROM s ORDER BY id",
            &[rows("SELECT sid, id, data, n FROM m ORDER BY id DESC")],
        )
        .unwrap();
        assert_eq!(reversed, before, "the rows' order");
    }

    /// Rows reached through another statement's rows (parts through their message) belong to
    /// that row's session, and move with it.
    #[test]
    fn rows_reached_through_a_named_row_belong_to_its_session() {
        let linked = |c: &Connection| {
            session_fingerprints(
                c,
                "SELECT id, title FROM s ORDER BY id",
                &[
                    Rows {
                        sql: "SELECT sid, id, data, n FROM m",
                        of: None,
                        names: Some(1),
                    },
                    Rows {
                        sql: "SELECT mid, data FROM p",
                        of: Some(0),
                        names: None,
                    },
                ],
            )
            .unwrap()
        };
        let with_parts = || {
            let c = db();
            c.execute_batch(
                "CREATE TABLE p(mid TEXT, data TEXT);
                 INSERT INTO p VALUES ('1', 'part of a'), ('3', 'part of b'), ('9', 'of nothing');",
            )
            .unwrap();
            c
        };
        let before = linked(&with_parts());
        for (change, moved) in [
            (
                "UPDATE p SET data = 'changed' WHERE mid = '1'",
                [true, false],
            ),
            ("INSERT INTO p VALUES ('2', 'another')", [true, false]),
            ("DELETE FROM p WHERE mid = '3'", [false, true]),
            ("UPDATE p SET mid = '3' WHERE mid = '1'", [true, true]),
            ("UPDATE m SET sid = 'b' WHERE id = '1'", [true, true]),
            (
                "INSERT INTO p VALUES ('8', 'of no message')",
                [false, false],
            ),
        ] {
            let c = with_parts();
            c.execute_batch(change).unwrap();
            let after = linked(&c);
            for i in 0..2 {
                assert_eq!(after[i].1 != before[i].1, moved[i], "{change}: session {i}");
            }
        }
    }

    /// An id given twice (a table with no key on it) names a row of each session: what reaches
    /// it belongs to both, as a join would have it.
    #[test]
    fn rows_reached_through_an_id_given_twice_belong_to_each_session() {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE s(id TEXT); CREATE TABLE m(sid TEXT, id TEXT); CREATE TABLE p(mid TEXT, t TEXT);
             INSERT INTO s VALUES ('a'), ('b'), ('c');
             INSERT INTO m VALUES ('a', 'x'), ('b', 'x'), ('c', 'y');
             INSERT INTO p VALUES ('x', 'one'), ('y', 'two');",
        )
        .unwrap();
        let prints = |c: &Connection| {
            let p = session_fingerprints(
                c,
                "SELECT id FROM s ORDER BY id",
                &[
                    Rows {
                        sql: "SELECT sid, id FROM m",
                        of: None,
                        names: Some(1),
                    },
                    Rows {
                        sql: "SELECT mid, t FROM p",
                        of: Some(0),
                        names: None,
                    },
                ],
            )
            .unwrap();
            p.into_iter().map(|(_, f)| f).collect::<Vec<_>>()
        };
        let before = prints(&c);
        c.execute_batch("UPDATE p SET t = 'changed' WHERE mid = 'x'")
            .unwrap();
        let after = prints(&c);
        assert_eq!(
            [0, 1, 2].map(|i| after[i] != before[i]),
            [true, true, false]
        );
    }

    /// A read picks its columns from the schema: a new column changes every fingerprint.
    #[test]
    fn a_schema_change_changes_every_fingerprint() {
        let c = db();
        let before = prints(&c);
        c.execute_batch("ALTER TABLE m ADD COLUMN extra TEXT")
            .unwrap();
        let after = prints(&c);
        assert!(before.iter().zip(&after).all(|(b, a)| b.1 != a.1));
    }

    /// The same cells in two statements are two different rows.
    #[test]
    fn rows_of_two_statements_do_not_cancel_out() {
        let c = db();
        let one = session_fingerprints(&c, "SELECT id FROM s", &[rows("SELECT sid, data FROM m")])
            .unwrap();
        let two = session_fingerprints(
            &c,
            "SELECT id FROM s",
            &[
                rows("SELECT sid, data FROM m"),
                rows("SELECT sid, data FROM m"),
            ],
        )
        .unwrap();
        assert!(one.iter().zip(&two).all(|(a, b)| a.1 != b.1));
    }
}
