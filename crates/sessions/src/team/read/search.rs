//! `search` from a team database. The query language is the local one (`query::parse`), and a
//! session matches when its title and messages together satisfy the query's AND/OR/NOT, as
//! locally. The words are the local tokenizer's (the sync makes the `tsvector`s: `team::words`).
//!
//! Sessions are found and ranked by the server, through indexes alone: each word or prefix by
//! `sessions.words` (every word of a session once), CJK text by the trigrams of the messages
//! that hold some (`LIKE` on their folded text) and the titles; a phrase's words so, then the
//! phrase itself on the candidates' messages (`tsv`, with positions). The sessions are ordered
//! and cut to the limit there; only then are the chosen sessions' messages read: how many hold
//! a term, and the best of them (PostgreSQL's `ts_rank_cd`), whose passage is the snippet.
//!
//! The ranking differs from the local BM25 (docs/team.md): coverage (how many of the query's
//! terms the session holds) first, then the local recency factor alone.
use super::filters::{sessions_where, Params};
use super::rows::{summary, SUMMARY_COLUMNS, SUMMARY_WIDTH};
use super::Team;
use crate::env::Env;
use crate::error::Result;
use crate::model::{Message, SessionSummary, Timestamp};
use crate::options::{SearchQuery, SearchSort};
use crate::query::parse::{Expr, Leaf, Query};
use crate::query::prefilter::Prefilter;
use crate::search::score::{message_hits, title_snippet, Matcher, HALF_LIFE_DAYS, TIMELESS};

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
    if q.limit == 0 {
        return Ok(Vec::new());
    }
    let mut p = Params::default();
    // Each leaf's sessions, through an index alone: a word's `sessions.words`, CJK text's
    // trigrams (messages) and the titles. A phrase's words are found so, then checked below.
    let mut found = Vec::new();
    let mut checks = Vec::new();
    for (i, leaf) in query.leaves.iter().enumerate() {
        match leaf {
            Leaf::Words { tokens, prefix } => {
                let mut words: Vec<String> = tokens.iter().map(|t| format!("'{t}'")).collect();
                if *prefix {
                    if let Some(last) = words.last_mut() {
                        last.push_str(":*");
                    }
                }
                let all = p.add(words.join(" & "));
                found.push(format!(
                    "SELECT s.machine, s.unified_id, {i} AS leaf FROM sessions s WHERE s.words @@ {all}::text::tsquery"
                ));
                if tokens.len() > 1 {
                    let phrase = p.add(tsquery(leaf).unwrap_or_default());
                    checks.push(format!(
                        "(a.l{i} AND (s.title_tsv @@ {phrase}::text::tsquery OR EXISTS (SELECT 1 FROM messages m \
                         WHERE m.machine = s.machine AND m.unified_id = s.unified_id AND m.tsv @@ {phrase}::text::tsquery))) AS l{i}"
                    ));
                    continue;
                }
            }
            Leaf::Substring(_) => {
                let (in_message, in_title) = leaf_sql(leaf, &mut p);
                found.push(format!(
                    "SELECT m.machine, m.unified_id, {i} AS leaf FROM messages m WHERE {in_message}"
                ));
                found.push(format!(
                    "SELECT s.machine, s.unified_id, {i} AS leaf FROM sessions s WHERE {in_title}"
                ));
            }
        }
        checks.push(format!("a.l{i} AS l{i}"));
    }
    let flags: Vec<String> = (0..query.leaves.len())
        .map(|i| format!("bool_or(leaf = {i}) AS l{i}"))
        .collect();
    let covered: Vec<String> = (0..query.leaves.len())
        .filter(|&i| query.positive[i])
        .map(|i| format!("v.l{i}::int"))
        .collect();
    let filter = sessions_where(&q.filters, agent, &mut p);
    let now = p.moment(now);
    // The local score's shape: coverage, then a fraction below one, here the recency alone.
    let strength = format!(
        "0.5 * ({TIMELESS} + (1 - {TIMELESS}) * \
         power(0.5, greatest(0, extract(epoch FROM {now} - s.updated_at)) / 86400 / {HALF_LIFE_DAYS}))"
    );
    let covered = match covered.is_empty() {
        true => "0".to_string(),
        false => covered.join(" + "),
    };
    let score = format!("({covered} + {strength})::float8");
    let by_score = "score DESC, s.updated_at DESC";
    let order = match q.sort {
        SearchSort::Relevance => by_score.to_string(),
        SearchSort::Date => "s.updated_at DESC, score DESC".into(),
        SearchSort::Cost => format!("coalesce(s.cost_usd, 0) DESC, {by_score}"),
    };
    let limit = p.add(q.limit as i64);
    let sql = format!(
        "WITH h AS ({found}), \
         a AS (SELECT machine, unified_id, {flags} FROM h GROUP BY machine, unified_id), \
         v AS (SELECT s.machine, s.unified_id, {checks} FROM a \
             JOIN sessions s ON s.machine = a.machine AND s.unified_id = a.unified_id WHERE {filter}) \
         SELECT {SUMMARY_COLUMNS}, {score} AS score FROM v \
         JOIN sessions s ON s.machine = v.machine AND s.unified_id = v.unified_id \
         WHERE {matches} ORDER BY {order}, s.unified_id, s.machine LIMIT {limit}",
        found = found.join(" UNION ALL "),
        flags = flags.join(", "),
        checks = checks.join(", "),
        matches = expr_sql(&query.expr),
    );
    // The planner does not count reading a session's `words` out of line: it would test every
    // session's words in a scan of the table rather than ask their index. (A CJK term reads the
    // titles in a scan: there it is the best plan.)
    let cjk = (query.leaves.iter()).any(|l| matches!(l, Leaf::Substring(_)));
    let rows = team.with(env, |c| {
        let mut tx = c.transaction()?;
        if !cjk {
            tx.batch_execute("SET LOCAL enable_seqscan = off")?;
        }
        let rows = tx.query(&sql, &p.refs())?;
        tx.commit()?;
        Ok(rows)
    })?;
    let mut hits: Vec<SessionSummary> = rows
        .iter()
        .map(|r| {
            let mut s = summary(r);
            s.relevance_score = Some(r.get(SUMMARY_WIDTH));
            s
        })
        .collect();
    best_messages(team, env, &query, &mut hits)?;
    Ok(hits)
}

