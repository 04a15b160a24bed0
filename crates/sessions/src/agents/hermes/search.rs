//! Hermes' own search over `state.db`, as Hermes 0.19 `SessionDB.search_messages` does it
//! (shared/research/hermes.md 4.2): the sanitised query is routed to the unicode61 FTS5 table
//! (no CJK), the trigram table (every CJK term has 3+ CJK characters) or a LIKE scan (shorter
//! CJK terms); an FTS query SQLite rejects, or an FTS table that is missing or malformed, falls
//! back to the LIKE scan. Message hits are grouped by session, a compression continuation
//! reported under the root of its chain, in Hermes' order (best bm25 first).
use rusqlite::{params_from_iter, Connection};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::query::parse::{lex, Item, Query};
use crate::query::text::is_cjk;
use crate::query::{snippet, NativeHit, StoreRow};
use crate::read::sqlite::{columns, has_table, open_read_only};

/// Message hits read per search: sessions are formed from these (Hermes' discover reads 300).
pub const MESSAGE_LIMIT: usize = 2000;

/// The agent's native search over `dbs` (each searched on its own, hits kept together); a
/// database that cannot be read is skipped, as `list` skips it.
pub fn native_search(dbs: &[PathBuf], q: &Query) -> Result<Vec<NativeHit>> {
    Ok(dbs
        .iter()
        .filter_map(|db| search_db(db, q, MESSAGE_LIMIT).ok())
        .flatten()
        .collect())
}

/// Which of Hermes' three paths a sanitised query takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Fts,
    Trigram,
    Like,
}

/// Terms of the sanitised query (quotes removed), without operators.
fn terms(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Term(t, _) if !t.trim().is_empty() => Some(t.clone()),
            _ => None,
        })
        .collect()
}

pub fn route(sanitized: &str) -> Route {
    let total = sanitized.chars().filter(|&c| is_cjk(c)).count();
    if total == 0 {
        return Route::Fts;
    }
    let all_long = terms(&lex(sanitized))
        .iter()
        .map(|t| t.chars().filter(|&c| is_cjk(c)).count())
        .all(|n| n == 0 || n >= 3);
    if total >= 3 && all_long {
        Route::Trigram
    } else {
        Route::Like
    }
}

