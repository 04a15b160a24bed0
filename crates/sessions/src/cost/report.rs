//! Cost reports as ccusage users know them: usage and cost per local day, week or month, or per
//! session, with ccusage's rows (`date`/`week`/`month`/`sessionId`, its token fields, `totalCost`,
//! `modelsUsed`, `modelBreakdowns`) and `totals`, so that a script written for
//! `ccusage daily --json` reads `amux cost daily --json` unchanged.
//!
//! Every row is made from the same priced usage as `totalCost` (`Pricer`): each request on the
//! period of its own time, a cost an agent records only per session on the session's first day.
//! A period report counts the usage spent inside `since`/`until`; a session report counts the
//! whole of each session whose last activity is inside them, as ccusage does.
//!
//! Token fields mean what ccusage's mean: `outputTokens` includes reasoning (we keep it apart as
//! `thinkingTokens` too), `cacheCreationTokens` are prompt-cache writes, `cacheReadTokens` cache
//! reads, `inputTokens` the rest of the prompt.
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::day::LocalDays;
use super::{Priced, Pricer};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{to_iso, SessionSummary, Timestamp, Tokens};
use crate::options::{Bound, Direction, Grouping, Period, ReportOptions};
use crate::read::project::Wanted;

/// One model's share of a row (ccusage's `modelBreakdowns`, with the agent that used it).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelBreakdown {
    pub model_name: String,
    pub agent: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_tokens: u64,
    pub cache_read_tokens: u64,
    pub thinking_tokens: u64,
    pub cost: f64,
}

/// What a session row adds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub agent: String,
    pub unified_id: String,
    pub title: String,
    /// The session's working directory (ccusage: its project folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_path: Option<String>,
    pub first_activity: String,
    pub last_activity: String,
}

#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub week: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub month: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(flatten)]
    pub usage: Totals,
    pub models_used: Vec<String>,
    pub model_breakdowns: Vec<ModelBreakdown>,
    /// Beyond ccusage: the agents whose usage is in the row.
    pub agents: Vec<String>,
    /// Beyond ccusage: how many sessions spent in the row.
    pub session_count: u64,
    #[serde(flatten)]
    pub session: Option<SessionInfo>,
}

/// A row's figures, and the report's `totals`, with ccusage's names (`outputTokens` includes
/// reasoning; beyond ccusage, `thinkingTokens` is that part of it).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_tokens: u64,
    pub cache_read_tokens: u64,
    pub total_tokens: u64,
    pub total_cost: f64,
    pub thinking_tokens: u64,
}

impl Totals {
    fn of(t: &Tokens, usd: f64) -> Totals {
        Totals {
            input_tokens: t.input,
            output_tokens: t.output + t.reasoning,
            cache_creation_tokens: t.cache_write,
            cache_read_tokens: t.cache_read,
            total_tokens: t.total(),
            total_cost: usd,
            thinking_tokens: t.reasoning,
        }
    }

    fn add(&mut self, o: &Totals) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_creation_tokens += o.cache_creation_tokens;
        self.cache_read_tokens += o.cache_read_tokens;
        self.total_tokens += o.total_tokens;
        self.total_cost += o.total_cost;
        self.thinking_tokens += o.thinking_tokens;
    }
}

/// A model with tokens but no known price (its tokens count as $0).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct AgentModel {
    pub agent: String,
    pub model: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub grouping: Grouping,
    pub rows: Vec<Row>,
    pub totals: Totals,
    pub unpriced_models: Vec<AgentModel>,
    /// Sessions in range that recorded no usage at all, per agent (Cursor records no token
    /// counts: their cost is unknown, not $0).
    pub sessions_without_usage: BTreeMap<String, u64>,
}

impl Report {
    /// The name of the rows' array, as ccusage names it.
    pub fn rows_name(&self) -> &'static str {
        rows_name(self.grouping)
    }
}

