//! scripts/schema/*.sql, the repository's own description of the SQLite stores that
//! scripts/gen_home.py writes (the demo home, the benchmark homes, the vitest fixtures), agrees with
//! the agents' real schema dumps in ../shared/research: every table it declares exists there with
//! the same columns in the same order, types, NOT NULL, defaults, primary key and STRICT flag.
use crate::common;
use crate::sqlite_fixtures;

use std::path::Path;

use rusqlite::Connection;

/// An in-memory database built from a schema file or a `.schema` dump.
fn db(sql: &str) -> Connection {
    let c = Connection::open_in_memory().unwrap();
    sqlite_fixtures::apply_ddl(&c, sql);
    c
}

/// Tables and virtual tables the schema creates (not SQLite's own, not FTS shadow tables), with
/// their STRICT flag.
fn tables(c: &Connection) -> Vec<(String, bool)> {
    let mut st = c
        .prepare(
            "SELECT name, strict FROM pragma_table_list WHERE schema = 'main' \
             AND type IN ('table', 'virtual') AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// `PRAGMA table_info` of `table`: name, type (upper case), notnull, default, pk position.
fn columns(c: &Connection, table: &str) -> Vec<(String, String, bool, Option<String>, i64)> {
    let mut st = c
        .prepare(&format!(
            "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info('{table}')"
        ))
        .unwrap();
    st.query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get::<_, String>(1)?.to_uppercase(),
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
        ))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn conforms(ours: &str, real: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts/schema")
        .join(ours);
    let ours = db(&std::fs::read_to_string(&path).unwrap());
    let real = db(&std::fs::read_to_string(common::shared(&format!("research/{real}"))).unwrap());
    let (ours_tables, real_tables) = (tables(&ours), tables(&real));
    assert!(!ours_tables.is_empty());
    for (name, strict) in &ours_tables {
        let twin = real_tables.iter().find(|(n, _)| n == name);
        assert_eq!(
            twin.map(|t| t.1),
            Some(*strict),
            "{}: table {name}",
            path.display()
        );
        assert_eq!(
            columns(&ours, name),
            columns(&real, name),
            "{}: table {name}",
            path.display()
        );
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn opencode_schema_matches_opencode_1_18() {
    conforms("opencode.sql", "opencode-schema-1.18.sql");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn openclaw_schema_matches_openclaw_2026_9() {
    conforms("openclaw.sql", "openclaw-agent-schema-2026.9.sql");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn hermes_schema_matches_hermes_v22() {
    conforms("hermes.sql", "hermes-schema-v22.sql");
}
