//! `list` and `listAll` from a team database: the local list's filters and orders in SQL, cut
//! by the server.
use super::filters::{sessions_where, Params};
use super::rows::{summary, SUMMARY_COLUMNS};
use super::Team;
use crate::env::Env;
use crate::error::Result;
use crate::model::SessionSummary;
use crate::options::{Direction, ListOptions, ListSort};

/// The sessions `opts` asks for, of `agent` or of every agent, ordered as the local list orders
/// them (then by machine, which the local list has no need of).
pub fn list(
    team: &Team,
    env: &Env,
    agent: Option<&str>,
    opts: &ListOptions,
) -> Result<Vec<SessionSummary>> {
    let mut p = Params::default();
    let filter = sessions_where(&opts.filters, agent, &mut p);
    let field = match opts.sort {
        ListSort::Date => "s.updated_at",
        ListSort::Cost => "coalesce(s.cost_usd, 0)",
        ListSort::Turns => "s.turn_count",
    };
    let dir = match opts.direction {
        Direction::Asc => "ASC",
        Direction::Desc => "DESC",
    };
    let limit = p.add(opts.limit as i64);
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS} FROM sessions s WHERE {filter} \
         ORDER BY {field} {dir}, s.unified_id, s.machine LIMIT {limit}"
    );
    let rows = team.with(env, |c| c.query(&sql, &p.refs()))?;
    Ok(rows.iter().map(summary).collect())
}
