//! `totalCost` and the cost reports from a team database. The `usage` rows are the local cost
//! engine's priced pieces (after its dedupe), so `totalCost` is SQL sums over them; the reports
//! (daily, weekly, monthly, sessions) rebuild each session's usage from its rows, their costs as
//! the agent's own, and run the local report engine on it.
use std::collections::BTreeMap;

use postgres::fallible_iterator::FallibleIterator;

use super::filters::{sessions_where, Params};
use super::rows::{summary, SUMMARY_COLUMNS, SUMMARY_WIDTH};
use super::Team;
use crate::context::Context;
use crate::cost::report::{ReportBuilder, Sums};
use crate::cost::{CostBreakdown, CostSummary};
use crate::env::Env;
use crate::error::Result;
use crate::model::Timestamp;
use crate::model::{ModelUsage, SessionSummary, Tokens, UsageSlice};
use crate::options::{Archived, CostOptions, Filters, GroupBy, Grouping, Period, ReportOptions};
use chrono::NaiveDate;

/// The usage pieces `opts` counts, as a `WITH p AS (…)` of (machine, unified_id, sess, agent,
/// model, project, os_user, tags, day, the token buckets, cost_usd): each usage row of a
/// session that passes the filters, a zero piece for such a session without usage (it still
/// counts, under its model), and the rows of runs that match no session, which pass the filters
/// on their own fields (a run has no directory, tags or branch here).
fn pieces(opts: &CostOptions, p: &mut Params, v4: bool) -> String {
    let agent = opts.agent.as_deref();
    let filter = sessions_where(&opts.filters, agent, p);
    let f = &opts.filters;
    let mut runs: Vec<String> = vec!["u.unified_id LIKE 'run:%'".into()];
    if let Some(a) = agent {
        runs.push(format!("u.agent = {}", p.add(a.to_string())));
    }
    if let Some(t) = f.since {
        runs.push(format!("u.at >= {}", p.moment(t)));
    }
    if let Some(t) = f.until {
        runs.push(format!("u.at <= {}", p.moment(t)));
    }
    if let Some(m) = &f.model {
        runs.push(format!("u.model = {}", p.add(m.clone())));
    }
    if f.cwd.is_some() || f.tags.as_ref().is_some_and(|t| !t.is_empty()) {
        runs.push("false".into());
    }
    if let Some(m) = &f.machine {
        runs.push(format!("u.machine = {}", p.add(m.clone())));
    }
    if let Some(u) = &f.user {
        runs.push(format!("u.os_user = {}", p.add(u.clone())));
    }
    let tokens = "u.input_tokens, u.output_tokens, u.thinking_tokens, u.cached_tokens, \
                  u.cache_write_tokens, u.cost_usd";
    // A session without usage counts on the machine's local day it was created on (from
    // version 4), else its UTC day.
    let (created_day, zero_day) = match v4 {
        true => (
            "s.created_day",
            "coalesce(ss.created_day, (ss.created_at AT TIME ZONE 'UTC')::date)",
        ),
        false => (
            "NULL::date AS created_day",
            "(ss.created_at AT TIME ZONE 'UTC')::date",
        ),
    };
    format!(
        "WITH ss AS (SELECT s.machine, s.unified_id, s.agent, s.model, s.cwd, s.os_user, s.tags, \
             s.created_at, {created_day} FROM sessions s WHERE {filter}), \
         p AS (SELECT u.machine, u.unified_id, true AS sess, u.agent, u.model, u.project, \
               u.os_user, ss.tags, u.day, {tokens} \
             FROM usage u JOIN ss ON ss.machine = u.machine AND ss.unified_id = u.unified_id \
           UNION ALL SELECT ss.machine, ss.unified_id, true, ss.agent, coalesce(ss.model, ''), \
               coalesce(ss.cwd, ''), ss.os_user, ss.tags, {zero_day}, 0, 0, 0, 0, 0, 0 \
             FROM ss WHERE NOT EXISTS (SELECT 1 FROM usage u WHERE u.machine = ss.machine \
               AND u.unified_id = ss.unified_id) \
           UNION ALL SELECT u.machine, u.unified_id, false, u.agent, u.model, u.project, \
               u.os_user, '{{}}'::text[], u.day, {tokens} FROM usage u WHERE {runs})",
        runs = runs.join(" AND "),
    )
}

