//! `search` from a team database. The query language is the local one (`query::parse`); each of
//! its leaves becomes a condition on a message row: words, phrases and prefixes a `tsquery` on
//! the `tsvector` column (`simple` config), CJK text a substring (`ILIKE`, served by the trigram
//! index), and a single word of three characters or more also a substring, because PostgreSQL's
//! parser keeps paths, hosts and versions whole where the local tokenizer splits them. A session
//! matches when its messages together satisfy the query's AND/OR/NOT, as locally.
//!
//! Ranking differs from the local BM25 (docs/team.md): coverage (how many of the query's terms
//! the session holds) first, then PostgreSQL's `ts_rank_cd` summed over its messages, scaled to
//! below one and weighed by the local recency factor. Snippets are the local ones, made by the
//! core's matcher from the best ranked message.
use super::filters::{sessions_where, Params};
use super::rows::{summary, SUMMARY_COLUMNS, SUMMARY_WIDTH};
use super::Team;
use crate::env::Env;
use crate::error::Result;
use crate::model::{Message, SessionSummary, Timestamp};
use crate::options::SearchQuery;
use crate::query::parse::{Leaf, Query};
use crate::query::prefilter::Prefilter;
use crate::search::score::{message_hits, recency, Matcher};
use crate::selection;

/// The sessions matching `q` (of `agent` when given), ranked, cut to `q.limit`, with snippets.
pub fn search(
    team: &Team,
    env: &Env,
    q: &SearchQuery,
    agent: Option<&str>,
    redact: bool,
    now: Timestamp,
) -> Result<Vec<SessionSummary>> {
    let Some(mut query) = Query::parse(&q.text) else {
        return Ok(Vec::new());
    };
    query.redact = redact;
    let mut p = Params::default();
    let leaves: Vec<String> = query.leaves.iter().map(|l| leaf_sql(l, &mut p)).collect();
    let ranked: Vec<String> = (query.leaves.iter().zip(&query.positive))
        .filter(|(_, &pos)| pos)
        .filter_map(|(l, _)| tsquery(l))
        .collect();
    let rank = if ranked.is_empty() {
        "0::float8".to_string()
    } else {
        let all = p.add(ranked.join(" | "));
        format!("ts_rank_cd(m.tsv, to_tsquery('simple', {all}))::float8")
    };
    let filter = sessions_where(&q.filters, agent, &mut p);
    let flags: Vec<String> = (0..leaves.len())
        .map(|i| format!("({}) AS l{i}", leaves[i]))
        .collect();
    let any = leaves.iter().map(|c| format!("({c})")).collect::<Vec<_>>();
    let agg: Vec<String> = (0..leaves.len())
        .map(|i| format!("bool_or(l{i}) AS l{i}"))
        .collect();
    let picked: Vec<String> = (0..leaves.len()).map(|i| format!("a.l{i}")).collect();
    let sql = format!(
        "WITH m AS (SELECT m.machine, m.unified_id, m.idx, {flags}, {rank} AS r \
             FROM messages m WHERE {any}), \
         a AS (SELECT machine, unified_id, {agg}, sum(r) AS r, count(*) AS n, \
             (array_agg(idx ORDER BY r DESC, idx))[1] AS best FROM m GROUP BY machine, unified_id) \
         SELECT {SUMMARY_COLUMNS}, a.r, a.n, a.best, {picked} FROM a \
         JOIN sessions s ON s.machine = a.machine AND s.unified_id = a.unified_id WHERE {filter}",
        flags = flags.join(", "),
        any = any.join(" OR "),
        agg = agg.join(", "),
        picked = picked.join(", "),
    );
    let rows = team.with(env, |c| c.query(&sql, &p.refs()))?;

    let mut hits: Vec<(SessionSummary, i32)> = Vec::new();
    for r in &rows {
        let present: Vec<bool> = (0..leaves.len())
            .map(|i| r.get::<_, Option<bool>>(SUMMARY_WIDTH + 3 + i) == Some(true))
            .collect();
        if !query.eval(&|i| present[i]) {
            continue;
        }
        let covered = (0..leaves.len())
            .filter(|&i| present[i] && query.positive[i])
            .count();
        let rank: f64 = r.get(SUMMARY_WIDTH);
        let mut s = summary(r);
        let strength = rank / (1.0 + rank) * recency(s.updated_at, now);
        s.relevance_score = Some(covered as f64 + strength);
        s.match_count = Some(r.get::<_, i64>(SUMMARY_WIDTH + 1).max(0) as u64);
        hits.push((s, r.get(SUMMARY_WIDTH + 2)));
    }
    hits.sort_by(|a, b| selection::search_order(&a.0, &b.0, q.sort));
    hits.truncate(q.limit);
    snippets(team, env, &query, &mut hits)?;
    Ok(hits.into_iter().map(|(s, _)| s).collect())
}

