//! Cost: sources in the spec's priority order (the agent's own cost, the run index, estimation
//! from tokens with a price table). First version: the agent's own cost only.
use serde::Serialize;
use std::collections::BTreeMap;

use crate::context::Context;
use crate::model::{CostRecord, Message, Session, SessionSummary, TokenUsage, Tokens};
use crate::options::CostOptions;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostBreakdown {
    pub key: String,
    pub total_usd: f64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub thinking_tokens: u64,
    pub cached_tokens: u64,
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
    pub session_count: u64,
    pub run_count: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakdowns: Option<BTreeMap<String, CostBreakdown>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unpriced_models: Option<Vec<String>>,
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

/// Fill `cost` (and, later, tags and run counts) on summaries.
pub fn apply_to_summaries(_ctx: &Context, summaries: &mut [SessionSummary]) {
    for s in summaries {
        if s.usage.is_empty() {
            continue;
        }
        let mut tokens = Tokens::default();
        let mut usd = 0.0;
        for u in &s.usage {
            tokens.add(&u.tokens);
            usd += u.native_cost_usd.unwrap_or(0.0);
        }
        s.cost = Some(record(&tokens, usd));
    }
}

fn price_message(m: &mut Message) {
    if let Some(t) = &m.tokens {
        m.token_usage = Some(TokenUsage {
            input_tokens: t.input,
            output_tokens: t.output,
            thinking_tokens: (t.reasoning > 0).then_some(t.reasoning),
            cached_tokens: (t.cache_read > 0).then_some(t.cache_read),
        });
        m.cost = Some(record(t, m.native_cost_usd.unwrap_or(0.0)));
    }
}

/// Fill per-message `tokenUsage`/`cost` and the session's `cost`.
pub fn price_session(ctx: &Context, session: &mut Session) {
    session.messages.iter_mut().for_each(price_message);
    apply_to_summaries(ctx, std::slice::from_mut(&mut session.summary));
}

/// Aggregate priced summaries that already passed the filters.
pub fn aggregate(summaries: &[SessionSummary], _opts: &CostOptions) -> CostSummary {
    let mut out = CostSummary::default();
    for s in summaries {
        out.session_count += 1;
        if let Some(c) = &s.cost {
            out.total_usd += c.total_usd;
            out.input_tokens += c.input_tokens;
            out.output_tokens += c.output_tokens;
            out.thinking_tokens += c.thinking_tokens.unwrap_or(0);
            out.cached_tokens += c.cached_tokens.unwrap_or(0);
        }
    }
    out
}
