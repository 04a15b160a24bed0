//! Cost: what each session cost, and `totalCost`.
//!
//! Sources, in the spec's priority order (6.4), decided per session:
//! 1. the agent's own cost (`ModelUsage::native_cost_usd`), per model; a model of the same
//!    session without one is estimated;
//! 2. else the run index: when runs matched to the session (agent + sessionId) recorded a cost,
//!    the session's cost is those runs' records (their USD and tokens);
//! 3. else an estimate from the session's tokens with the price table (`prices.rs`). A model with
//!    tokens but no price costs 0 and is listed in `unpricedModels`.
//!
//! The run index also gives sessions their `tags` and `runCount`. Runs that match no session
//! (no sessionId, or a session no longer on disk) still count in `totalCost`: the spec reads the
//! index for "runs that have cost data not captured in session files".
//!
//! `runCount`: a session counts as max(1, runs matched in the index): it exists because the
//! agent ran at least once, whether or not through agent-mux. Each unmatched run counts 1.
//!
//! Breakdown keys: `agent` the agent name; `model` the model id as the agent recorded it (a
//! session with several models splits its cost and tokens over them, and counts in each); `day`
//! the local calendar day (see `day.rs`) on which each usage record was spent, as ccusage counts
//! it: a request on the day of its own timestamp (`UsageSlice`), a run-index cost on the day of
//! its run. Usage known only per session (a session-level total such as Hermes'
//! `actual_cost_usd`) and a session without usage go on the day of the session's `createdAt`.
//! A session counts in each day it spent on; the totals are the same as without grouping.
//! `tag` each tag (a session counts in each of its tags). Beyond the spec: `week` the first day
//! of the local week (`startOfWeek`, Sunday unless told), `month` "YYYY-MM", both as `day`;
//! `session` the unified id; `project` the cwd. A missing model, an untagged session and a session
//! without a cwd use the key "" (no real model id, tag or directory is empty).
//!
//! Every total counts a session found twice once, and a response replayed in several sessions
//! once (`dedupe`). The reports ccusage users know (`report`, `blocks`) are made from the same
//! priced usage.
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::context::Context;
use crate::model::{
    CostRecord, Message, Request, Session, SessionSummary, Timestamp, TokenUsage, Tokens,
};
use crate::options::{CostOptions, Filters, GroupBy, Period};
use crate::selection;

pub mod blocks;
pub mod day;
pub mod dedupe;
pub mod period;
pub mod prices;
pub mod report;
pub mod runindex;

use prices::Prices;
use runindex::{Run, RunIndex};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostBreakdown {
    pub key: String,
    pub total_usd: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub thinking_tokens: u64,
    pub cached_tokens: u64,
    /// Beyond the spec: prompt-cache writes, where agents report them.
    #[serde(skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    pub session_count: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostSummary {
    pub total_usd: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub thinking_tokens: u64,
    pub cached_tokens: u64,
    /// Beyond the spec: prompt-cache writes, where agents report them.
    #[serde(skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    pub session_count: u64,
    pub run_count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakdowns: Option<BTreeMap<String, CostBreakdown>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unpriced_models: Option<Vec<String>>,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// Part of a session's cost that belongs to one model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Part {
    pub model: String,
    pub tokens: Tokens,
    pub usd: f64,
    /// Only when split by time: the same cost split by when it was spent.
    pub pieces: Vec<Piece>,
}

/// Tokens and cost spent at one time (`None`: unknown, taken as the session's start).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Piece {
    pub at: Option<Timestamp>,
    pub tokens: Tokens,
    pub usd: f64,
}

/// A session (or an unmatched run) priced, with what the groupings need.
pub(crate) struct Priced {
    pub parts: Vec<Part>,
    pub unpriced: Vec<String>,
}

