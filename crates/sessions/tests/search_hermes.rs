//! Hermes' FTS5 search on databases built from Hermes' real DDL (v22 inline FTS, v30 external
//! content), compared with the rows Hermes' own `search_messages` SQL returns (shared/research/
//! hermes.md 4.2), grouped by session the way `session_search` does.
use crate::common;

use std::path::{Path, PathBuf};

use agent_mux_sessions::agents::hermes::search::{route, search_db, snippets, Route};
use agent_mux_sessions::query::{parse::sanitize, Query};
use rusqlite::Connection;

fn ddl(version: &str) -> String {
    let p = common::shared(&format!("research/hermes-schema-{version}.sql"));
    std::fs::read_to_string(&p).unwrap()
}

/// Statements of a `.schema` dump: triggers end at `END;`, everything else at a line ending `;`.
fn statements(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in sql.lines() {
        cur.push_str(line);
        cur.push('\n');
        let in_trigger = cur.trim_start().starts_with("CREATE TRIGGER");
        let done = if in_trigger {
            line.trim() == "END;"
        } else {
            line.trim_end().ends_with(';')
        };
        if done {
            out.push(std::mem::take(&mut cur));
        }
    }
    out
}

/// (id, source, parent, end_reason, title, started_at)
#[allow(clippy::type_complexity)]
const SESSIONS: &[(&str, &str, Option<&str>, Option<&str>, &str, f64)] = &[
    (
        "20250305_091523_a1b2c3",
        "cli",
        None,
        Some("compression"),
        "Fix auth refresh",
        1741166123.0,
    ),
    (
        "20250305_092633_d4e5f6",
        "cli",
        Some("20250305_091523_a1b2c3"),
        None,
        "Fix auth refresh #2",
        1741166793.0,
    ),
    (
        "20250306_121145_9f8e7d6c",
        "telegram",
        None,
        None,
        "进度",
        1741263105.0,
    ),
    (
        "20250307_160210_0c9d8e",
        "cli",
        None,
        Some("branched"),
        "Rate limits",
        1741363330.0,
    ),
    (
        "20250307_163000_b7a6c5",
        "cli",
        Some("20250307_160210_0c9d8e"),
        None,
        "Rate limits #2",
        1741365000.0,
    ),
    (
        "20250311_084530_e1f2a3",
        "cli",
        None,
        None,
        "Stones",
        1741682730.0,
    ),
];