/// The sums every total and group has: cost and the token buckets.
const SUMS: &str = "coalesce(sum(cost_usd), 0)::float8, coalesce(sum(input_tokens), 0)::bigint, \
    coalesce(sum(output_tokens), 0)::bigint, coalesce(sum(thinking_tokens), 0)::bigint, \
    coalesce(sum(cached_tokens), 0)::bigint, coalesce(sum(cache_write_tokens), 0)::bigint";

/// The key a grouping puts a piece under (`sow`: the first day of a week, 0 for Sunday).
fn key(by: GroupBy, sow: u32) -> String {
    match by {
        GroupBy::Agent => "agent".into(),
        GroupBy::Model => "btrim(model)".into(),
        GroupBy::Day => "to_char(day, 'YYYY-MM-DD')".into(),
        GroupBy::Week => {
            format!("to_char(day - ((extract(dow FROM day)::int - {sow} + 7) % 7), 'YYYY-MM-DD')")
        }
        GroupBy::Month => "to_char(day, 'YYYY-MM')".into(),
        GroupBy::Tag => "k.key".into(),
        GroupBy::Session => "unified_id".into(),
        GroupBy::Project => "project".into(),
        GroupBy::Machine => "machine".into(),
        GroupBy::User => "os_user".into(),
    }
}

fn n(v: i64) -> u64 {
    v.max(0) as u64
}

/// `totalCost` over the team: the whole, and each group's share when `groupBy` asks. Read from
/// the summary (`usage_days`) when it serves the call's filters and grouping, else from the
/// usage rows joined to their sessions.
pub fn total_cost(team: &Team, env: &Env, opts: &CostOptions) -> Result<CostSummary> {
    total_cost_from(team, env, opts, true)
}

/// `total_cost` from the usage rows joined to their sessions, whatever the summary could serve:
/// what the summary is checked against.
pub fn total_cost_exact(team: &Team, env: &Env, opts: &CostOptions) -> Result<CostSummary> {
    total_cost_from(team, env, opts, false)
}

fn total_cost_from(
    team: &Team,
    env: &Env,
    opts: &CostOptions,
    summary: bool,
) -> Result<CostSummary> {
    let sow = opts.start_of_week.map_or(0, |d| d.num_days_from_sunday());
    let (total, groups) = team.with(env, |c| {
        let (v4, readable) = has_summary(c)?;
        let mut p = Params::default();
        let sql = (summary && readable)
            .then(|| summary_sql(opts, sow, &mut p))
            .flatten()
            .unwrap_or_else(|| exact_sql(opts, sow, &mut p, v4));
        let total = c.query_one(&sql.0, &p.refs())?;
        let groups = match &sql.1 {
            Some(grouped) => Some(c.query(grouped, &p.refs())?),
            None => None,
        };
        Ok((total, groups))
    })?;
    let sessions = n(total.get(6));
    let mut out = CostSummary {
        total_usd: total.get(0),
        input_tokens: n(total.get(1)),
        output_tokens: n(total.get(2)),
        thinking_tokens: n(total.get(3)),
        cached_tokens: n(total.get(4)),
        cache_write_tokens: n(total.get(5)),
        session_count: sessions,
        run_count: sessions + n(total.get(7)),
        ..Default::default()
    };
    out.breakdowns = groups.map(|rows| {
        rows.iter()
            .map(|r| {
                let key: String = r.get::<_, Option<String>>(0).unwrap_or_default();
                let b = CostBreakdown {
                    key: key.clone(),
                    total_usd: r.get(1),
                    input_tokens: n(r.get(2)),
                    output_tokens: n(r.get(3)),
                    thinking_tokens: n(r.get(4)),
                    cached_tokens: n(r.get(5)),
                    cache_write_tokens: n(r.get(6)),
                    session_count: n(r.get(7)),
                };
                (key, b)
            })
            .collect::<BTreeMap<_, _>>()
    });
    Ok(out)
}