/// `e` over the leaf flags `v.l0`, `v.l1`, … of a session (NULL: not found).
fn expr_sql(e: &Expr) -> String {
    let join = |v: &[Expr], op: &str| {
        let parts: Vec<String> = v.iter().map(expr_sql).collect();
        format!("({})", parts.join(op))
    };
    match e {
        Expr::Leaf(i) => format!("coalesce(v.l{i}, false)"),
        Expr::And(v) => join(v, " AND "),
        Expr::Or(v) => join(v, " OR "),
        Expr::Not(a, b) => format!("({} AND NOT {})", expr_sql(a), expr_sql(b)),
    }
}

/// Each hit's count of matching messages and its snippet: the local matcher's passage of its
/// best ranked message, or of its title when no message holds a term that counts.
fn best_messages(team: &Team, env: &Env, query: &Query, hits: &mut [SessionSummary]) -> Result<()> {
    if hits.is_empty() {
        return Ok(());
    }
    let mut p = Params::default();
    let machines: Vec<String> = hits
        .iter()
        .map(|h| h.machine.clone().unwrap_or_default())
        .collect();
    let ids: Vec<String> = hits.iter().map(|h| h.unified_id.clone()).collect();
    let (machines, ids) = (p.add(machines), p.add(ids));
    let conditions: Vec<String> = (query.leaves.iter().zip(&query.positive))
        .filter(|(_, &pos)| pos)
        .map(|(l, _)| leaf_sql(l, &mut p).0)
        .collect();
    let ranked: Vec<String> = (query.leaves.iter().zip(&query.positive))
        .filter(|(_, &pos)| pos)
        .filter_map(|(l, _)| tsquery(l))
        .collect();
    let rank = match ranked.is_empty() {
        true => "0::float4".to_string(),
        false => format!(
            "ts_rank_cd(m.tsv, {}::text::tsquery)",
            p.add(ranked.join(" | "))
        ),
    };
    let any = match conditions.is_empty() {
        true => "false".to_string(),
        false => conditions.join(" OR "),
    };
    let sql = format!(
        "SELECT k.n::int, count(*), (array_agg(m.idx ORDER BY {rank} DESC, m.idx))[1] \
         FROM unnest({machines}::text[], {ids}::text[]) WITH ORDINALITY AS k(machine, unified_id, n) \
         JOIN messages m ON m.machine = k.machine AND m.unified_id = k.unified_id \
         WHERE {any} GROUP BY k.n"
    );
    let rows = team.with(env, |c| c.query(&sql, &p.refs()))?;
    let mut best: Vec<(usize, i32)> = Vec::new();
    for r in &rows {
        let n = r.get::<_, i32>(0) as usize - 1;
        hits[n].match_count = Some(r.get::<_, i64>(1).max(0) as u64);
        best.push((n, r.get(2)));
    }
    snippets(team, env, query, hits, &best)?;
    for h in hits.iter_mut() {
        h.match_count.get_or_insert(0);
        if h.snippet.is_none() {
            h.snippet = title_snippet(query, &h.title);
        }
    }
    Ok(())
}

/// Each hit's snippet from its best message (`best`: the hit's place and the message's index).
fn snippets(
    team: &Team,
    env: &Env,
    query: &Query,
    hits: &mut [SessionSummary],
    best: &[(usize, i32)],
) -> Result<()> {
    if best.is_empty() {
        return Ok(());
    }
    let machines: Vec<String> = (best.iter())
        .map(|&(n, _)| hits[n].machine.clone().unwrap_or_default())
        .collect();
    let ids: Vec<String> = best
        .iter()
        .map(|&(n, _)| hits[n].unified_id.clone())
        .collect();
    let idx: Vec<i32> = best.iter().map(|&(_, i)| i).collect();
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
            hits[best[n as usize - 1].0].snippet = Some(snippet);
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

/// The conditions a message row (`m`) and a session's title (`s`) meet when they hold `leaf`.
fn leaf_sql(leaf: &Leaf, p: &mut Params) -> (String, String) {
    match leaf {
        Leaf::Substring(s) => {
            let pattern = p.add(format!("%{}%", escape_like(s)));
            (
                format!("m.cjk IS NOT NULL AND m.cjk LIKE {pattern}"),
                format!("lower(s.title) LIKE {pattern}"),
            )
        }
        Leaf::Words { .. } => {
            let q = p.add(tsquery(leaf).unwrap_or_default());
            (
                format!("m.tsv @@ {q}::text::tsquery"),
                format!("s.title_tsv @@ {q}::text::tsquery"),
            )
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