/// The trigram MATCH text: every term quoted (quotes doubled), operators kept.
fn trigram_match(sanitized: &str) -> String {
    lex(sanitized)
        .iter()
        .map(|i| match i {
            Item::And => "AND".to_string(),
            Item::Or => "OR".to_string(),
            Item::Not => "NOT".to_string(),
            Item::Term(t, _) => format!("\"{}\"", t.replace('"', "\"\"")),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One message hit, in the order Hermes returns them.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageHit {
    pub id: i64,
    pub session_id: String,
    /// FTS5 `rank` (bm25, lower is better); `None` on the LIKE path.
    pub rank: Option<f64>,
    pub snippet: Option<String>,
}

/// Search `path` and group the hits by session.
pub fn search_db(path: &Path, q: &Query, limit: usize) -> Result<Vec<NativeHit>> {
    let conn = open_read_only(path)?;
    let (hits, table) =
        message_hits(&conn, &q.sanitized, limit).map_err(|e| Error::parse(path.display(), e))?;
    Ok(group(&conn, hits, table.is_some().then_some(path)))
}

/// Hermes' `search_messages` rows for a sanitised query (and which FTS table answered, if any).
pub fn message_hits(
    conn: &Connection,
    sanitized: &str,
    limit: usize,
) -> rusqlite::Result<(Vec<MessageHit>, Option<&'static str>)> {
    if sanitized.is_empty() {
        return Ok((Vec::new(), None));
    }
    if let Some((table, text)) = fts_target(sanitized) {
        if has_table(conn, table) {
            if let Ok(hits) = fts_hits(conn, table, &text, limit) {
                return Ok((hits, Some(table)));
            }
        }
    }
    Ok((like_hits(conn, sanitized, limit)?, None))
}

/// The FTS5 table a sanitised query goes to and the MATCH text it is given there; `None` on the
/// LIKE path.
fn fts_target(sanitized: &str) -> Option<(&'static str, String)> {
    match route(sanitized) {
        Route::Fts => Some(("messages_fts", sanitized.to_string())),
        Route::Trigram => Some(("messages_fts_trigram", trigram_match(sanitized))),
        Route::Like => None,
    }
}

/// Rows Hermes' search shows: not rewound (`active`/`compacted`), not hidden ([main]).
fn visible(conn: &Connection) -> String {
    let cols = columns(conn, "messages");
    let mut w = String::new();
    if cols.iter().any(|c| c == "active") && cols.iter().any(|c| c == "compacted") {
        w.push_str(" AND (m.active = 1 OR m.compacted = 1)");
    }
    if cols.iter().any(|c| c == "display_kind") {
        w.push_str(" AND COALESCE(m.display_kind, '') <> 'hidden'");
    }
    w
}

fn fts_hits(
    conn: &Connection,
    table: &str,
    text: &str,
    limit: usize,
) -> rusqlite::Result<Vec<MessageHit>> {
    // The best `limit` matches first, scored by FTS5 alone (no join per matching row), then the
    // visibility joins on those rows only. When a join dropped one of them, rows further down
    // would have taken its place: then Hermes' own query shape runs instead.
    let visible = visible(conn);
    let top = format!(
        "SELECT m.id, m.session_id, f.r FROM \
         (SELECT rowid AS id, {rank} AS r FROM {table} WHERE {table} MATCH ?1 ORDER BY r LIMIT ?2) f \
         JOIN messages m ON m.id = f.id JOIN sessions s ON s.id = m.session_id \
         WHERE 1{visible} ORDER BY f.r",
        rank = rank_expr(conn, table),
    );
    let hits = query_hits(conn, &top, text, limit)?;
    if hits.len() < limit {
        let matched: i64 = conn.query_row(
            &format!(
                "SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ?1 LIMIT ?2)"
            ),
            rusqlite::params![text, limit as i64],
            |r| r.get(0),
        )?;
        if matched as usize > hits.len() {
            let hermes = format!(
                "SELECT m.id, m.session_id, rank FROM {table} \
                 JOIN messages m ON m.id = {table}.rowid JOIN sessions s ON s.id = m.session_id \
                 WHERE {table} MATCH ?1{visible} ORDER BY rank LIMIT ?2"
            );
            return query_hits(conn, &hermes, text, limit);
        }
    }
    Ok(hits)
}

fn query_hits(
    conn: &Connection,
    sql: &str,
    text: &str,
    limit: usize,
) -> rusqlite::Result<Vec<MessageHit>> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map(rusqlite::params![text, limit as i64], |r| {
        Ok(MessageHit {
            id: r.get(0)?,
            session_id: r.get(1)?,
            rank: Some(r.get(2)?),
            snippet: None,
        })
    })?;
    rows.collect()
}

/// Hermes orders by `rank`, which is `bm25(table)` unless the table's config names another rank
/// function. Calling bm25 directly gives the same order without FTS5's per-row lookup of the
/// rank function (a fifth of the ranking on a 1M-message db).
fn rank_expr(conn: &Connection, table: &str) -> String {
    let configured = conn
        .query_row(
            &format!("SELECT 1 FROM \"{table}_config\" WHERE k = 'rank'"),
            [],
            |_| Ok(()),
        )
        .is_ok();
    if configured {
        "rank".to_string()
    } else {
        format!("bm25({table})")
    }
}

fn like_escape(t: &str) -> String {
    let mut s = String::from("%");
    for c in t.chars() {
        if matches!(c, '%' | '_' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('%');
    s
}

fn like_hits(
    conn: &Connection,
    sanitized: &str,
    limit: usize,
) -> rusqlite::Result<Vec<MessageHit>> {
    let toks = terms(&lex(sanitized));
    if toks.is_empty() {
        return Ok(Vec::new());
    }
    let cols = columns(conn, "messages");
    let searched: Vec<&str> = ["content", "tool_name", "tool_calls"]
        .into_iter()
        .filter(|c| cols.iter().any(|have| have == c))
        .collect();
    let mut params: Vec<String> = vec![toks[0].clone()];
    let mut ors = Vec::new();
    for t in &toks {
        params.push(like_escape(t));
        let k = params.len();
        let any: Vec<String> = searched
            .iter()
            .map(|c| format!("m.{c} LIKE ?{k} ESCAPE '\\'"))
            .collect();
        ors.push(format!("({})", any.join(" OR ")));
    }
    params.push(limit.to_string());
    let sql = format!(
        "SELECT m.id, m.session_id, substr(m.content, max(1, instr(m.content, ?1) - 40), 120) \
         FROM messages m JOIN sessions s ON s.id = m.session_id \
         WHERE ({}) ORDER BY m.timestamp DESC LIMIT CAST(?{} AS INTEGER)",
        ors.join(" OR "),
        params.len()
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(params_from_iter(params.iter()), |r| {
        Ok(MessageHit {
            id: r.get(0)?,
            session_id: r.get(1)?,
            rank: None,
            snippet: r.get::<_, Option<String>>(2)?,
        })
    })?;
    rows.collect()
}

/// Each session continued from a parent that ended in compression, with that parent: one query
/// (such links are few), instead of one per hit session.
fn compression_parents(conn: &Connection) -> HashMap<String, String> {
    let has_reason = columns(conn, "sessions").iter().any(|c| c == "end_reason");
    if !has_reason {
        return HashMap::new();
    }
    let Ok(mut stmt) = conn.prepare(
        "SELECT c.id, p.id FROM sessions c JOIN sessions p ON p.id = c.parent_session_id \
         WHERE c.parent_session_id IS NOT NULL AND p.end_reason = 'compression'",
    ) else {
        return HashMap::new();
    };
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)));
    match rows {
        Ok(rows) => rows.filter_map(|r| r.ok()).collect(),
        Err(_) => HashMap::new(),
    }
}

/// Walk up compression parents: the root of the conversation `id` continues (branches and
/// subagents are sessions of their own). A cycle stops the walk.
fn lineage_root(parents: &HashMap<String, String>, id: &str) -> String {
    let mut current = id;
    let mut seen = vec![id];
    while let Some(p) = parents.get(current) {
        if seen.contains(&p.as_str()) || seen.len() >= 10_000 {
            break;
        }
        seen.push(p);
        current = p;
    }
    current.to_string()
}

/// Group message hits by lineage root, in the order of each root's first (best) hit. `fts`: the
/// database an FTS table answered in (its rows' snippets are made later).
fn group(conn: &Connection, hits: Vec<MessageHit>, fts: Option<&Path>) -> Vec<NativeHit> {
    let parents = compression_parents(conn);
    let mut order: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<NativeHit> = Vec::new();
    let n = hits.len().max(1) as f64;
    for (i, h) in hits.into_iter().enumerate() {
        let root = lineage_root(&parents, &h.session_id);
        match order.get(&root) {
            Some(&k) => {
                let hit = &mut out[k];
                hit.match_count += 1;
                if !hit.session_ids.contains(&h.session_id) {
                    hit.session_ids.push(h.session_id);
                }
            }
            None => {
                order.insert(root.clone(), out.len());
                let mut ids = vec![root];
                if ids[0] != h.session_id {
                    ids.push(h.session_id.clone());
                }
                // bm25 is negative, better is lower; the LIKE path is newest first and has no
                // relevance, so its order is kept with a gently falling score.
                let score = match h.rank {
                    Some(r) => (-r).max(1e-6),
                    None => 1.0 - i as f64 / (n * 1000.0),
                };
                out.push(NativeHit {
                    session_ids: ids,
                    score,
                    match_count: 1,
                    snippet: h.snippet.map(|s| snippet::make(&s, &[])),
                    // FTS5 makes the snippet of the best row, later, if the result is returned.
                    snippet_row: fts.map(|db| StoreRow {
                        store: db.to_path_buf(),
                        row: h.id,
                    }),
                });
            }
        }
    }
    out
}

/// The agent's snippets for rows its search found (FTS5's `snippet`, re-cut to our limit): each
/// database is opened once for the rows found in it.
pub fn native_snippets(q: &Query, rows: &[StoreRow]) -> Vec<Option<String>> {
    let mut out = vec![None; rows.len()];
    let mut dbs: Vec<&Path> = rows.iter().map(|r| r.store.as_path()).collect();
    dbs.sort();
    dbs.dedup();
    for db in dbs {
        let Ok(conn) = open_read_only(db) else {
            continue;
        };
        let at: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].store == db).collect();
        let ids: Vec<i64> = at.iter().map(|&i| rows[i].row).collect();
        for (i, s) in at
            .into_iter()
            .zip(snippets(&conn, &q.sanitized, &ids, q.redact))
        {
            out[i] = s;
        }
    }
    out
}