/// The statements of a total (its sums, sessions and runs that match no session) and of its
/// groups, when asked: each group's sums and sessions.
type Statements = (String, Option<String>);

/// Whether the database holds the summary (schema version 4 on; a database no sync of this
/// version has upgraded yet does not), and whether this role may read it (one granted the
/// tables of an older version only reads the usage rows instead).
fn has_summary(c: &mut postgres::Client) -> std::result::Result<(bool, bool), postgres::Error> {
    let row = c.query_one(
        "SELECT to_regclass('usage_days') IS NOT NULL, CASE WHEN to_regclass('usage_days') IS NULL \
         THEN false ELSE has_table_privilege('usage_days', 'SELECT') END",
        &[],
    )?;
    Ok((row.get(0), row.get(1)))
}

/// A group's sessions counted from its pieces: summed per session first, then the sessions
/// counted (two hashed groupings, where a count of distinct pairs would sort every piece).
fn per_session_groups(pieces: &str, key: &str, tags: &str) -> String {
    format!(
        "g AS (SELECT {key} AS key, machine, unified_id, bool_or(sess) AS sess, \
           sum(cost_usd) AS cost_usd, sum(input_tokens) AS input_tokens, \
           sum(output_tokens) AS output_tokens, sum(thinking_tokens) AS thinking_tokens, \
           sum(cached_tokens) AS cached_tokens, sum(cache_write_tokens) AS cache_write_tokens \
           FROM {pieces}{tags} GROUP BY 1, 2, 3) \
         SELECT key, {SUMS}, count(*) FILTER (WHERE sess) FROM g GROUP BY key"
    )
}

/// From the usage rows joined to their sessions: every filter and grouping.
fn exact_sql(opts: &CostOptions, sow: u32, p: &mut Params, v4: bool) -> Statements {
    let with = pieces(opts, p, v4);
    // Every session that passes the filters has a piece at least: they are counted in `ss`.
    let totals = format!(
        "{with} SELECT {SUMS}, (SELECT count(*) FROM ss), \
         count(DISTINCT unified_id) FILTER (WHERE NOT sess) FROM p"
    );
    let grouped = opts.group_by.map(|by| {
        let tags = match by {
            // A session counts in each of its tags; an untagged one under "".
            GroupBy::Tag => {
                " CROSS JOIN LATERAL unnest(CASE WHEN cardinality(tags) = 0 \
                THEN ARRAY[''] ELSE tags END) AS k(key)"
            }
            _ => "",
        };
        format!("{with}, {}", per_session_groups("p", &key(by, sow), tags))
    });
    (totals, grouped)
}

/// From the summary, when it serves `opts`: its rows hold what the filters on the agent, the
/// machine, the user and the creation time read (each session's own, so a session passes or
/// not as a whole, as in the exact path), and each grouping but tags. `None`: it does not.
fn summary_sql(opts: &CostOptions, sow: u32, p: &mut Params) -> Option<Statements> {
    let f = &opts.filters;
    let served = f.model.is_none()
        && f.tags.as_ref().is_none_or(|t| t.is_empty())
        && f.cwd.is_none()
        && f.branch.is_none()
        && f.project.is_none()
        && f.archived == crate::options::Archived::Include
        && opts.group_by != Some(GroupBy::Tag);
    if !served {
        return None;
    }
    let mut c: Vec<String> = vec!["true".into()];
    c.extend(summary_who(opts.agent.as_deref(), f, f.archived, p));
    if let Some(t) = f.since {
        c.push(format!("created_at >= {}", p.moment(t)));
    }
    if let Some(t) = f.until {
        c.push(format!("created_at <= {}", p.moment(t)));
    }
    let w = c.join(" AND ");
    let totals = format!(
        "SELECT {SUMS}, count(*) FILTER (WHERE sess AND first_of_session), \
         count(DISTINCT unified_id) FILTER (WHERE NOT sess) FROM usage_days d WHERE {w}"
    );
    let grouped = opts.group_by.map(|by| {
        // The flag set on one row per session of each group, where the grouping has one.
        let first = match by {
            GroupBy::Day => Some("first_of_day"),
            GroupBy::Month => Some("first_of_month"),
            GroupBy::Model => Some("first_of_model"),
            // A session has one agent, directory, machine, user and id.
            GroupBy::Agent
            | GroupBy::Project
            | GroupBy::Machine
            | GroupBy::User
            | GroupBy::Session => Some("first_of_session"),
            GroupBy::Week | GroupBy::Tag => None,
        };
        let key = key(by, sow);
        match first {
            Some(flag) => format!(
                "SELECT {key}, {SUMS}, count(*) FILTER (WHERE sess AND {flag}) \
                 FROM usage_days d WHERE {w} GROUP BY 1"
            ),
            None => format!(
                "WITH d AS (SELECT * FROM usage_days d WHERE {w}), {}",
                per_session_groups("d", &key, "")
            ),
        }
    });
    Some((totals, grouped))
}