fn rows_name(grouping: Grouping) -> &'static str {
    match grouping {
        Grouping::Period(Period::Day) => "daily",
        Grouping::Period(Period::Week(_)) => "weekly",
        Grouping::Period(Period::Month) => "monthly",
        Grouping::Session => "sessions",
    }
}

impl Serialize for Report {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(self.rows_name(), &self.rows)?;
        m.serialize_entry("totals", &self.totals)?;
        m.serialize_entry("unpricedModels", &self.unpriced_models)?;
        m.serialize_entry("sessionsWithoutUsage", &self.sessions_without_usage)?;
        m.end()
    }
}

/// A finished report whose rows are still the sums they are made from. It serialises as its
/// `Report` does, each row made as it is written and let go, so that a report of thousands of
/// sessions is never held as rows and as text at once.
pub struct Sums {
    grouping: Grouping,
    rows: Vec<(String, Acc)>,
    totals: Totals,
    unpriced_models: Vec<AgentModel>,
    sessions_without_usage: BTreeMap<String, u64>,
}

impl Sums {
    pub fn into_report(self) -> Report {
        let grouping = self.grouping;
        Report {
            grouping,
            rows: (self.rows.into_iter())
                .map(|(key, acc)| acc.into_row(key, grouping))
                .collect(),
            totals: self.totals,
            unpriced_models: self.unpriced_models,
            sessions_without_usage: self.sessions_without_usage,
        }
    }
}

impl Serialize for Sums {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(rows_name(self.grouping), &RowsOf(self.grouping, &self.rows))?;
        m.serialize_entry("totals", &self.totals)?;
        m.serialize_entry("unpricedModels", &self.unpriced_models)?;
        m.serialize_entry("sessionsWithoutUsage", &self.sessions_without_usage)?;
        m.end()
    }
}

/// Sums serialised as the rows they make, one at a time.
struct RowsOf<'a>(Grouping, &'a [(String, Acc)]);

impl Serialize for RowsOf<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.1.len()))?;
        for (key, acc) in self.1 {
            seq.serialize_element(&acc.clone().into_row(key.clone(), self.0))?;
        }
        seq.end()
    }
}

/// The report's calendar: the zone asked for, else the caller's.
pub fn zone(ctx: &Context, timezone: Option<&str>) -> Result<LocalDays> {
    match timezone {
        None => Ok(LocalDays::new(&ctx.env)),
        Some(name) => LocalDays::named(name)
            .ok_or_else(|| Error::validation(format!("timezone: unknown time zone '{name}'"))),
    }
}

/// The moments `since` and `until` stand for on the calendar of `zone` (`until` a local day
/// means its end).
pub fn window(
    zone: &LocalDays,
    since: Option<Bound>,
    until: Option<Bound>,
) -> (Option<Timestamp>, Option<Timestamp>) {
    let since = since.map(|b| match b {
        Bound::At(t) => t,
        Bound::Date(d) => zone.start_of(d),
    });
    let until = until.map(|b| match b {
        Bound::At(t) => t,
        Bound::Date(d) => match d.succ_opt() {
            Some(next) => zone.start_of(next) - chrono::Duration::nanoseconds(1),
            None => Timestamp::MAX_UTC,
        },
    });
    (since, until)
}

fn inside(t: &Timestamp, (since, until): (Option<Timestamp>, Option<Timestamp>)) -> bool {
    since.is_none_or(|s| *t >= s) && until.is_none_or(|u| *t <= u)
}

/// A row being added up.
#[derive(Clone, Default)]
struct Acc {
    tokens: Tokens,
    usd: f64,
    /// (model, agent, tokens, cost): a few per row, and a session report has thousands of rows.
    models: Vec<(String, String, Tokens, f64)>,
    agents: Vec<String>,
    sessions: u64,
    session: Option<SessionInfo>,
    /// For `last` over sessions: when the session was last active.
    last_activity: Option<Timestamp>,
}