fn record(tokens: &Tokens, usd: f64) -> CostRecord {
    CostRecord {
        total_usd: usd,
        input_tokens: tokens.input,
        output_tokens: tokens.output,
        thinking_tokens: Some(tokens.reasoning),
        cached_tokens: Some(tokens.cache_read),
        cache_write_tokens: (tokens.cache_write > 0).then_some(tokens.cache_write),
    }
}

pub(crate) fn tokens_of(c: &CostRecord) -> Tokens {
    Tokens {
        input: c.input_tokens,
        output: c.output_tokens,
        cache_read: c.cached_tokens.unwrap_or(0),
        cache_write: c.cache_write_tokens.unwrap_or(0),
        reasoning: c.thinking_tokens.unwrap_or(0),
        cache_write_1h: 0,
    }
}

/// Prices and the run index, loaded once per call.
pub struct Pricer {
    prices: Prices,
    pub(crate) runs: RunIndex,
    /// Indexes into `runs` of the runs of each session, by agent and session id.
    by_session: HashMap<String, HashMap<String, Vec<usize>>>,
}

impl Pricer {
    pub fn new(ctx: &Context) -> Self {
        let runs = RunIndex::load(ctx);
        let mut by_session: HashMap<String, HashMap<String, Vec<usize>>> = HashMap::new();
        for (i, r) in runs.runs.iter().enumerate() {
            if let Some(id) = &r.session_id {
                let agent = by_session.entry(r.agent.clone()).or_default();
                agent.entry(id.clone()).or_default().push(i);
            }
        }
        Pricer {
            prices: Prices::from_options(ctx.options.pricing.as_ref()),
            runs,
            by_session,
        }
    }

    /// Fill `tags`, `run_count` and `cost` on each summary; returns each one's parts, split by
    /// time when `by_time`.
    pub(crate) fn apply(&self, summaries: &mut [SessionSummary], by_time: bool) -> Vec<Priced> {
        summaries
            .iter_mut()
            .map(|s| self.price(s, by_time))
            .collect()
    }

    /// `apply` of one summary.
    pub(crate) fn price(&self, s: &mut SessionSummary, by_time: bool) -> Priced {
        let runs: Vec<&Run> = (self.runs_of(s).iter())
            .map(|&i| &self.runs.runs[i])
            .collect();
        self.apply_one(s, &runs, by_time)
    }

    /// Indexes into `runs.runs` of the session's runs.
    pub(crate) fn runs_of(&self, s: &SessionSummary) -> &[usize] {
        (self.by_session.get(&s.agent))
            .and_then(|m| m.get(&s.session_id))
            .map_or(&[], Vec::as_slice)
    }

    fn apply_one(&self, s: &mut SessionSummary, runs: &[&Run], by_time: bool) -> Priced {
        let tags: BTreeSet<&String> = s
            .tags
            .iter()
            .chain(runs.iter().flat_map(|r| &r.tags))
            .collect();
        s.tags = tags.into_iter().cloned().collect();
        s.run_count = runs.len() as u64;
        let priced = self.price_summary(s, runs, by_time);
        if !priced.parts.is_empty() {
            let mut tokens = Tokens::default();
            for p in &priced.parts {
                tokens.add(&p.tokens);
            }
            s.cost = Some(record(&tokens, priced.parts.iter().map(|p| p.usd).sum()));
        }
        priced
    }