/// A cost report (`cost.daily|weekly|monthly|sessions`) over the team's sessions (of
/// `machine`/`user` when given). `ctx` is the team client's: its run index is not read (the
/// runs' costs are usage rows of their own). A period report is summed in the database; a
/// session report rebuilds each session (it lists them all anyway).
pub fn report(team: &Team, ctx: &Context, opts: &ReportOptions, who: &Filters) -> Result<Sums> {
    match opts.grouping {
        Grouping::Period(period) => match report_by_period(team, ctx, opts, who, period)? {
            Some(sums) => Ok(sums),
            None => report_rebuilt(team, ctx, opts, who),
        },
        Grouping::Session => report_rebuilt(team, ctx, opts, who),
    }
}

/// Milliseconds since the epoch of the first whole millisecond at or after `t`.
fn ms_at_or_after(t: Timestamp) -> i64 {
    t.timestamp_millis() + !t.timestamp_subsec_nanos().is_multiple_of(1_000_000) as i64
}

/// When a usage row counts, in milliseconds since the epoch: the start of its quarter hour, as
/// a rebuilt session's slices have it; a session's row without a time at the session's creation,
/// a run's at the run's first time. The summary's `first_at_ms`/`last_at_ms` are its bounds.
const COUNTS_AT: &str = "CASE WHEN u.at IS NOT NULL \
      THEN (floor(date_part('epoch', u.at) / 900) * 900000)::bigint \
    WHEN u.unified_id LIKE 'run:%' THEN (SELECT coalesce(round(extract(epoch FROM min(r.at)) \
      * 1000), 0)::bigint FROM usage r WHERE r.machine = u.machine AND r.unified_id = u.unified_id) \
    ELSE (SELECT round(extract(epoch FROM s.created_at) * 1000)::bigint FROM sessions s \
      WHERE s.machine = u.machine AND s.unified_id = u.unified_id) END";

/// Whether the summary holds each row's first and last moment (schema version 6 on) and this
/// role may read it.
fn has_spans(c: &mut postgres::Client) -> std::result::Result<bool, postgres::Error> {
    let row = c.query_one(
        "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'usage_days' \
         AND column_name = 'first_at_ms' AND table_schema = current_schema()) \
         AND has_table_privilege('usage_days', 'SELECT')",
        &[],
    )?;
    Ok(row.get(0))
}

/// The conditions the agent, machine, user and `archived` filters put on a summary row
/// (`usage_days` aliased `d`): each session's own agent, machine and user are on its rows, and a
/// run has no session, so it is never archived.
fn summary_who(
    agent: Option<&str>,
    who: &Filters,
    archived: Archived,
    p: &mut Params,
) -> Vec<String> {
    let mut c = Vec::new();
    if let Some(a) = agent {
        c.push(format!("d.agent = {}", p.add(a.to_string())));
    }
    if let Some(m) = &who.machine {
        c.push(format!("d.machine = {}", p.add(m.clone())));
    }
    if let Some(u) = &who.user {
        c.push(format!("d.os_user = {}", p.add(u.clone())));
    }
    let archived_session = "EXISTS (SELECT 1 FROM sessions s WHERE s.machine = d.machine \
                    AND s.unified_id = d.unified_id AND s.archived)";
    match archived {
        Archived::Include => {}
        Archived::Only => c.push(archived_session.to_string()),
        Archived::Exclude => c.push(format!("NOT {archived_session}")),
    }
    c
}