/// Each hit's snippet: the local matcher's passage of its best ranked message.
fn snippets(
    team: &Team,
    env: &Env,
    query: &Query,
    hits: &mut [(SessionSummary, i32)],
) -> Result<()> {
    if hits.is_empty() {
        return Ok(());
    }
    let machines: Vec<String> = hits
        .iter()
        .map(|h| h.0.machine.clone().unwrap_or_default())
        .collect();
    let ids: Vec<String> = hits.iter().map(|h| h.0.unified_id.clone()).collect();
    let idx: Vec<i32> = hits.iter().map(|h| h.1).collect();
    let rows = team.with(env, |c| {
        c.query(
            "SELECT k.n::int, m.message::text FROM unnest($1::text[], $2::text[], $3::int[]) \
             WITH ORDINALITY AS k(machine, unified_id, idx, n) \
             JOIN messages m USING (machine, unified_id, idx)",
            &[&machines, &ids, &idx],
        )
    })?;
    let pf = Prefilter::new(query);
    let matcher = Matcher::new(query, &pf);
    for r in rows {
        let n: i32 = r.get(0);
        let text: &str = r.get(1);
        let Ok(message) = serde_json::from_str::<Message>(text) else {
            continue;
        };
        if let Some((_, snippet)) = message_hits(&matcher, std::slice::from_ref(&message))
            .into_iter()
            .next()
        {
            hits[n as usize - 1].0.snippet = Some(snippet);
        }
    }
    Ok(())
}

/// The `tsquery` text of a word leaf (`None` for CJK text, which has no words).
fn tsquery(leaf: &Leaf) -> Option<String> {
    let Leaf::Words { tokens, prefix } = leaf else {
        return None;
    };
    // Tokens are runs of letters and digits (`query::text`): nothing in them is tsquery syntax.
    let mut words: Vec<String> = tokens.iter().map(|t| format!("'{t}'")).collect();
    if *prefix {
        if let Some(last) = words.last_mut() {
            last.push_str(":*");
        }
    }
    Some(words.join(" <-> "))
}

/// The condition a message row (`m`) meets when it holds `leaf`.
fn leaf_sql(leaf: &Leaf, p: &mut Params) -> String {
    let like = |s: &str, p: &mut Params| {
        format!("m.text ILIKE {}", p.add(format!("%{}%", escape_like(s))))
    };
    match leaf {
        Leaf::Substring(s) => like(s, p),
        Leaf::Words { tokens, .. } => {
            let ts = format!(
                "m.tsv @@ to_tsquery('simple', {})",
                p.add(tsquery(leaf).unwrap_or_default())
            );
            match tokens.as_slice() {
                // Three characters at least: what the trigram index can serve.
                [one] if one.chars().count() >= 3 => format!("{ts} OR {}", like(one, p)),
                _ => ts,
            }
        }
    }
}

/// `s` as a LIKE pattern's literal text.
fn escape_like(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