/// FTS5 snippets of `rows` for a sanitised query (`None` where there is none): one statement,
/// run once per row.
pub fn snippets(
    conn: &Connection,
    sanitized: &str,
    rows: &[i64],
    redact: bool,
) -> Vec<Option<String>> {
    let Some((table, text)) = fts_target(sanitized) else {
        return vec![None; rows.len()];
    };
    let col = if columns(conn, table).len() > 1 {
        -1
    } else {
        0
    };
    let sql = format!(
        "SELECT snippet({table}, {col}, '>>>', '<<<', '...', 40) FROM {table} \
         WHERE {table} MATCH ?1 AND rowid = ?2"
    );
    let Ok(mut stmt) = conn.prepare(&sql) else {
        return vec![None; rows.len()];
    };
    rows.iter()
        .map(|&row| {
            let marked: String = stmt
                .query_row(rusqlite::params![text, row], |r| r.get(0))
                .ok()?;
            Some(recut(&marked, redact))
        })
        .collect()
}

/// Strip FTS5's markers to plain text plus hit ranges, then cut with our snippet rules (its
/// secrets redacted first when `redact`).
fn recut(marked: &str, redact: bool) -> String {
    let mut plain = String::new();
    let mut hits = Vec::new();
    let mut rest = marked;
    while let Some(open) = rest.find(">>>") {
        plain.push_str(&rest[..open]);
        let after = &rest[open + 3..];
        let close = after.find("<<<").unwrap_or(after.len());
        let s = plain.len();
        plain.push_str(&after[..close]);
        hits.push((s, plain.len()));
        rest = after.get(close + 3..).unwrap_or("");
    }
    plain.push_str(rest);
    let from = hits.first().map_or(0, |h| h.0);
    snippet::make_redacted(&plain, &hits, from, redact)
}