/// A period report from sums made in the database: the periods' first moments on the report's
/// calendar are sent as the bounds `width_bucket` sorts moments into, so the server needs no
/// zone. A summary row (a session's usage of one model on one of its machine's days) whose
/// first and last moments fall in one period, inside the range, is added whole; the usage rows
/// of the others are sorted one by one. `None` where the summary has no moments (a database
/// before version 6, or a role not granted it), or a moment falls outside the periods sent
/// (they span the usage's days and two either side, more than any zone's offset moves a
/// moment): the rebuilt report answers then.
fn report_by_period(
    team: &Team,
    ctx: &Context,
    opts: &ReportOptions,
    who: &Filters,
    period: Period,
) -> Result<Option<Sums>> {
    let mut builder = ReportBuilder::new(ctx, opts)?;
    let (since, until) = builder.range();
    let (since_ms, until_ms) = (
        since.map(ms_at_or_after),
        until.map(|t| t.timestamp_millis()),
    );
    let span = team.with(&ctx.env, |c| {
        if !has_spans(c)? {
            return Ok(None);
        }
        let r = c.query_one("SELECT min(day), max(day) FROM usage", &[])?;
        Ok(Some((
            r.get::<_, Option<NaiveDate>>(0),
            r.get::<_, Option<NaiveDate>>(1),
        )))
    })?;
    let Some(span) = span else {
        return Ok(None);
    };
    let starts = match span {
        (Some(lo), Some(hi)) => period.starts(
            builder.zone(),
            lo - chrono::Days::new(2),
            hi + chrono::Days::new(2),
        ),
        _ => Vec::new(),
    };
    let bounds: Vec<i64> = starts.iter().map(|(_, t)| t.timestamp_millis()).collect();

    let mut p = Params::default();
    let b = format!("{}::bigint[]", p.add(bounds));
    // The summary rows with usage in range.
    let mut rows = vec!["d.pieces > 0".to_string()];
    let (lo, hi) = (since_ms.map(|ms| p.add(ms)), until_ms.map(|ms| p.add(ms)));
    let mut inside = Vec::new();
    if let Some(lo) = &lo {
        rows.push(format!("d.last_at_ms >= {lo}"));
        inside.push(format!("d.first_at_ms >= {lo}"));
    }
    if let Some(hi) = &hi {
        rows.push(format!("d.first_at_ms <= {hi}"));
        inside.push(format!("d.last_at_ms <= {hi}"));
    }
    rows.extend(summary_who(
        opts.agent.as_deref(),
        who,
        opts.archived,
        &mut p,
    ));
    if let Some(m) = &opts.model {
        rows.push(format!("d.model = {}", p.add(m.clone())));
    }
    inside.push(format!(
        "width_bucket(d.first_at_ms, {b}) = width_bucket(d.last_at_ms, {b})"
    ));
    let mut piece_inside = vec!["true".to_string()];
    if let Some(lo) = &lo {
        piece_inside.push(format!("x.t >= {lo}"));
    }
    if let Some(hi) = &hi {
        piece_inside.push(format!("x.t <= {hi}"));
    }
    let sums = "input_tokens, output_tokens, thinking_tokens, cached_tokens, cache_write_tokens, \
                cost_usd";
    let sql = format!(
        "WITH d AS MATERIALIZED (SELECT d.machine, d.unified_id, d.day, d.model, d.agent, {sums}, \
             width_bucket(d.first_at_ms, {b}) AS k, {whole} AS whole \
             FROM usage_days d WHERE {rows}), \
         parts AS MATERIALIZED (SELECT k, machine, unified_id, agent, model, {sums} FROM d \
             WHERE whole \
           UNION ALL SELECT width_bucket(x.t, {b}), d.machine, d.unified_id, d.agent, d.model, \
             x.input_tokens, x.output_tokens, x.thinking_tokens, x.cached_tokens, \
             x.cache_write_tokens, x.cost_usd \
             FROM d CROSS JOIN LATERAL (SELECT u.input_tokens, u.output_tokens, \
               u.thinking_tokens, u.cached_tokens, u.cache_write_tokens, u.cost_usd, \
               {COUNTS_AT} AS t FROM usage u WHERE u.machine = d.machine \
               AND u.unified_id = d.unified_id AND u.day = d.day AND btrim(u.model) = d.model) x \
             WHERE NOT d.whole AND {piece_inside}) \
         SELECT k, agent, model, {SUMS}, 0::bigint FROM parts GROUP BY 1, 2, 3 \
         UNION ALL SELECT k, NULL, NULL, 0, 0, 0, 0, 0, 0, count(*) \
           FROM (SELECT k FROM parts GROUP BY k, machine, unified_id) x GROUP BY 1",
        whole = inside.join(" AND "),
        rows = rows.join(" AND "),
        piece_inside = piece_inside.join(" AND "),
    );
    // Sessions in range without any usage row, per agent (their cost is unknown, not $0): the
    // summary's rows of zeros, one per such session.
    let mut q = Params::default();
    let mut zeros = vec!["d.sess AND d.pieces = 0".to_string()];
    let ms = "round(extract(epoch FROM d.created_at) * 1000)::bigint";
    if let Some(t) = since_ms {
        zeros.push(format!("{ms} >= {}", q.add(t)));
    }
    if let Some(t) = until_ms {
        zeros.push(format!("{ms} <= {}", q.add(t)));
    }
    zeros.extend(summary_who(
        opts.agent.as_deref(),
        who,
        opts.archived,
        &mut q,
    ));
    let without = format!(
        "SELECT d.agent, count(*) FROM usage_days d WHERE {} GROUP BY 1",
        zeros.join(" AND ")
    );
    let (sums, without) = team.with(&ctx.env, |c| {
        let mut tx = c.transaction()?;
        // The groupings hold a row per session and period: in memory, not in batches on disk;
        // and a statement of a few hundred milliseconds is not worth compiling.
        tx.batch_execute("SET LOCAL work_mem = '64MB'; SET LOCAL jit = off")?;
        let sums = tx.query(&sql, &p.refs())?;
        let without = match opts.model {
            Some(_) => Vec::new(),
            None => tx.query(&without, &q.refs())?,
        };
        tx.commit()?;
        Ok((sums, without))
    })?;
    let key_of =
        |k: i32| (k >= 1 && (k as usize) < starts.len()).then(|| &starts[k as usize - 1].0);
    let mut sessions = Vec::new();
    for r in &sums {
        let Some(key) = key_of(r.get(0)) else {
            return Ok(None);
        };
        match r.get::<_, Option<String>>(1) {
            Some(agent) => {
                let t = Tokens {
                    input: n(r.get(4)),
                    output: n(r.get(5)),
                    reasoning: n(r.get(6)),
                    cache_read: n(r.get(7)),
                    cache_write: n(r.get(8)),
                    cache_write_1h: 0,
                };
                builder.add_period_usage(key, &agent, &r.get::<_, String>(2), &t, r.get(3));
            }
            None => sessions.push((key, n(r.get(9)))),
        }
    }
    for (key, count) in sessions {
        builder.add_period_sessions(key, count);
    }
    for r in &without {
        builder.add_without_usage(&r.get::<_, String>(0), n(r.get(1)));
    }
    Ok(Some(builder.sums()))
}

