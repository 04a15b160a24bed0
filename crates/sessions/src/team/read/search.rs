//! `search` from a team database. The query language is the local one (`query::parse`), and a
//! session matches when its title and messages together satisfy the query's AND/OR/NOT, as
//! locally. The words are the local tokenizer's (the sync makes the `tsvector`s: `team::words`).
//!
//! Sessions are found by the server through indexes alone: each word or prefix, a phrase's
//! words and (from schema version 5) a CJK text's characters or pairs by `sessions.words`
//! (every word and CJK gram of a session once); before version 5, CJK text by the trigrams of
//! the messages that hold some (`LIKE` on their folded text) and the titles. They are ordered by
//! the best score each can have. A leaf no index answers exactly (a phrase, whose words may not
//! be together; a CJK text longer than a pair) is then checked on the candidates' titles and
//! messages (`tsv` with positions, the folded CJK text), a batch at a time in that order, until
//! no later candidate can rank among the first `limit`; only then are the chosen sessions'
//! messages read: how many hold a term, and the best of them (PostgreSQL's `ts_rank_cd`), whose
//! passage is the snippet.
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
use crate::query::text::is_cjk;
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
    let limit = q.limit;
    let mut hits = team.with(env, |c| {
        let mut tx = c.transaction()?;
        let grams = schema_version(&mut tx)? >= 5;
        let found = candidates(&query, q, agent, now, grams);
        // The planner does not count reading a session's `words` out of line: it would test
        // every session's words in a scan of the table rather than ask their index. (Before
        // version 5, a CJK term reads the titles in a scan: there it is the best plan.)
        if grams || !(query.leaves.iter()).any(|l| matches!(l, Leaf::Substring(_))) {
            tx.batch_execute("SET LOCAL enable_seqscan = off")?;
        }
        let hits = match found.unsure.iter().any(|&u| u) {
            false => {
                let sql = format!("{} LIMIT {limit}", found.sql);
                let rows = tx.query(&sql, &found.params.refs())?;
                (rows.iter())
                    .map(|r| found.candidate(r).hit(&query, q.sort))
                    .collect()
            }
            true => checked(&mut tx, &query, q, &found)?,
        };
        tx.commit()?;
        Ok(hits)
    })?;
    hits.truncate(limit);
    let mut hits: Vec<SessionSummary> = hits.into_iter().map(|h| h.summary).collect();
    best_messages(team, env, &query, &mut hits)?;
    Ok(hits)
}

/// The schema version of the database read (a reading role may read `amux_schema`).
fn schema_version(tx: &mut postgres::Transaction<'_>) -> std::result::Result<i32, postgres::Error> {
    Ok(tx
        .query_one("SELECT coalesce(max(version), 0) FROM amux_schema", &[])?
        .get(0))
}

/// The statement listing the sessions that may match, best first by the score they would have
/// if each leaf their index entries suggest were there (`unsure` leaves: a phrase, whose words
/// are there but maybe not together, or a CJK text longer than a pair, whose pairs are there),
/// with each leaf's flag; the leaves no index answers exactly are checked afterwards.
struct Candidates {
    sql: String,
    params: Params,
    unsure: Vec<bool>,
    positive: Vec<bool>,
}

impl Candidates {
    /// A row of `sql`.
    fn candidate(&self, r: &postgres::Row) -> Candidate {
        let flags: Vec<bool> = (0..self.unsure.len())
            .map(|i| r.get(SUMMARY_WIDTH + 3 + i))
            .collect();
        Candidate {
            summary: summary(r),
            strength: r.get(SUMMARY_WIDTH),
            updated: r.get(SUMMARY_WIDTH + 1),
            cost: r.get(SUMMARY_WIDTH + 2),
            flags,
            positive: self.positive.clone(),
        }
    }
}