impl Acc {
    fn add(&mut self, agent: &str, model: &str, tokens: &Tokens, usd: f64) {
        self.tokens.add(tokens);
        self.usd += usd;
        if !self.agents.iter().any(|a| a == agent) {
            self.agents.push(agent.to_string());
        }
        let model = model.trim();
        if model.is_empty() {
            return;
        }
        let found = (self.models.iter_mut()).find(|m| m.0 == model && m.1 == agent);
        match found {
            Some(m) => {
                m.2.add(tokens);
                m.3 += usd;
            }
            None => (self.models).push((model.to_string(), agent.to_string(), *tokens, usd)),
        }
    }

    fn into_row(self, key: String, grouping: Grouping) -> Row {
        let t = self.tokens;
        let mut agents = self.agents;
        agents.sort_unstable();
        let mut models = self.models;
        models.sort_unstable_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        let mut breakdowns: Vec<ModelBreakdown> = (models.into_iter())
            .map(|(model, agent, t, cost)| ModelBreakdown {
                model_name: model,
                agent,
                input_tokens: t.input,
                output_tokens: t.output + t.reasoning,
                cache_creation_tokens: t.cache_write,
                cache_read_tokens: t.cache_read,
                thinking_tokens: t.reasoning,
                cost,
            })
            .collect();
        let models_used: BTreeSet<String> =
            breakdowns.iter().map(|b| b.model_name.clone()).collect();
        breakdowns.sort_by(|a, b| b.cost.total_cmp(&a.cost));
        let mut row = Row {
            usage: Totals::of(&t, self.usd),
            models_used: models_used.into_iter().collect(),
            model_breakdowns: breakdowns,
            agents,
            session_count: self.sessions,
            ..Default::default()
        };
        match grouping {
            Grouping::Period(Period::Day) => row.date = Some(key),
            Grouping::Period(Period::Week(_)) => row.week = Some(key),
            Grouping::Period(Period::Month) => row.month = Some(key),
            Grouping::Session => {
                row.session_id = self.session.as_ref().map(|s| {
                    // The native id: the unified id less its "agent:".
                    s.unified_id[s.agent.len() + 1..].to_string()
                });
                row.session = self.session;
            }
        }
        row
    }
}

/// The rows being added up, by key, in the order first seen. The sums are kept in one vector,
/// which `finish` sorts in place, and the map holds only where each is: a map of the sums
/// themselves would be copied out to be sorted, and its table is larger than the vector.
#[derive(Default)]
struct Rows {
    at: HashMap<String, usize>,
    sums: Vec<(String, Acc)>,
}

impl Rows {
    fn entry(&mut self, key: &str) -> &mut Acc {
        let i = match self.at.get(key) {
            Some(&i) => i,
            None => {
                self.at.insert(key.to_string(), self.sums.len());
                self.sums.push((key.to_string(), Acc::default()));
                self.sums.len() - 1
            }
        };
        &mut self.sums[i].1
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Acc> {
        let i = *self.at.get(key)?;
        Some(&mut self.sums[i].1)
    }
}

/// When a session was active: its first and last request where they are known, else its
/// creation and last update.
fn activity(s: &SessionSummary) -> (Timestamp, Timestamp) {
    let times = s.requests.iter().map(|r| r.at);
    match (times.clone().min(), times.max()) {
        (Some(a), Some(b)) => (a, b),
        _ => (s.created_at, s.updated_at),
    }
}

fn project_matches(s: &SessionSummary, project: Option<&Wanted>) -> bool {
    project.is_none_or(|p| p.matches(s.project.as_deref()))
}

/// A report being made: sessions are added one at a time (each priced, added up and let go), so
/// that they are never all held at once.
pub struct ReportBuilder {
    opts: ReportOptions,
    zone: LocalDays,
    range: (Option<Timestamp>, Option<Timestamp>),
    pricer: Pricer,
    rows: Rows,
    unpriced: BTreeSet<AgentModel>,
    without_usage: BTreeMap<String, u64>,
    /// Runs of the run index whose session was added (the others count on their own).
    matched_runs: HashSet<usize>,
}

impl ReportBuilder {
    pub fn new(ctx: &Context, opts: &ReportOptions) -> Result<Self> {
        let zone = zone(ctx, opts.timezone.as_deref())?;
        let mut range = window(&zone, opts.since, opts.until);
        if let (Grouping::Period(p), Some(n)) = (opts.grouping, opts.last) {
            let now = ctx.env.now().unwrap_or_else(chrono::Utc::now);
            let first = p.back(zone.local(&now).date(), n.saturating_sub(1));
            let from = zone.start_of(first);
            range.0 = Some(range.0.map_or(from, |s| s.max(from)));
        }
        Ok(ReportBuilder {
            opts: opts.clone(),
            zone,
            range,
            pricer: Pricer::new(ctx),
            rows: Rows::default(),
            unpriced: BTreeSet::new(),
            without_usage: BTreeMap::new(),
            matched_runs: HashSet::new(),
        })
    }