/// A cost report from each session rebuilt from its rows (its usage rows as its slices, their
/// costs as the agent's own) and added to the local report engine: every grouping.
pub fn report_rebuilt(
    team: &Team,
    ctx: &Context,
    opts: &ReportOptions,
    who: &Filters,
) -> Result<Sums> {
    let mut builder = ReportBuilder::new(ctx, opts)?;
    let mut p = Params::default();
    let filter = sessions_where(who, opts.agent.as_deref(), &mut p);
    // Runs that match no session count in the periods they were spent in, as locally.
    let with_runs = matches!(opts.grouping, Grouping::Period(_));
    let mut runs = vec!["u.unified_id LIKE 'run:%'".to_string()];
    // Each condition's parameter only when the statement holds it.
    if let (true, Some(a)) = (with_runs, &opts.agent) {
        runs.push(format!("u.agent = {}", p.add(a.clone())));
    }
    if let (true, Some(m)) = (with_runs, &who.machine) {
        runs.push(format!("u.machine = {}", p.add(m.clone())));
    }
    if let (true, Some(u)) = (with_runs, &who.user) {
        runs.push(format!("u.os_user = {}", p.add(u.clone())));
    }
    let usage = "u.model, (extract(epoch FROM u.at) * 1000)::float8, u.input_tokens, \
        u.output_tokens, u.thinking_tokens, u.cached_tokens, u.cache_write_tokens, u.cost_usd";
    let run_rows = if with_runs {
        format!(
            " UNION ALL SELECT u.machine, u.os_user, u.agent, u.unified_id, u.unified_id, '', \
             coalesce(extract(epoch FROM min(u.at) OVER w) * 1000, 0)::float8, \
             coalesce(extract(epoch FROM max(u.at) OVER w) * 1000, 0)::float8, 0::bigint, 0::bigint, \
             NULL, NULL, NULL, NULL, '{{}}'::text[], false, NULL, NULL, NULL, NULL, NULL, NULL, \
             {usage} FROM usage u WHERE {} \
             WINDOW w AS (PARTITION BY u.machine, u.unified_id)",
            runs.join(" AND ")
        )
    } else {
        String::new()
    };
    let sql = format!(
        "SELECT * FROM (SELECT {SUMMARY_COLUMNS}, {usage} FROM sessions s \
         LEFT JOIN usage u ON u.machine = s.machine AND u.unified_id = s.unified_id \
         WHERE {filter}{run_rows}) x ORDER BY 1, 5"
    );
    team.with(&ctx.env, |c| {
        let mut rows = c.query_raw(&sql, p.refs())?;
        let mut current: Option<(String, String, SessionSummary)> = None;
        while let Some(r) = rows.next()? {
            let (machine, id): (String, String) = (r.get(0), r.get(4));
            let same = current
                .as_ref()
                .is_some_and(|(m, u, _)| *m == machine && *u == id);
            if !same {
                if let Some((_, _, s)) = current.take() {
                    builder.add(s);
                }
                current = Some((machine, id, summary(&r)));
            }
            let s = &mut current.as_mut().expect("set above").2;
            add_usage(s, &r);
        }
        if let Some((_, _, s)) = current {
            builder.add(s);
        }
        Ok(())
    })?;
    Ok(builder.sums())
}