/// A session that may match: its summary, the parts of its score, the flags of its leaves.
struct Candidate {
    summary: SessionSummary,
    strength: f64,
    updated: f64,
    cost: f64,
    flags: Vec<bool>,
    positive: Vec<bool>,
}

impl Candidate {
    /// Its score with `flags` as its leaves: coverage, then the fraction.
    fn score(&self) -> f64 {
        let covered = (self.flags.iter().zip(&self.positive))
            .filter(|(&f, &p)| f && p)
            .count();
        covered as f64 + self.strength
    }

    /// The order's keys, best first, before the ids that break ties.
    fn key(&self, sort: SearchSort) -> Vec<f64> {
        let score = self.score();
        match sort {
            SearchSort::Relevance => vec![score, self.updated],
            SearchSort::Date => vec![self.updated, score],
            SearchSort::Cost => vec![self.cost, score, self.updated],
        }
    }

    /// A hit, ranked by its flags (which must match the query).
    fn hit(mut self, query: &Query, sort: SearchSort) -> Hit {
        debug_assert!(query.eval(&|i| self.flags[i]));
        let key = self.key(sort);
        self.summary.relevance_score = Some(self.score());
        Hit {
            key,
            summary: self.summary,
        }
    }
}

struct Hit {
    key: Vec<f64>,
    summary: SessionSummary,
}

/// `a` before `b` in the search's order: the keys descending, then the ids (as the statement).
fn order(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    coarse(&b.key, &a.key)
        .then_with(|| a.summary.unified_id.cmp(&b.summary.unified_id))
        .then_with(|| a.summary.machine.cmp(&b.summary.machine))
}