    /// Add a session: every session of the agents asked for, unpriced, untagged and unfiltered,
    /// as `dedupe::Replays` keeps them.
    pub fn add(&mut self, mut s: SessionSummary) {
        let opts = &self.opts;
        self.matched_runs.extend(self.pricer.runs_of(&s));
        if opts.agent.as_deref().is_some_and(|a| a != s.agent)
            || !project_matches(&s, opts.project.as_ref())
            || !crate::selection::archived_matches(&s, opts.archived)
        {
            return;
        }
        let p = self.pricer.price(&mut s, true);
        if p.parts.is_empty() {
            if inside(&s.created_at, self.range) && opts.model.is_none() {
                *self.without_usage.entry(s.agent.clone()).or_default() += 1;
            }
            return;
        }
        let model_ok = |m: &str| opts.model.as_deref().is_none_or(|want| want == m.trim());
        let counted = match opts.grouping {
            Grouping::Period(period) => add_periods(
                &mut self.rows,
                &s,
                &p,
                period,
                &self.zone,
                self.range,
                &model_ok,
            ),
            Grouping::Session => add_session(&mut self.rows, &s, &p, self.range, &model_ok),
        };
        if counted {
            self.unpriced.extend(p.unpriced.iter().map(|m| AgentModel {
                agent: s.agent.clone(),
                model: m.clone(),
            }));
        }
    }

    /// The moments the report counts usage between (`since`, `until` and `last` applied).
    pub fn range(&self) -> (Option<Timestamp>, Option<Timestamp>) {
        self.range
    }

    /// The report's calendar.
    pub fn zone(&self) -> &LocalDays {
        &self.zone
    }

    /// Usage already summed elsewhere (a team database) for the period `key`: the tokens and
    /// cost of one agent's model there, each piece of it inside the range and of the model asked.
    pub fn add_period_usage(&mut self, key: &str, agent: &str, model: &str, t: &Tokens, usd: f64) {
        self.rows.entry(key).add(agent, model, t, usd);
    }

    /// How many sessions spent in the period `key` (after its usage is added).
    pub fn add_period_sessions(&mut self, key: &str, n: u64) {
        if let Some(acc) = self.rows.get_mut(key) {
            acc.sessions += n;
        }
    }

    /// Sessions of `agent` in range that recorded no usage, counted elsewhere.
    pub fn add_without_usage(&mut self, agent: &str, n: u64) {
        *self.without_usage.entry(agent.to_string()).or_default() += n;
    }

    pub fn finish(self) -> Report {
        self.sums().into_report()
    }