/// One usage row (its columns after the summary's) added to `s`'s usage: its model's tokens and
/// cost, and a slice at its time. A session without usage has one row of NULLs.
fn add_usage(s: &mut SessionSummary, r: &postgres::Row) {
    let at = SUMMARY_WIDTH;
    let Some(model) = r.get::<_, Option<String>>(at) else {
        return;
    };
    let bucket = |i: usize| n(r.get::<_, i64>(at + i));
    let tokens = Tokens {
        input: bucket(2),
        output: bucket(3),
        reasoning: bucket(4),
        cache_read: bucket(5),
        cache_write: bucket(6),
        cache_write_1h: 0,
    };
    let usd: f64 = r.get(at + 7);
    let quarter = r
        .get::<_, Option<f64>>(at + 1)
        .map(|ms| (ms / 1000.0).div_euclid(900.0) as i64);
    let u = match s.usage.iter_mut().position(|u| u.model == model) {
        Some(i) => &mut s.usage[i],
        None => {
            s.usage.push(ModelUsage {
                model,
                ..Default::default()
            });
            s.usage.last_mut().expect("pushed above")
        }
    };
    u.tokens.add(&tokens);
    // The synced cost is the agent's own as far as the report is concerned: priced once, there.
    u.native_cost_usd = Some(u.native_cost_usd.unwrap_or(0.0) + usd);
    u.slices.push(UsageSlice {
        quarter,
        band: None,
        tokens,
        native_cost_usd: Some(usd),
    });
}