fn coarse(a: &[f64], b: &[f64]) -> std::cmp::Ordering {
    (a.iter().zip(b))
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

fn candidates(
    query: &Query,
    q: &SearchQuery,
    agent: Option<&str>,
    now: Timestamp,
    grams: bool,
) -> Candidates {
    let mut p = Params::default();
    // Each leaf's sessions, through an index alone: a word's (or a phrase's words', or a CJK
    // text's grams) `sessions.words`; before version 5, CJK text by the messages' trigrams and
    // the titles.
    let mut found = Vec::new();
    let mut unsure = Vec::new();
    for (i, leaf) in query.leaves.iter().enumerate() {
        let by_words = |p: &mut Params, terms: String| {
            let all = p.add(terms);
            format!("SELECT s.machine, s.unified_id, {i} AS leaf FROM sessions s WHERE s.words @@ {all}::text::tsquery")
        };
        match leaf {
            Leaf::Words { tokens, prefix } => {
                let mut words: Vec<String> = tokens.iter().map(|t| format!("'{t}'")).collect();
                if *prefix {
                    if let Some(last) = words.last_mut() {
                        last.push_str(":*");
                    }
                }
                found.push(by_words(&mut p, words.join(" & ")));
                unsure.push(tokens.len() > 1);
            }
            Leaf::Substring(text) if grams => {
                let (terms, exact) = query_grams(text);
                found.push(by_words(&mut p, terms.join(" & ")));
                unsure.push(!exact);
            }
            Leaf::Substring(_) => {
                let (in_message, in_title) = leaf_sql(leaf, &mut p);
                found.push(format!(
                    "SELECT m.machine, m.unified_id, {i} AS leaf FROM messages m WHERE {in_message}"
                ));
                found.push(format!(
                    "SELECT s.machine, s.unified_id, {i} AS leaf FROM sessions s WHERE {in_title}"
                ));
                unsure.push(false);
            }
        }
    }
    let flags: Vec<String> = (0..query.leaves.len())
        .map(|i| format!("bool_or(leaf = {i}) AS l{i}"))
        .collect();
    let columns: Vec<String> = (0..query.leaves.len()).map(|i| format!("a.l{i}")).collect();
    let covered: Vec<String> = (0..query.leaves.len())
        .filter(|&i| query.positive[i])
        .map(|i| format!("a.l{i}::int"))
        .collect();
    let filter = sessions_where(&q.filters, agent, &mut p);
    let now = p.moment(now);
    // The local score's shape: coverage, then a fraction below one, here the recency alone.
    let strength = format!(
        "(0.5 * ({TIMELESS} + (1 - {TIMELESS}) *          power(0.5, greatest(0, extract(epoch FROM {now} - s.updated_at)) / 86400 / {HALF_LIFE_DAYS})))::float8"
    );
    let covered = match covered.is_empty() {
        true => "0".to_string(),
        false => covered.join(" + "),
    };
    // The best score the session can have: its unsure leaves taken as there.
    let score = format!("({covered} + {strength})::float8");
    let updated = "extract(epoch FROM s.updated_at)::float8";
    let cost = "coalesce(s.cost_usd, 0)::float8";
    let order = match q.sort {
        SearchSort::Relevance => format!("{score} DESC, {updated} DESC"),
        SearchSort::Date => format!("{updated} DESC, {score} DESC"),
        SearchSort::Cost => format!("{cost} DESC, {score} DESC, {updated} DESC"),
    };
    let sql = format!(
        "WITH h AS ({found}),          a AS (SELECT machine, unified_id, {flags} FROM h GROUP BY machine, unified_id)          SELECT {SUMMARY_COLUMNS}, {strength}, {updated}, {cost}, {columns} FROM a          JOIN sessions s ON s.machine = a.machine AND s.unified_id = a.unified_id          WHERE {filter} AND {matches}          ORDER BY {order}, s.unified_id COLLATE \"C\", s.machine COLLATE \"C\"",
        found = found.join(" UNION ALL "),
        flags = flags.join(", "),
        columns = columns.join(", "),
        matches = bound_sql(&query.expr, &unsure, true),
    );
    Candidates {
        sql,
        params: p,
        unsure,
        positive: query.positive.clone(),
    }
}

/// The candidates, read in their order a batch at a time, their unsure leaves checked on their
/// title and messages, until no later one can rank among the first `limit` matches.
fn checked(
    tx: &mut postgres::Transaction<'_>,
    query: &Query,
    q: &SearchQuery,
    found: &Candidates,
) -> std::result::Result<Vec<Hit>, postgres::Error> {
    let portal = tx.bind(found.sql.as_str(), &found.params.refs())?;
    let mut hits: Vec<Hit> = Vec::new();
    let mut batch = (q.limit * 2).max(8);
    loop {
        let rows = tx.query_portal(&portal, batch as i32)?;
        let last = rows.len() < batch;
        let mut cands: Vec<Candidate> = rows.iter().map(|r| found.candidate(r)).collect();
        let bound = cands.last().map(|c| c.key(q.sort));
        verify(tx, query, &found.unsure, &mut cands)?;
        for c in cands {
            if query.eval(&|i| c.flags[i]) {
                hits.push(c.hit(query, q.sort));
            }
        }
        if last {
            break;
        }
        if hits.len() >= q.limit {
            hits.sort_by(order);
            // Every later candidate's best score is at most the last one's.
            if bound.is_some_and(|b| coarse(&hits[q.limit - 1].key, &b).is_gt()) {
                break;
            }
        }
        batch = (batch * 2).min(4096);
    }
    hits.sort_by(order);
    Ok(hits)
}

/// Replaces each candidate's unsure flags that are set by whether its title or one of its
/// messages holds the leaf (a phrase's words together, the whole CJK text).
fn verify(
    tx: &mut postgres::Transaction<'_>,
    query: &Query,
    unsure: &[bool],
    cands: &mut [Candidate],
) -> std::result::Result<(), postgres::Error> {
    let need: Vec<usize> = (0..cands.len())
        .filter(|&n| (unsure.iter().zip(&cands[n].flags)).any(|(&u, &f)| u && f))
        .collect();
    if need.is_empty() {
        return Ok(());
    }
    let mut p = Params::default();
    let machines: Vec<String> = (need.iter())
        .map(|&n| cands[n].summary.machine.clone().unwrap_or_default())
        .collect();
    let ids: Vec<String> = (need.iter())
        .map(|&n| cands[n].summary.unified_id.clone())
        .collect();
    let (machines, ids) = (p.add(machines), p.add(ids));
    let (mut arrays, mut names, mut checks, mut leaves) = (vec![], vec![], vec![], vec![]);
    for (i, leaf) in query.leaves.iter().enumerate().filter(|(i, _)| unsure[*i]) {
        let flags: Vec<bool> = need.iter().map(|&n| cands[n].flags[i]).collect();
        arrays.push(format!("{}::bool[]", p.add(flags)));
        names.push(format!("c{i}"));
        let (in_message, in_title) = leaf_sql(leaf, &mut p);
        checks.push(format!(
            "CASE WHEN k.c{i} THEN ({in_title} OR EXISTS (SELECT 1 FROM messages m \
             WHERE m.machine = s.machine AND m.unified_id = s.unified_id AND {in_message})) ELSE false END"
        ));
        leaves.push(i);
    }
    let sql = format!(
        "SELECT k.n::int, {} FROM unnest({machines}::text[], {ids}::text[], {}) \
         WITH ORDINALITY AS k(machine, unified_id, {}, n) \
         JOIN sessions s ON s.machine = k.machine AND s.unified_id = k.unified_id",
        checks.join(", "),
        arrays.join(", "),
        names.join(", "),
    );
    for r in tx.query(&sql, &p.refs())? {
        let n = need[r.get::<_, i32>(0) as usize - 1];
        for (j, &i) in leaves.iter().enumerate() {
            cands[n].flags[i] = r.get(1 + j);
        }
    }
    Ok(())
}

/// `e` over the candidate flags `a.l0`, … as a bound: with `optimistic`, true for every session
/// that may match (an unsure leaf taken as there); else true only for those that surely do (an
/// unsure leaf taken as absent).
fn bound_sql(e: &Expr, unsure: &[bool], optimistic: bool) -> String {
    let join = |v: &[Expr], op: &str| {
        let parts: Vec<String> = v.iter().map(|e| bound_sql(e, unsure, optimistic)).collect();
        format!("({})", parts.join(op))
    };
    match e {
        Expr::Leaf(i) if unsure[*i] && !optimistic => "false".to_string(),
        Expr::Leaf(i) => format!("a.l{i}"),
        Expr::And(v) => join(v, " AND "),
        Expr::Or(v) => join(v, " OR "),
        Expr::Not(a, b) => format!(
            "({} AND NOT {})",
            bound_sql(a, unsure, optimistic),
            bound_sql(b, unsure, !optimistic)
        ),
    }
}

/// The grams a session's words hold when it holds the CJK `text` (each run of CJK characters:
/// the character alone, else its adjacent pairs), and whether holding them all means holding it.
fn query_grams(text: &str) -> (Vec<String>, bool) {
    let mut terms: Vec<String> = Vec::new();
    let mut runs = 0;
    let mut run: Vec<char> = Vec::new();
    let mut flush = |run: &mut Vec<char>, terms: &mut Vec<String>| {
        if run.is_empty() {
            return;
        }
        runs += 1;
        let grams: Vec<String> = match run.len() {
            1 => vec![run[0].to_string()],
            _ => run.windows(2).map(|w| w.iter().collect()).collect(),
        };
        for g in grams {
            let term = format!("'{g}'");
            if !terms.contains(&term) {
                terms.push(term);
            }
        }
        run.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            run.push(c);
        } else {
            flush(&mut run, &mut terms);
        }
    }
    flush(&mut run, &mut terms);
    let exact = runs == 1 && text.chars().all(is_cjk) && text.chars().count() <= 2;
    (terms, exact)
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
