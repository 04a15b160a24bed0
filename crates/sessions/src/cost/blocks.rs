//! Claude's 5-hour billing blocks, as ccusage finds them: requests in time order; a block starts
//! at the hour its first request falls in and takes every request until one comes more than 5
//! hours after the block's start or after the request before it; a silence longer than 5 hours
//! between two blocks is a gap block (from 5 hours after the last request to the next one). A
//! block is active while its 5 hours are not over and its last request is less than 5 hours ago;
//! the active block gets a burn rate (over the time between its first and last request) and a
//! projection of where that rate leads by the block's end.
use serde::Serialize;

use super::day::LocalDays;
use super::report::{window, zone, ModelBreakdown};
use super::Pricer;
use crate::context::Context;
use crate::error::Result;
use crate::model::{to_iso, SessionSummary, Timestamp};
use crate::options::{BlocksOptions, Direction, TokenLimit};

const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;
/// `recent`: blocks that started in the last three days.
const RECENT_DAYS: i64 = 3;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenCounts {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BurnRate {
    pub tokens_per_minute: f64,
    /// Input and output only: what the statusline's indicator follows.
    pub tokens_per_minute_for_indicator: f64,
    pub cost_per_hour: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Projection {
    pub total_tokens: u64,
    pub total_cost: f64,
    pub remaining_minutes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LimitStatus {
    pub limit: u64,
    pub projected_usage: u64,
    pub percent_used: f64,
    /// "ok", "warning" (past 80%) or "exceeds".
    pub status: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Block {
    pub id: String,
    pub start_time: String,
    pub end_time: String,
    pub actual_end_time: Option<String>,
    pub is_active: bool,
    pub is_gap: bool,
    pub entries: u64,
    pub token_counts: TokenCounts,
    pub total_tokens: u64,
    #[serde(rename = "costUSD")]
    pub cost_usd: f64,
    pub models: Vec<String>,
    /// Beyond ccusage's JSON (its table's `--breakdown`): each model's share, costliest first.
    pub model_breakdowns: Vec<ModelBreakdown>,
    pub burn_rate: Option<BurnRate>,
    pub projection: Option<Projection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_limit_status: Option<LimitStatus>,
    /// Beyond ccusage: the sessions with requests in the block.
    pub session_count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Blocks {
    pub blocks: Vec<Block>,
}

/// One priced request, kept small: a home holds hundreds of thousands.
struct Entry {
    /// Milliseconds since the epoch (what agents record).
    at: i64,
    usd: f64,
    /// Input, output (reasoning included), cache writes, cache reads.
    tokens: [u32; 4],
    session: u32,
    /// Index into `BlocksBuilder::models`.
    model: u16,
}

impl Entry {
    fn total(&self) -> u64 {
        self.tokens.iter().map(|&n| n as u64).sum()
    }

    fn time(&self) -> Timestamp {
        Timestamp::from_timestamp_millis(self.at).unwrap_or_default()
    }
}

/// A block being found, before it is written out.
struct Found {
    start: Timestamp,
    end: Timestamp,
    /// `entries[from..to]` of the requests in time order.
    from: usize,
    to: usize,
    last: Option<Timestamp>,
    gap: bool,
}

impl Found {
    fn active(&self, now: Option<Timestamp>, length: chrono::Duration) -> bool {
        match (now, self.last) {
            (Some(now), Some(last)) => !self.gap && now - last < length && now < self.end,
            _ => false,
        }
    }
}

fn floor_to_hour(t: Timestamp) -> Timestamp {
    let ms = t.timestamp_millis();
    Timestamp::from_timestamp_millis(ms - ms.rem_euclid(HOUR_MS)).unwrap_or(t)
}

/// A token count of one request as stored (no request comes near 4 billion tokens).
fn small(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Blocks being found: Claude's sessions are added one at a time and only their requests kept.
pub struct BlocksBuilder {
    opts: BlocksOptions,
    zone: LocalDays,
    pricer: Pricer,
    now: Option<Timestamp>,
    entries: Vec<Entry>,
    /// Each model met, with the agent that used it: (agent, model).
    models: Vec<(String, String)>,
    sessions: u32,
}

impl BlocksBuilder {
    pub fn new(ctx: &Context, opts: &BlocksOptions) -> Result<Self> {
        Ok(BlocksBuilder {
            opts: opts.clone(),
            zone: zone(ctx, opts.timezone.as_deref())?,
            pricer: Pricer::new(ctx),
            now: ctx.env.now(),
            entries: Vec::new(),
            models: Vec::new(),
            sessions: 0,
        })
    }

    /// Room for `n` more requests (what the sessions to come hold), made once.
    pub fn reserve(&mut self, n: usize) {
        self.entries.reserve_exact(n);
    }

    /// Add a session (as `dedupe::Replays` keeps it).
    pub fn add(&mut self, s: SessionSummary) {
        if (self.opts.project.as_ref()).is_some_and(|p| !p.matches(s.project.as_deref()))
            || !crate::selection::archived_matches(&s, self.opts.archived)
        {
            return;
        }
        let session = self.sessions;
        self.sessions += 1;
        for r in &s.requests {
            let name = s.usage.get(r.model).map_or("", |u| u.model.as_str());
            let known = (self.models.iter()).position(|m| m.0 == s.agent && m.1 == name);
            let model = match known {
                Some(i) => i,
                None => {
                    self.models.push((s.agent.clone(), name.to_string()));
                    self.models.len() - 1
                }
            };
            let model = u16::try_from(model).unwrap_or(u16::MAX);
            let t = &r.tokens;
            self.entries.push(Entry {
                at: r.at.timestamp_millis(),
                tokens: [
                    small(t.input),
                    small(t.output + t.reasoning),
                    small(t.cache_write),
                    small(t.cache_read),
                ],
                usd: self.pricer.request_usd(&s, r),
                model,
                session,
            });
        }
    }

    pub fn finish(mut self) -> Blocks {
        let opts = &self.opts;
        let length =
            chrono::Duration::milliseconds((opts.session_length_hours * HOUR_MS as f64) as i64);
        let now = self.now;
        let entries = &mut self.entries;
        // In place (a stable sort would take half as much again); ties in the order added.
        entries.sort_unstable_by_key(|e| (e.at, e.session));

        let mut found: Vec<Found> = Vec::new();
        let mut current: Option<Found> = None;
        for (i, e) in entries.iter().enumerate() {
            let at = e.time();
            if let Some(b) = current.as_mut() {
                let last = b.last.unwrap_or(b.start);
                if at - b.start > length || at - last > length {
                    found.extend(current.take());
                    if at - last > length {
                        found.push(Found {
                            start: last + length,
                            end: at,
                            from: i,
                            to: i,
                            last: None,
                            gap: true,
                        });
                    }
                }
            }
            let b = current.get_or_insert_with(|| {
                let start = floor_to_hour(at);
                Found {
                    start,
                    end: start + length,
                    from: i,
                    to: i,
                    last: None,
                    gap: false,
                }
            });
            b.to = i + 1;
            b.last = Some(at);
        }
        found.extend(current);

        let range = window(&self.zone, opts.since, opts.until);
        // As ccusage: a block is in range when it starts in it (a bare date: on that local day).
        found.retain(|b| {
            range.0.is_none_or(|s| b.start >= s) && range.1.is_none_or(|u| b.start <= u)
        });
        // As ccusage: 'max' is the most a past block in range used, before --recent or --active
        // leave only some of them.
        let entries = &self.entries;
        let total = |b: &Found| entries[b.from..b.to].iter().map(Entry::total).sum::<u64>();
        let max_tokens = (found.iter())
            .filter(|b| !b.gap && !b.active(now, length))
            .map(total)
            .max()
            .unwrap_or(0);
        if opts.order == Some(Direction::Desc) {
            found.reverse();
        }
        if opts.recent {
            let cutoff = now.map(|n| n - chrono::Duration::days(RECENT_DAYS));
            found.retain(|b| cutoff.is_none_or(|c| b.start >= c) || b.active(now, length));
        }
        if opts.active {
            found.retain(|b| b.active(now, length));
        }
        let limit = match opts.token_limit {
            Some(TokenLimit::Tokens(n)) => Some(n),
            Some(TokenLimit::Max) => (max_tokens > 0).then_some(max_tokens),
            None => None,
        };
        let blocks = (found.iter())
            .map(|b| write_block(b, &entries[b.from..b.to], &self.models, now, length, limit))
            .collect();
        Blocks { blocks }
    }
}

fn write_block(
    b: &Found,
    entries: &[Entry],
    models: &[(String, String)],
    now: Option<Timestamp>,
    length: chrono::Duration,
    limit: Option<u64>,
) -> Block {
    let mut t = [0u64; 4];
    let mut usd = 0.0;
    // Per model (in order of first use): tokens and cost.
    let mut names: Vec<(u16, [u64; 4], f64)> = Vec::new();
    let mut sessions: Vec<u32> = Vec::new();
    for e in entries {
        for (sum, n) in t.iter_mut().zip(e.tokens) {
            *sum += n as u64;
        }
        usd += e.usd;
        if !models[e.model as usize].1.is_empty() {
            let i = match names.iter().position(|m| m.0 == e.model) {
                Some(i) => i,
                None => {
                    names.push((e.model, [0; 4], 0.0));
                    names.len() - 1
                }
            };
            for (sum, n) in names[i].1.iter_mut().zip(e.tokens) {
                *sum += n as u64;
            }
            names[i].2 += e.usd;
        }
        sessions.push(e.session);
    }
    let mut model_breakdowns: Vec<ModelBreakdown> = (names.iter())
        .map(|&(m, t, cost)| ModelBreakdown {
            model_name: models[m as usize].1.clone(),
            agent: models[m as usize].0.clone(),
            input_tokens: t[0],
            output_tokens: t[1],
            cache_creation_tokens: t[2],
            cache_read_tokens: t[3],
            thinking_tokens: 0,
            cost,
        })
        .collect();
    model_breakdowns.sort_by(|a, b| b.cost.total_cmp(&a.cost));
    sessions.sort_unstable();
    sessions.dedup();
    let total: u64 = t.iter().sum();
    let active = b.active(now, length);
    let burn_rate = if active {
        burn_rate(entries, &t, usd)
    } else {
        None
    };
    let projection = match (burn_rate, now) {
        (Some(rate), Some(now)) => {
            let remaining = ((b.end - now).num_milliseconds() as f64 / MINUTE_MS as f64).round();
            let tokens = total as f64 + rate.tokens_per_minute * remaining;
            let cost = usd + rate.cost_per_hour / 60.0 * remaining;
            Some(Projection {
                total_tokens: tokens.round() as u64,
                total_cost: (cost * 100.0).round() / 100.0,
                remaining_minutes: remaining.max(0.0) as u64,
            })
        }
        _ => None,
    };
    let token_limit_status = projection.zip(limit).map(|(p, limit)| {
        let projected = p.total_tokens;
        LimitStatus {
            limit,
            projected_usage: projected,
            percent_used: projected as f64 / limit as f64 * 100.0,
            status: if projected > limit {
                "exceeds"
            } else if projected as f64 > limit as f64 * 0.8 {
                "warning"
            } else {
                "ok"
            },
        }
    });
    let id = to_iso(&b.start);
    Block {
        id: if b.gap { format!("gap-{id}") } else { id },
        start_time: to_iso(&b.start),
        end_time: to_iso(&b.end),
        actual_end_time: b.last.map(|t| to_iso(&t)),
        is_active: active,
        is_gap: b.gap,
        entries: entries.len() as u64,
        token_counts: TokenCounts {
            input_tokens: t[0],
            output_tokens: t[1],
            cache_creation_input_tokens: t[2],
            cache_read_input_tokens: t[3],
        },
        total_tokens: total,
        cost_usd: usd,
        models: names
            .iter()
            .map(|m| models[m.0 as usize].1.clone())
            .collect(),
        model_breakdowns,
        burn_rate,
        projection,
        token_limit_status,
        session_count: sessions.len() as u64,
    }
}

/// Tokens and cost per time between the block's first and last request.
fn burn_rate(entries: &[Entry], t: &[u64; 4], usd: f64) -> Option<BurnRate> {
    let (first, last) = (entries.first()?.at, entries.last()?.at);
    let minutes = (last - first) as f64 / MINUTE_MS as f64;
    if minutes <= 0.0 {
        return None;
    }
    Some(BurnRate {
        tokens_per_minute: t.iter().sum::<u64>() as f64 / minutes,
        tokens_per_minute_for_indicator: (t[0] + t[1]) as f64 / minutes,
        cost_per_hour: usd / minutes * 60.0,
    })
}