    /// The finished report, its rows not made yet.
    pub fn sums(mut self) -> Sums {
        if let (Grouping::Period(period), None) = (self.opts.grouping, &self.opts.project) {
            self.add_unmatched_runs(period);
        }
        let opts = &self.opts;
        drop(self.rows.at);
        let mut rows = self.rows.sums;
        let desc = match (opts.grouping, opts.order) {
            (_, Some(d)) => d == Direction::Desc,
            (Grouping::Session, None) => true,
            (Grouping::Period(_), None) => false,
        };
        match opts.grouping {
            Grouping::Period(_) => rows.sort_by(|a, b| a.0.cmp(&b.0)),
            Grouping::Session => {
                if let Some(n) = opts.last {
                    rows.sort_by_key(|r| std::cmp::Reverse(r.1.last_activity));
                    rows.truncate(n as usize);
                }
                rows.sort_by(|a, b| a.1.usd.total_cmp(&b.1.usd).then(a.0.cmp(&b.0)));
            }
        }
        if desc {
            rows.reverse();
        }
        rows.truncate(opts.limit.unwrap_or(usize::MAX));
        let mut totals = Totals::default();
        (rows.iter()).for_each(|(_, acc)| totals.add(&Totals::of(&acc.tokens, acc.usd)));
        Sums {
            grouping: opts.grouping,
            rows,
            totals,
            unpriced_models: self.unpriced.into_iter().collect(),
            sessions_without_usage: self.without_usage,
        }
    }

    /// Runs of the run index whose session is not on disk count on their own day, as in
    /// `totalCost`.
    fn add_unmatched_runs(&mut self, period: Period) {
        let opts = &self.opts;
        for (i, r) in self.pricer.runs.runs.iter().enumerate() {
            let wanted = opts.agent.as_deref().is_none_or(|a| a == r.agent);
            let model = r.model.clone().unwrap_or_default();
            let model_ok = opts.model.as_deref().is_none_or(|m| m == model);
            let Some(cost) = r.cost.as_ref() else {
                continue;
            };
            if self.matched_runs.contains(&i)
                || !wanted
                || !model_ok
                || !inside(&r.timestamp, self.range)
            {
                continue;
            }
            let acc = (self.rows).entry(&period.key(&self.zone, &r.timestamp));
            acc.add(&r.agent, &model, &super::tokens_of(cost), cost.total_usd);
        }
    }
}

/// A session's usage, each piece on the period of its time; whether any of it was in range.
fn add_periods(
    rows: &mut Rows,
    s: &SessionSummary,
    p: &Priced,
    period: Period,
    zone: &LocalDays,
    range: (Option<Timestamp>, Option<Timestamp>),
    model_ok: &dyn Fn(&str) -> bool,
) -> bool {
    let mut keys: HashSet<String> = HashSet::new();
    for part in p.parts.iter().filter(|part| model_ok(&part.model)) {
        let whole = [super::Piece {
            at: None,
            tokens: part.tokens,
            usd: part.usd,
        }];
        let pieces = if part.pieces.is_empty() {
            &whole[..]
        } else {
            &part.pieces[..]
        };
        for piece in pieces {
            let at = piece.at.unwrap_or(s.created_at);
            if !inside(&at, range) {
                continue;
            }
            let key = period.key(zone, &at);
            rows.entry(&key)
                .add(&s.agent, &part.model, &piece.tokens, piece.usd);
            keys.insert(key);
        }
    }
    for k in &keys {
        if let Some(acc) = rows.get_mut(k) {
            acc.sessions += 1;
        }
    }
    !keys.is_empty()
}

/// A whole session as one row, when its last activity is in range.
fn add_session(
    rows: &mut Rows,
    s: &SessionSummary,
    p: &Priced,
    range: (Option<Timestamp>, Option<Timestamp>),
    model_ok: &dyn Fn(&str) -> bool,
) -> bool {
    let (first, last) = activity(s);
    if !inside(&last, range) {
        return false;
    }
    let parts: Vec<_> = p
        .parts
        .iter()
        .filter(|part| model_ok(&part.model))
        .collect();
    if parts
        .iter()
        .all(|part| part.tokens.is_zero() && part.usd == 0.0)
    {
        return false;
    }
    let acc = rows.entry(&s.unified_id);
    for part in parts {
        acc.add(&s.agent, &part.model, &part.tokens, part.usd);
    }
    acc.sessions = 1;
    acc.last_activity = Some(last);
    acc.session = Some(SessionInfo {
        agent: s.agent.clone(),
        unified_id: s.unified_id.clone(),
        title: s.title.clone(),
        project_path: s.cwd.clone(),
        first_activity: to_iso(&first),
        last_activity: to_iso(&last),
    });
    true
}
