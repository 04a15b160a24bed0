//! Session rows → summaries, in one statement per database: the `sessions` row, an aggregate of
//! its visible messages (roles in order, last timestamp), the first user message when there is no
//! title, and its `session_model_usage` rows.
use rusqlite::{Connection, Row};
use serde_json::Value;

use crate::model::{
    add_total, count_turns, from_epoch_guess, merge_usage, truncate_title, Role, SessionSummary,
    Tokens,
};
use crate::read::sqlite::{
    cell_f64, cell_string, cell_u64, col_or_null, columns, has_table, row_to_json,
};

use super::content::decode_content;
use super::AGENT;

/// What this database's schema version has, probed once per open.
pub struct Schema {
    pub session_cols: Vec<String>,
    pub message_cols: Vec<String>,
    /// `session_model_usage` with its `task` column (v22+; v20–21 have no `task`).
    pub usage_table: bool,
    pub usage_has_task: bool,
}

impl Schema {
    pub fn probe(conn: &Connection) -> Schema {
        let usage_cols = columns(conn, "session_model_usage");
        Schema {
            session_cols: columns(conn, "sessions"),
            message_cols: columns(conn, "messages"),
            usage_table: has_table(conn, "session_model_usage") && !usage_cols.is_empty(),
            usage_has_task: usage_cols.iter().any(|c| c == "task"),
        }
    }

    fn has_msg(&self, c: &str) -> bool {
        self.message_cols.iter().any(|x| x == c)
    }

    /// SQL condition for the messages a reader shows: live rows plus rows kept by an in-place
    /// compaction (`compacted=1`); rewound rows (`active=0, compacted=0`) and `display_kind =
    /// 'hidden'` rows (v30) are left out. Before the `active` column existed every row was live.
    pub fn visible(&self, alias: &str) -> String {
        let mut cond = match (self.has_msg("active"), self.has_msg("compacted")) {
            (true, true) => {
                format!("(COALESCE({alias}.active, 1) = 1 OR COALESCE({alias}.compacted, 0) = 1)")
            }
            (true, false) => format!("COALESCE({alias}.active, 1) = 1"),
            _ => "1".to_string(),
        };
        if self.has_msg("display_kind") {
            cond.push_str(&format!(
                " AND COALESCE({alias}.display_kind, '') <> 'hidden'"
            ));
        }
        cond
    }
}

const SESSION_COLUMNS: &[&str] = &[
    "id",
    "source",
    "title",
    "started_at",
    "ended_at",
    "last_activity_at",
    "model",
    "model_config",
    "cwd",
    "parent_session_id",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "estimated_cost_usd",
    "actual_cost_usd",
    "cost_status",
];

fn sql(schema: &Schema, only: bool) -> String {
    let cols: Vec<String> = SESSION_COLUMNS
        .iter()
        .map(|c| format!("{} AS \"{c}\"", col_or_null(&schema.session_cols, "s", c)))
        .collect();
    let visible = schema.visible("m");
    let usage = if schema.usage_table {
        let task = if schema.usage_has_task {
            "u.task"
        } else {
            "''"
        };
        format!(
            "(SELECT json_group_array(json_array(u.model, {task}, u.input_tokens, u.output_tokens, \
             u.cache_read_tokens, u.cache_write_tokens, u.reasoning_tokens, u.estimated_cost_usd, \
             u.actual_cost_usd, u.cost_status)) FROM session_model_usage u WHERE u.session_id = s.id)"
        )
    } else {
        "NULL".to_string()
    };
    let filter = if only { "WHERE s.id = ?1" } else { "" };
    // Read beside the row, not as part of it: `raw` keeps the columns it has always had.
    let branch = col_or_null(&schema.session_cols, "s", "git_branch");
    format!(
        "SELECT {cols}, {branch} AS agg_git_branch, agg.roles AS agg_roles, agg.last_ts AS agg_last_ts, \
           CASE WHEN s.title IS NULL OR s.title = '' THEN \
             (SELECT m.content FROM messages m WHERE m.session_id = s.id AND m.role = 'user' \
              AND {visible} ORDER BY m.id LIMIT 1) END AS first_user, \
           {usage} AS usage_rows \
         FROM sessions s LEFT JOIN ( \
           SELECT m.session_id, group_concat(substr(m.role, 1, 1), '' ORDER BY m.id) AS roles, \
                  max(m.timestamp) AS last_ts \
           FROM messages m WHERE {visible} {mfilter} GROUP BY m.session_id \
         ) agg ON agg.session_id = s.id {filter} ORDER BY s.id",
        cols = cols.join(", "),
        mfilter = if only { "AND m.session_id = ?1" } else { "" },
    )
}

/// Summaries (with the session row as `raw`) of every session, or of the one with id `only`.
pub fn query(
    conn: &Connection,
    schema: &Schema,
    only: Option<&str>,
) -> rusqlite::Result<Vec<(SessionSummary, Value)>> {
    let mut stmt = conn.prepare(&sql(schema, only.is_some()))?;
    let mut rows = match only {
        Some(id) => stmt.query([id])?,
        None => stmt.query([])?,
    };
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        if let Some(s) = summarise(row)? {
            out.push(s);
        }
    }
    Ok(out)
}

fn text(row: &Row<'_>, name: &str) -> rusqlite::Result<Option<String>> {
    Ok(cell_string(row.get_ref(name)?).filter(|s| !s.is_empty()))
}

