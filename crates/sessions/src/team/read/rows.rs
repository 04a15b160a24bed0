//! A `sessions` row as the model's `SessionSummary`.
use postgres::Row;

use crate::model::{CostRecord, SessionSummary, Timestamp};

/// The columns `summary` reads, in its order, for a `sessions` table aliased `s`.
pub(crate) const SUMMARY_COLUMNS: &str = "s.machine, s.os_user, s.agent, s.session_id, \
    s.unified_id, s.title, (extract(epoch FROM s.created_at) * 1000)::float8, \
    (extract(epoch FROM s.updated_at) * 1000)::float8, s.turn_count, s.message_count, s.model, \
    s.cwd, s.git_branch, s.forked_from, s.tags, s.archived, s.cost_usd, s.input_tokens, \
    s.output_tokens, s.thinking_tokens, s.cached_tokens, s.cache_write_tokens";

/// How many columns `SUMMARY_COLUMNS` holds: a query's own columns come after them.
pub(crate) const SUMMARY_WIDTH: usize = 22;

fn moment(ms: f64) -> Timestamp {
    chrono::DateTime::from_timestamp_millis(ms.round() as i64).unwrap_or_default()
}

fn count(v: Option<i64>) -> Option<u64> {
    v.map(|n| n.max(0) as u64)
}

/// The summary of a row selected with `SUMMARY_COLUMNS` first.
pub(crate) fn summary(r: &Row) -> SessionSummary {
    let mut s = SessionSummary::new(
        &r.get::<_, String>(2),
        &r.get::<_, String>(3),
        moment(r.get(6)),
        moment(r.get(7)),
    );
    s.machine = Some(r.get(0));
    s.user = Some(r.get(1));
    s.unified_id = r.get(4);
    s.title = r.get(5);
    s.turn_count = r.get::<_, i64>(8).max(0) as u64;
    s.message_count = r.get::<_, i64>(9).max(0) as u64;
    s.model = r.get(10);
    s.cwd = r.get(11);
    s.git_branch = r.get(12);
    s.forked_from = r.get(13);
    s.tags = r.get(14);
    s.archived = r.get(15);
    s.cost = r.get::<_, Option<f64>>(16).map(|usd| CostRecord {
        total_usd: usd,
        input_tokens: count(r.get(17)).unwrap_or(0),
        output_tokens: count(r.get(18)).unwrap_or(0),
        thinking_tokens: count(r.get(19)),
        cached_tokens: count(r.get(20)),
        cache_write_tokens: count(r.get(21)),
    });
    s
}
