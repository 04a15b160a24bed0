//! One session rebuilt from a team database: its summary row and its messages' JSON, which the
//! sync stored as the core serialises a `Message`, so each comes back as it was (priced; redacted
//! when the sync redacted). `raw`, the agent's native records, is not synced: a team `get` has none.
use super::rows::{summary, SUMMARY_COLUMNS};
use super::Team;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::model::{Message, Session, SessionSummary};

/// The summary of `agent`'s session `id`: on `machine` when given, else the one updated last (the
/// same id synced from two machines, such as two copies of one home, is two rows).
pub fn find(
    team: &Team,
    env: &Env,
    agent: &str,
    id: &str,
    machine: Option<&str>,
) -> Result<SessionSummary> {
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS} FROM sessions s WHERE s.agent = $1 AND s.session_id = $2 \
         AND ($3::text IS NULL OR s.machine = $3) ORDER BY s.updated_at DESC, s.machine LIMIT 1"
    );
    let machine = machine.map(str::to_string);
    let row = team.with(env, |c| c.query_opt(&sql, &[&agent, &id, &machine]))?;
    row.map(|r| summary(&r)).ok_or_else(|| match machine {
        Some(m) => Error::session_not_found(agent, &format!("{id}' on machine '{m}")),
        None => Error::session_not_found(agent, id),
    })
}

/// The whole session: `find`'s summary and every message, in order.
pub fn get(
    team: &Team,
    env: &Env,
    agent: &str,
    id: &str,
    machine: Option<&str>,
) -> Result<Session> {
    let summary = find(team, env, agent, id, machine)?;
    let rows = team.with(env, |c| {
        c.query(
            "SELECT message::text FROM messages WHERE machine = $1 AND unified_id = $2 ORDER BY idx",
            &[&summary.machine, &summary.unified_id],
        )
    })?;
    let messages = rows
        .iter()
        .map(|r| {
            let text: &str = r.get(0);
            serde_json::from_str::<Message>(text).map_err(|e| {
                Error::parse(
                    format!("the team database's message of {}", summary.unified_id),
                    e,
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Session {
        summary,
        messages,
        raw: None,
    })
}
