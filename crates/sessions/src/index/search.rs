//! Search from the index: FTS5 (trigrams of the folded text) picks the sessions that may match,
//! a superset of what a scan would find; the search engine's own analysis and ranking then run
//! on their stored messages, so scores, snippets and counts are the scan's.
use rayon::prelude::*;
use rusqlite::Connection;
use std::collections::HashMap;

use super::codec;
use super::store::Fault;
use super::sync::path_bytes;
use crate::agents::{Agent, Source};
use crate::model::Session;
use crate::query::parse::{Expr, Query};
use crate::query::prefilter::{needles_of, Prefilter};
use crate::search::scan::{rank, Examined, FileHit};
use crate::search::score::{analyse, Matcher};

/// An FTS5 expression that every session able to match `q` satisfies (NOTs ignored, as a match
/// needs only the rest), or `None` when it cannot narrow anything (every session is a candidate).
pub fn candidates_expr(q: &Query) -> Option<String> {
    expr(q, &q.expr)
}

fn expr(q: &Query, e: &Expr) -> Option<String> {
    match e {
        Expr::Leaf(l) => and(needles_of(&q.leaves[*l]).iter().filter_map(|n| needle(n))),
        Expr::And(v) => and(v.iter().filter_map(|e| expr(q, e))),
        // One part that cannot narrow makes the whole OR unable to.
        Expr::Or(v) => {
            let parts: Option<Vec<String>> = v.iter().map(|e| expr(q, e)).collect();
            let parts = parts?;
            (!parts.is_empty()).then(|| format!("({})", parts.join(" OR ")))
        }
        Expr::Not(a, _) => expr(q, a),
    }
}

fn and(parts: impl Iterator<Item = String>) -> Option<String> {
    let v: Vec<String> = parts.collect();
    (!v.is_empty()).then(|| format!("({})", v.join(" AND ")))
}

/// Every trigram of a needle (a text holding the needle holds them all); `None` for a needle of
/// fewer than three characters, which trigrams cannot look up.
fn needle(n: &str) -> Option<String> {
    let chars: Vec<char> = n.chars().collect();
    if chars.len() < 3 {
        return None;
    }
    let grams: Vec<String> = chars
        .windows(3)
        .map(|w| {
            let g: String = w.iter().collect();
            format!("\"{}\"", g.replace('"', "\"\""))
        })
        .collect();
    and(grams.into_iter())
}

/// A candidate: its source, summary and compressed messages.
struct Candidate {
    source: i64,
    summary: Vec<u8>,
    body: Vec<u8>,
}

/// Search the indexed documents of `sources` (already brought up to date).
pub fn search(
    conn: &Connection,
    mut sources: Vec<(&'static dyn Agent, Source)>,
    q: &Query,
) -> Result<Vec<FileHit>, Fault> {
    let mut names: Vec<&str> = sources.iter().map(|(a, _)| a.name()).collect();
    names.dedup();
    let names_json = serde_json::to_string(&names).unwrap_or_default();
    let mut stored: HashMap<(String, Vec<u8>), (i64, usize)> = HashMap::new();
    {
        let mut st = conn.prepare(
            "SELECT id, sessions, agent, path FROM source WHERE search_key IS NOT NULL
             AND agent IN (SELECT value FROM json_each(?1))",
        )?;
        let rows = st.query_map([&names_json], |r| {
            Ok((
                (r.get(2)?, r.get(3)?),
                (r.get(0)?, r.get::<_, i64>(1)? as usize),
            ))
        })?;
        for r in rows {
            let (k, v) = r?;
            stored.insert(k, v);
        }
    }
    // The scan's order (largest first), so that of two equal hits on one session the same copy
    // is kept.
    sources.sort_by_key(|(_, s)| std::cmp::Reverse(s.stamps.iter().map(|t| t.size).sum::<u64>()));
    let sources: Vec<(i64, usize)> = sources
        .iter()
        .filter_map(|(a, s)| {
            let key = (a.name().to_string(), path_bytes(&s.path).to_vec());
            stored.get(&key).copied()
        })
        .collect();
    let mut candidates: Vec<Candidate> = Vec::new();
    {
        let filter = candidates_expr(q);
        let sql = match filter {
            Some(_) => {
                "SELECT source, summary, body FROM doc WHERE agent IN (SELECT value FROM json_each(?1))
                 AND id IN (SELECT rowid FROM text WHERE text MATCH ?2) ORDER BY id"
            }
            None => {
                "SELECT source, summary, body FROM doc WHERE agent IN (SELECT value FROM json_each(?1))
                 ORDER BY id"
            }
        };
        let mut st = conn.prepare(sql)?;
        let map = |r: &rusqlite::Row| {
            Ok(Candidate {
                source: r.get(0)?,
                summary: r.get(1)?,
                body: r.get(2)?,
            })
        };
        let rows = match &filter {
            Some(f) => st.query_map(rusqlite::params![names_json, f], map)?,
            None => st.query_map(rusqlite::params![names_json], map)?,
        };
        for r in rows {
            candidates.push(r?);
        }
    }
    let pf = Prefilter::new(q);
    let matcher = Matcher::new(q, &pf);
    let analysed: Vec<_> = candidates
        .par_iter()
        .map(|c| {
            let summary = codec::decode_summary(&c.summary).map_err(|_| corrupt())?;
            let body = zstd::stream::decode_all(c.body.as_slice()).map_err(|_| corrupt())?;
            let messages = codec::decode_messages(&body).map_err(|_| corrupt())?;
            let s = Session {
                summary,
                messages,
                raw: None,
            };
            let st = analyse(&matcher, &s);
            let hit = st.matches(q).then(|| {
                let mut summary = s.summary;
                summary.unified_id = crate::ids::unified_id(&summary.agent, &summary.session_id);
                summary
            });
            Ok((c.source, st, hit))
        })
        .collect::<Result<_, Fault>>()?;
    let mut read: HashMap<i64, Vec<_>> = HashMap::new();
    for (source, st, hit) in analysed {
        read.entry(source).or_default().push((st, hit));
    }
    let examined = sources.into_iter().map(|(id, sessions)| Examined {
        sessions,
        read: read.remove(&id).unwrap_or_default(),
    });
    Ok(rank(q, examined))
}

fn corrupt() -> Fault {
    Fault::Broken("a stored document does not decode".into())
}