    fn price_summary(&self, s: &SessionSummary, runs: &[&Run], by_time: bool) -> Priced {
        let mut unpriced = Vec::new();
        let has_native = s.usage.iter().any(|u| u.native_cost_usd.is_some());
        let run_costs: Vec<(&Run, &CostRecord)> = runs
            .iter()
            .filter_map(|r| r.cost.as_ref().map(|c| (*r, c)))
            .collect();
        let parts = if !has_native && !run_costs.is_empty() {
            run_costs
                .iter()
                .map(|(r, c)| {
                    let tokens = tokens_of(c);
                    let at = Some(r.timestamp);
                    Part {
                        model: r
                            .model
                            .clone()
                            .or_else(|| s.model.clone())
                            .unwrap_or_default(),
                        tokens,
                        usd: c.total_usd,
                        pieces: by_time
                            .then_some(Piece {
                                at,
                                tokens,
                                usd: c.total_usd,
                            })
                            .into_iter()
                            .collect(),
                    }
                })
                .collect()
        } else {
            s.usage
                .iter()
                .filter(|u| !u.tokens.is_zero() || u.native_cost_usd.is_some())
                .map(|u| {
                    let price = self.prices.lookup(&u.model);
                    let usd = match (u.native_cost_usd, price) {
                        (Some(c), _) => c,
                        (None, Some(p)) => p.usage_cost(&u.tokens, &u.long_prompt),
                        (None, None) => {
                            unpriced.push(u.model.clone());
                            0.0
                        }
                    };
                    let pieces = if by_time {
                        u.slices()
                            .into_iter()
                            .filter(|x| !x.tokens.is_zero() || x.native_cost_usd.is_some())
                            .map(|x| Piece {
                                at: x.start(),
                                tokens: x.tokens,
                                // As for the whole: a model with a native cost is priced by it
                                // alone, its requests without one cost nothing.
                                usd: match (u.native_cost_usd, price) {
                                    (Some(_), _) => x.native_cost_usd.unwrap_or(0.0),
                                    (None, Some(p)) => p.band_cost(&x.tokens, x.band),
                                    (None, None) => 0.0,
                                },
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    Part {
                        model: u.model.clone(),
                        tokens: u.tokens,
                        usd,
                        pieces,
                    }
                })
                .collect()
        };
        Priced { parts, unpriced }
    }

    /// One request of `s` (`Session::requests`), by the rule its whole usage is priced by: a
    /// model with a cost of the agent's own is priced by its requests' costs, else estimated.
    pub(crate) fn request_usd(&self, s: &SessionSummary, r: &Request) -> f64 {
        let Some(u) = s.usage.get(r.model) else {
            return 0.0;
        };
        if u.native_cost_usd.is_some() {
            return r.native_cost_usd.unwrap_or(0.0);
        }
        (self.prices.lookup(&u.model)).map_or(0.0, |p| p.request_cost(&r.tokens))
    }

    /// One message: the agent's own cost, else an estimate with the message's model (or the
    /// session's).
    fn price_message(&self, m: &mut Message, session_model: Option<&str>) {
        let Some(t) = m.tokens else {
            if let Some(c) = m.native_cost_usd {
                m.cost = Some(record(&Tokens::default(), c));
            }
            return;
        };
        m.token_usage = Some(TokenUsage {
            input_tokens: t.input,
            output_tokens: t.output,
            thinking_tokens: (t.reasoning > 0).then_some(t.reasoning),
            cached_tokens: (t.cache_read > 0).then_some(t.cache_read),
        });
        let model = m.model.as_deref().or(session_model).unwrap_or("");
        let usd = m
            .native_cost_usd
            .or_else(|| self.prices.lookup(model).map(|p| p.request_cost(&t)));
        // An unpriced message gets token counts but no invented price.
        if let Some(usd) = usd {
            m.cost = Some(record(&t, usd));
        }
    }

    /// Fill each message's `tokenUsage` and `cost`, as `get` has them (`price_session`).
    pub fn price_messages(&self, session: &mut Session) {
        let model = session.summary.model.clone();
        for m in &mut session.messages {
            self.price_message(m, model.as_deref());
        }
    }
}

/// Fill `cost`, `tags` and `run_count` on summaries (list, search).
pub fn apply_to_summaries(ctx: &Context, summaries: &mut [SessionSummary]) {
    Pricer::new(ctx).apply(summaries, false);
}

/// Fill per-message `tokenUsage`/`cost` and the session's `cost`, tags and run count (get).
pub fn price_session(ctx: &Context, session: &mut Session) {
    let pricer = Pricer::new(ctx);
    let model = session.summary.model.clone();
    for m in &mut session.messages {
        pricer.price_message(m, model.as_deref());
    }
    pricer.apply(std::slice::from_mut(&mut session.summary), false);
}

/// An unmatched run passes the filters on its own fields (timestamp, model, tags; it has no cwd).
fn run_matches(r: &Run, f: &Filters) -> bool {
    if f.since.is_some_and(|t| r.timestamp < t) || f.until.is_some_and(|t| r.timestamp > t) {
        return false;
    }
    if f.model
        .as_ref()
        .is_some_and(|m| r.model.as_ref() != Some(m))
        || f.cwd.is_some()
    {
        return false;
    }
    match &f.tags {
        Some(tags) if !tags.is_empty() => tags.iter().any(|t| r.tags.contains(t)),
        _ => true,
    }
}

#[derive(Default)]
struct Totals {
    usd: f64,
    tokens: Tokens,
    sessions: u64,
}

/// What one group gets of a part: (key, tokens, usd).
type Share = (String, Tokens, f64);

/// A part's shares by local period: each piece in the period it was spent in (`start` when
/// unknown).
fn period_shares(days: &day::LocalDays, period: Period, p: &Part, start: &Timestamp) -> Vec<Share> {
    if p.pieces.is_empty() {
        return vec![(period.key(days, start), p.tokens, p.usd)];
    }
    p.pieces
        .iter()
        .map(|x| {
            (
                period.key(days, x.at.as_ref().unwrap_or(start)),
                x.tokens,
                x.usd,
            )
        })
        .collect()
}

/// The calendar period a grouping is by, if it is by one.
fn period_of(opts: &CostOptions) -> Option<Period> {
    match opts.group_by? {
        GroupBy::Day => Some(Period::Day),
        GroupBy::Week => Some(Period::Week(
            opts.start_of_week.unwrap_or(chrono::Weekday::Sun),
        )),
        GroupBy::Month => Some(Period::Month),
        _ => None,
    }
}

/// `totalCost`: `summaries` are every session of the targeted agents, unpriced and unfiltered
/// (unfiltered so that a run is only "unmatched" when its session truly is not on disk).
pub fn total_cost(
    ctx: &Context,
    mut summaries: Vec<SessionSummary>,
    opts: &CostOptions,
) -> CostSummary {
    let pricer = Pricer::new(ctx);
    let by_period = period_of(opts);
    let priced = pricer.apply(&mut summaries, by_period.is_some());
    let known: HashSet<(&str, &str)> = summaries
        .iter()
        .map(|s| (s.agent.as_str(), s.session_id.as_str()))
        .collect();
    let days = by_period.map(|p| (day::LocalDays::new(&ctx.env), p));

    let mut out = CostSummary::default();
    let mut groups: BTreeMap<String, Totals> = BTreeMap::new();
    let mut unpriced: BTreeSet<String> = BTreeSet::new();
    let mut add =
        |parts: &[Part], shares: &dyn Fn(&Part) -> Vec<Share>, runs: u64, is_session: bool| {
            let mut seen: BTreeSet<String> = BTreeSet::new();
            for p in parts {
                out.total_usd += p.usd;
                out.input_tokens += p.tokens.input;
                out.output_tokens += p.tokens.output;
                out.thinking_tokens += p.tokens.reasoning;
                out.cached_tokens += p.tokens.cache_read;
                out.cache_write_tokens += p.tokens.cache_write;
                if opts.group_by.is_some() {
                    for (k, tokens, usd) in shares(p) {
                        let g = groups.entry(k.clone()).or_default();
                        g.usd += usd;
                        g.tokens.add(&tokens);
                        seen.insert(k);
                    }
                }
            }
            if is_session {
                out.session_count += 1;
                for k in seen {
                    groups.entry(k).or_default().sessions += 1;
                }
            }
            out.run_count += runs;
        };

    for (s, p) in summaries.iter().zip(&priced) {
        let other_agent = opts.agent.as_ref().is_some_and(|a| &s.agent != a);
        if other_agent || !selection::matches(s, &opts.filters) {
            continue;
        }
        unpriced.extend(p.unpriced.iter().cloned());
        let shares = |part: &Part| -> Vec<Share> {
            let whole = |key: &String| (key.clone(), part.tokens, part.usd);
            match (opts.group_by, &days) {
                (_, Some((days, p))) => period_shares(days, *p, part, &s.created_at),
                (Some(GroupBy::Agent), _) => vec![whole(&s.agent)],
                (Some(GroupBy::Model), _) => vec![whole(&part.model.trim().to_string())],
                (Some(GroupBy::Tag), _) if s.tags.is_empty() => vec![whole(&String::new())],
                (Some(GroupBy::Tag), _) => s.tags.iter().map(whole).collect(),
                (Some(GroupBy::Session), _) => vec![whole(&s.unified_id)],
                (Some(GroupBy::Project), _) => {
                    vec![whole(
                        &s.project
                            .clone()
                            .or_else(|| s.cwd.clone())
                            .unwrap_or_default(),
                    )]
                }
                _ => Vec::new(),
            }
        };
        // A session with no usage at all still counts in its group.
        let parts = if p.parts.is_empty() {
            vec![Part {
                model: s.model.clone().unwrap_or_default(),
                tokens: Tokens::default(),
                usd: 0.0,
                pieces: Vec::new(),
            }]
        } else {
            p.parts.clone()
        };
        add(&parts, &shares, s.run_count.max(1), true);
    }

    for r in &pricer.runs.runs {
        let matched = r
            .session_id
            .as_deref()
            .is_some_and(|id| known.contains(&(r.agent.as_str(), id)));
        let targeted = opts.agent.as_ref().is_none_or(|a| &r.agent == a);
        if matched || !targeted || !run_matches(r, &opts.filters) {
            continue;
        }
        let part = Part {
            model: r.model.clone().unwrap_or_default(),
            tokens: r.cost.as_ref().map(tokens_of).unwrap_or_default(),
            usd: r.cost.as_ref().map(|c| c.total_usd).unwrap_or(0.0),
            pieces: Vec::new(),
        };
        let shares = |part: &Part| -> Vec<Share> {
            let whole = |key: &String| (key.clone(), part.tokens, part.usd);
            match (opts.group_by, &days) {
                (_, Some((days, p))) => period_shares(days, *p, part, &r.timestamp),
                (Some(GroupBy::Agent), _) => vec![whole(&r.agent)],
                (Some(GroupBy::Model), _) => vec![whole(&part.model)],
                (Some(GroupBy::Tag), _) if r.tags.is_empty() => vec![whole(&String::new())],
                (Some(GroupBy::Tag), _) => r.tags.iter().map(whole).collect(),
                // A run whose session is gone: under its session's id, which no session has.
                (Some(GroupBy::Session), _) => {
                    let id = r.session_id.as_deref().unwrap_or(&r.run_id);
                    vec![whole(&crate::ids::unified_id(&r.agent, id))]
                }
                (Some(GroupBy::Project), _) => vec![whole(&String::new())],
                _ => Vec::new(),
            }
        };
        add(&[part], &shares, 1, false);
    }

    if opts.group_by.is_some() {
        out.breakdowns = Some(
            groups
                .into_iter()
                .map(|(key, t)| {
                    let b = CostBreakdown {
                        key: key.clone(),
                        total_usd: t.usd,
                        input_tokens: t.tokens.input,
                        output_tokens: t.tokens.output,
                        thinking_tokens: t.tokens.reasoning,
                        cached_tokens: t.tokens.cache_read,
                        cache_write_tokens: t.tokens.cache_write,
                        session_count: t.sessions,
                    };
                    (key, b)
                })
                .collect(),
        );
    }
    if !unpriced.is_empty() {
        out.unpriced_models = Some(unpriced.into_iter().collect());
    }
    out
}