fn float(row: &Row<'_>, name: &str) -> rusqlite::Result<Option<f64>> {
    Ok(cell_f64(row.get_ref(name)?))
}

fn summarise(row: &Row<'_>) -> rusqlite::Result<Option<(SessionSummary, Value)>> {
    let Some(id) = text(row, "id")? else {
        return Ok(None);
    };
    let started = float(row, "started_at")?.and_then(from_epoch_guess);
    // Recency: the latest of the last message, the end and the activity heartbeat.
    let latest = [
        float(row, "agg_last_ts")?,
        float(row, "ended_at")?,
        float(row, "last_activity_at")?,
    ]
    .into_iter()
    .flatten()
    .filter_map(from_epoch_guess)
    .max();
    let created = started.or(latest).unwrap_or_default();
    let updated = latest.map_or(created, |l| l.max(created));
    let mut s = SessionSummary::new(AGENT, &id, created, updated);

    let model_config: Option<Value> =
        text(row, "model_config")?.and_then(|c| serde_json::from_str(&c).ok());
    let from_config = |key: &str| {
        model_config
            .as_ref()
            .and_then(|c| c.get(key))
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    s.title = match text(row, "title")? {
        Some(t) => t,
        None => text(row, "first_user")?
            .map(|c| truncate_title(&decode_content(&c), 100))
            .unwrap_or_default(),
    };
    s.model = text(row, "model")?;
    // ACP sessions keep their cwd in model_config, not in the column.
    s.cwd = text(row, "cwd")?.or_else(|| from_config("cwd"));
    s.git_branch = text(row, "agg_git_branch")?;
    s.forked_from = text(row, "parent_session_id")?
        .or_else(|| from_config("_branched_from"))
        .or_else(|| from_config("_delegate_from"))
        .or_else(|| from_config("_reset_from"));

    let roles: Vec<Role> = text(row, "agg_roles")?
        .unwrap_or_default()
        .chars()
        .filter_map(role_of_initial)
        .collect();
    s.message_count = roles.len() as u64;
    s.turn_count = count_turns(roles.into_iter());
    s.usage = usage(row, s.model.as_deref().unwrap_or(""))?;

    let mut raw = row_to_json(row);
    if let Some(o) = raw.as_object_mut() {
        for k in [
            "agg_git_branch",
            "agg_roles",
            "agg_last_ts",
            "first_user",
            "usage_rows",
        ] {
            o.remove(k);
        }
    }
    Ok(Some((s, serde_json::json!({ "session": raw }))))
}

fn role_of_initial(c: char) -> Option<Role> {
    match c {
        'u' => Some(Role::User),
        'a' => Some(Role::Assistant),
        's' => Some(Role::System),
        't' => Some(Role::Tool),
        _ => None,
    }
}

/// Hermes' own cost: `actual_cost_usd` when recorded, else `estimated_cost_usd`; none when the
/// status says the price is unknown.
fn native_cost(actual: Option<f64>, estimated: Option<f64>, status: Option<&str>) -> Option<f64> {
    if status == Some("unknown") {
        return None;
    }
    actual.filter(|a| *a > 0.0).or(estimated).or(actual)
}

/// Per-model usage. The main loop's totals are per model in `session_model_usage` rows with
/// `task = ''` (which sum to the `sessions` columns), else in the `sessions` columns under the
/// session's model; auxiliary rows (`task <> ''`: titles, vision, compression…) are not in the
/// `sessions` totals and are added on top, as Hermes' own insights do.
fn usage(row: &Row<'_>, session_model: &str) -> rusqlite::Result<Vec<crate::model::ModelUsage>> {
    let rows: Vec<Value> = text(row, "usage_rows")?
        .and_then(|j| serde_json::from_str(&j).ok())
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut main_rows = false;
    for r in &rows {
        let Some(a) = r.as_array() else { continue };
        let num = |i: usize| a.get(i).and_then(Value::as_f64);
        let count = |i: usize| num(i).filter(|v| *v > 0.0).unwrap_or(0.0) as u64;
        let tokens = Tokens {
            input: count(2),
            output: count(3),
            cache_read: count(4),
            cache_write: count(5),
            reasoning: count(6),
            ..Default::default()
        };
        let status = a.get(9).and_then(Value::as_str);
        let model = a.first().and_then(Value::as_str).unwrap_or("");
        main_rows |= a.get(1).and_then(Value::as_str) == Some("");
        // Per-model totals over the session: no prompt sizes, so no long-prompt band.
        add_total(
            &mut out,
            model,
            &tokens,
            native_cost(num(8), num(7), status),
        );
    }
    if main_rows {
        return Ok(out);
    }
    // No per-model main-loop rows: the session columns carry the main loop.
    let tokens = Tokens {
        input: cell_u64(row.get_ref("input_tokens")?),
        output: cell_u64(row.get_ref("output_tokens")?),
        cache_read: cell_u64(row.get_ref("cache_read_tokens")?),
        cache_write: cell_u64(row.get_ref("cache_write_tokens")?),
        reasoning: cell_u64(row.get_ref("reasoning_tokens")?),
        ..Default::default()
    };
    let cost = native_cost(
        float(row, "actual_cost_usd")?,
        float(row, "estimated_cost_usd")?,
        text(row, "cost_status")?.as_deref(),
    );
    if !tokens.is_zero() || cost.is_some() {
        let mut main = Vec::new();
        add_total(&mut main, session_model, &tokens, cost);
        for u in &out {
            merge_usage(&mut main, u);
        }
        return Ok(main);
    }
    Ok(out)
}