/// (session index, role, content, tool_name, tool_calls, active)
#[allow(clippy::type_complexity)]
const MESSAGES: &[(usize, &str, &str, Option<&str>, Option<&str>, i64)] = &[
    (
        0,
        "user",
        "The auth-refresh token expires too early",
        None,
        None,
        1,
    ),
    (
        0,
        "assistant",
        "Let me read the auth module",
        None,
        Some(
            r#"[{"id":"c1","function":{"name":"read_file","arguments":"{\"path\":\"auth/refresh.py\"}"}}]"#,
        ),
        1,
    ),
    (
        0,
        "tool",
        "def auth_refresh(): return token",
        Some("read_file"),
        None,
        1,
    ),
    (
        1,
        "user",
        "[CONTEXT SUMMARY]: we fixed auth-refresh expiry; docker deploy next",
        None,
        None,
        1,
    ),
    (
        1,
        "assistant",
        "docker compose restart done, refresh works",
        None,
        None,
        1,
    ),
    (1, "user", "drop the database volume", None, None, 0),
    (2, "user", "大别山项目进度如何？", None, None, 1),
    (
        2,
        "assistant",
        "大别山项目进度正常，广西的项目也在推进",
        None,
        None,
        1,
    ),
    (
        3,
        "user",
        "chat-send returns 429 from my-app.config.ts, see P2.2",
        None,
        None,
        1,
    ),
    (
        3,
        "assistant",
        "Set mem_limit and check the rate-limit; python not java",
        Some("terminal"),
        Some(r#"[{"function":{"name":"terminal","arguments":"{\"cmd\":\"docker stats\"}"}}]"#),
        1,
    ),
    (
        4,
        "user",
        "chat-send 429 again after the branch; kubernetes maybe",
        None,
        None,
        1,
    ),
    (
        4,
        "assistant",
        "TODO fix the python deploy script",
        None,
        None,
        1,
    ),
    (5, "user", "别忘了山上的大石头", None, None, 1),
    (5, "assistant", "안녕하세요 docker", None, None, 1),
];

fn build(dir: &Path, version: &str) -> PathBuf {
    let sql = ddl(version);
    let path = dir.join(format!("state-{version}.db"));
    let c = Connection::open(&path).unwrap();
    for st in statements(&sql) {
        if let Err(e) = c.execute_batch(&st) {
            let m = e.to_string();
            assert!(
                m.contains("already exists") || m.contains("sqlite_sequence"),
                "{m}: {st}"
            );
        }
    }
    for (id, source, parent, reason, title, started) in SESSIONS {
        c.execute(
            "INSERT INTO sessions (id, source, parent_session_id, end_reason, title, started_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![id, source, parent, reason, title, started],
        )
        .unwrap();
    }
    for (i, (s, role, content, tool, calls, active)) in MESSAGES.iter().enumerate() {
        c.execute(
            "INSERT INTO messages (session_id, role, content, tool_name, tool_calls, timestamp, active) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            rusqlite::params![SESSIONS[*s].0, role, content, tool, calls, SESSIONS[*s].5 + i as f64, active],
        )
        .unwrap();
    }
    path
}

/// Hermes' `search_messages` (0.19, hermes.md 4.2) written out as SQL, message ids in order.
/// Per this project's brief an FTS query SQLite rejects falls back to the LIKE scan.
fn hermes_sql(c: &Connection, sanitized: &str, limit: i64) -> Vec<String> {
    let fts = |table: &str, text: &str| -> rusqlite::Result<Vec<String>> {
        let col = if table == "messages_fts" && fts_cols(c, table) > 1 {
            -1
        } else {
            0
        };
        let sql = format!(
            "SELECT m.id, m.session_id, m.role, \
                    snippet({table}, {col}, '>>>', '<<<', '...', 40) AS snippet, \
                    m.content, m.timestamp, m.tool_name, s.source, s.model, s.started_at AS session_started \
             FROM {table} JOIN messages m ON m.id = {table}.rowid JOIN sessions s ON s.id = m.session_id \
             WHERE {table} MATCH ? AND (m.active = 1 OR m.compacted = 1) ORDER BY rank LIMIT ? OFFSET 0"
        );
        let mut st = c.prepare(&sql)?;
        let rows = st.query_map(rusqlite::params![text, limit], |r| r.get::<_, String>(1))?;
        rows.collect()
    };
    let terms: Vec<String> = sanitized
        .split_whitespace()
        .filter(|t| !matches!(*t, "AND" | "OR" | "NOT"))
        .map(|t| t.trim_matches('"').to_string())
        .collect();
    let attempt = match route(sanitized) {
        Route::Fts => fts("messages_fts", sanitized).ok(),
        Route::Trigram => {
            let q: Vec<String> = sanitized
                .split_whitespace()
                .map(|t| match t {
                    "AND" | "OR" | "NOT" => t.to_string(),
                    _ => format!("\"{}\"", t.trim_matches('"').replace('"', "\"\"")),
                })
                .collect();
            fts("messages_fts_trigram", &q.join(" ")).ok()
        }
        Route::Like => None,
    };
    if let Some(v) = attempt {
        return v;
    }
    let mut params: Vec<String> = vec![terms[0].clone()];
    let mut ors = Vec::new();
    for t in &terms {
        let esc = t
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        params.push(format!("%{esc}%"));
        let k = params.len();
        ors.push(format!(
            "(m.content LIKE ?{k} ESCAPE '\\' OR m.tool_name LIKE ?{k} ESCAPE '\\' OR m.tool_calls LIKE ?{k} ESCAPE '\\')"
        ));
    }
    let sql = format!(
        "SELECT m.id, m.session_id, m.role, substr(m.content, max(1, instr(m.content, ?1) - 40), 120) AS snippet \
         FROM messages m JOIN sessions s ON s.id = m.session_id WHERE ({}) \
         ORDER BY m.timestamp DESC LIMIT {limit} OFFSET 0",
        ors.join(" OR ")
    );
    let mut st = c.prepare(&sql).unwrap();
    let rows = st
        .query_map(rusqlite::params_from_iter(params.iter()), |r| {
            r.get::<_, String>(1)
        })
        .unwrap();
    rows.map(|r| r.unwrap()).collect()
}

fn fts_cols(c: &Connection, table: &str) -> usize {
    let mut st = c.prepare(&format!("PRAGMA table_info({table})")).unwrap();
    st.query_map([], |_| Ok(())).unwrap().count()
}

/// `_resolve_to_parent` limited to compression links, then first hit per root.
fn group(c: &Connection, sessions: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for mut s in sessions {
        loop {
            let p: Option<String> = c
                .query_row(
                    "SELECT p.id FROM sessions c JOIN sessions p ON p.id = c.parent_session_id \
                     WHERE c.id = ?1 AND p.end_reason = 'compression'",
                    [&s],
                    |r| r.get(0),
                )
                .ok();
            match p {
                Some(p) => s = p,
                None => break,
            }
        }
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

const QUERIES: &[&str] = &[
    "auth-refresh",
    "refresh",
    "docker",
    "docker OR kubernetes",
    "python NOT java",
    "deploy*",
    "\"drop the database volume\"",
    "drop database",
    "mem_limit",
    "chat-send 429",
    "my-app.config.ts",
    "P2.2",
    "TODO: fix",
    "大别山项目",
    "大别山",
    "项目",
    "广西 OR 大别山",
    "안녕하세요",
    "read_file",
    "a/b",
    "C++",
];

fn check(version: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), version);
    let c = Connection::open(&path).unwrap();
    // Small limits cut the ranking short, with and without a hidden row among the best.
    for limit in [1, 2, 50] {
        for q in QUERIES {
            let sanitized = sanitize(q);
            let want = group(&c, hermes_sql(&c, &sanitized, limit));
            let got: Vec<String> = match Query::parse(q) {
                Some(parsed) => search_db(&path, &parsed, limit as usize)
                    .unwrap()
                    .into_iter()
                    .map(|h| h.session_ids[0].clone())
                    .collect(),
                None => Vec::new(),
            };
            assert_eq!(
                got, want,
                "{version} query {q:?} (sanitised {sanitized:?}) limit {limit}"
            );
        }
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn same_sessions_in_same_order_as_hermes_v22() {
    check("v22");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn same_sessions_in_same_order_as_hermes_v30() {
    check("v30");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn hermes_results_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "v22");
    let ids = |q: &str| -> Vec<String> {
        search_db(&path, &Query::parse(q).unwrap(), 50)
            .unwrap()
            .into_iter()
            .map(|h| h.session_ids[0].clone())
            .collect()
    };
    // The compression child's hits are reported under its root, once.
    assert_eq!(ids("auth-refresh"), ["20250305_091523_a1b2c3"]);
    // The branch is its own session (bm25 puts its shorter message first).
    assert_eq!(
        ids("chat-send 429"),
        ["20250307_163000_b7a6c5", "20250307_160210_0c9d8e"]
    );
    // Trigram: the exact sequence only, never the scattered characters.
    assert_eq!(ids("大别山"), ["20250306_121145_9f8e7d6c"]);
    // Rewound rows are not searched.
    assert!(ids("\"drop the database volume\"").is_empty());
    // Snippets carry Hermes' markers; match counts add up across the lineage.
    let hits = search_db(&path, &Query::parse("refresh").unwrap(), 50).unwrap();
    assert_eq!(hits[0].session_ids[0], "20250305_091523_a1b2c3");
    assert!(hits[0].match_count >= 3, "{:?}", hits[0]);
    // The snippet is made afterwards, only for results returned, from the best row.
    assert!(hits[0].snippet.is_none());
    let conn = Connection::open(&path).unwrap();
    let row = hits[0]
        .snippet_row
        .clone()
        .expect("an FTS hit names its best row")
        .row;
    let snippet = snippets(&conn, "refresh", &[row], false).remove(0).unwrap();
    assert!(snippet.contains(">>>refresh<<<"), "{snippet}");
    // A query FTS5 rejects falls back to LIKE rather than failing.
    assert_eq!(ids("a/b").len(), 0);
    assert_eq!(ids("auth/refresh.py"), ["20250305_091523_a1b2c3"]);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn the_database_is_not_changed() {
    let dir = tempfile::tempdir().unwrap();
    let path = build(dir.path(), "v22");
    let before = std::fs::read(&path).unwrap();
    let listing = |d: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let files = listing(dir.path());
    search_db(&path, &Query::parse("docker").unwrap(), 50).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(listing(dir.path()), files);
}
