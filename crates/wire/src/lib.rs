//! The JavaScript wire: the JSON the Node binding receives for each call, as `index.js` writes it
//! (option names as the API spells them, dates as epoch milliseconds, an invalid `Date` as the
//! string "Invalid Date"), made into the core's plain Rust options. Every problem is a
//! `VALIDATION_ERROR` naming the option. The options of `list`, `search` and `totalCost`
//! deserialize themselves (`options.rs`): here they are only read (`typed`) and their errors
//! named; the others are read by hand. The binding (`src/`) calls this crate, and the core's
//! tests write their options in the same shapes.
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

use agent_mux_sessions::context::{
    CacheSetting, ClientOptions, IndexUpdates, RetryPolicy, RunDefaults,
};
use agent_mux_sessions::cost::prices::price_overrides;
use agent_mux_sessions::error::{Error, Result, SPEC_ERROR_CODES};
use agent_mux_sessions::ids::is_built_in;
use agent_mux_sessions::model::Timestamp;
use agent_mux_sessions::options::{
    parse_date, weekday, Archived, BlocksOptions, Bound, CostOptions, Direction, ExportFormat,
    Grouping, ListOptions, Period, ReportOptions, SearchQuery, TokenLimit, TouchedOptions,
    MAX_LIMIT,
};
use agent_mux_sessions::read::project::Wanted;
use agent_mux_sessions::tsv::Cell;
use agent_mux_sessions::window::WindowOptions;

fn obj<'a>(v: &'a Value, what: &str) -> Result<Option<&'a Map<String, Value>>> {
    match v {
        Value::Null => Ok(None),
        Value::Object(m) => Ok(Some(m)),
        _ => Err(Error::validation(format!("{what} must be an object"))),
    }
}

fn opt_string(m: &Map<String, Value>, key: &str) -> Result<Option<String>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::validation(format!("{key} must be a string"))),
    }
}

/// `project`: an absolute directory (taken to its repository's project) or a project's name.
fn opt_project(m: &Map<String, Value>) -> Result<Option<Wanted>> {
    match opt_string(m, "project")? {
        None => Ok(None),
        Some(s) => Wanted::parse(&s).map(Some).ok_or_else(|| {
            Error::validation("project must be an absolute path or a project directory's name")
        }),
    }
}

fn opt_date(m: &Map<String, Value>, key: &str) -> Result<Option<Timestamp>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            let ms = n.as_f64().filter(|x| x.is_finite());
            let t = ms.and_then(|ms| chrono::DateTime::from_timestamp_millis(ms as i64));
            t.map(Some)
                .ok_or_else(|| Error::validation(format!("{key} must be a valid Date")))
        }
        Some(_) => Err(Error::validation(format!("{key} must be a valid Date"))),
    }
}

fn limit(m: &Map<String, Value>, default: usize) -> Result<usize> {
    match m.get("limit") {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 && x.fract() == 0.0 => {
                Ok((x.min(MAX_LIMIT as f64)) as usize)
            }
            Some(x) if x == f64::INFINITY => Ok(MAX_LIMIT),
            _ => Err(Error::validation(
                "limit must be a non-negative integer".to_string(),
            )),
        },
        Some(_) => Err(Error::validation("limit must be a non-negative integer")),
    }
}

fn choice<T: Copy>(
    m: &Map<String, Value>,
    key: &str,
    choices: &[(&str, T)],
    default: T,
) -> Result<T> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::String(s)) => choices
            .iter()
            .find(|(n, _)| n == s)
            .map(|(_, v)| *v)
            .ok_or_else(|| bad_choice(key, choices)),
        Some(_) => Err(bad_choice(key, choices)),
    }
}

fn bad_choice<T>(key: &str, choices: &[(&str, T)]) -> Error {
    let names: Vec<_> = choices.iter().map(|(n, _)| format!("'{n}'")).collect();
    Error::validation(format!("{key} must be one of {}", names.join(", ")))
}

/// The options object `v` (absent: every default; a key whose value is `null` is a key not
/// given) as `T`, which deserializes itself. A failure is a `VALIDATION_ERROR` naming the
/// option: the first key that fails alone.
fn typed<T: DeserializeOwned>(v: &Value, what: &str) -> Result<T> {
    let given: Map<String, Value> = match v {
        Value::Null => Map::new(),
        Value::Object(m) => m
            .iter()
            .filter(|(_, x)| !x.is_null())
            .map(|(k, x)| (k.clone(), x.clone()))
            .collect(),
        _ => return Err(Error::validation(format!("{what} must be an object"))),
    };
    let alone = |k: &str, x: &Value| {
        T::deserialize(&Value::Object(Map::from_iter([(k.into(), x.clone())])))
    };
    match T::deserialize(&Value::Object(given.clone())) {
        Ok(t) => Ok(t),
        Err(whole) => Err(given
            .iter()
            .find_map(|(k, x)| {
                let e = alone(k, x).err()?;
                // A value of the wrong type for a choice: its choices, as a wrong name gets them.
                let e = if e.to_string().contains("variant identifier")
                    || e.to_string().ends_with("expected string or map")
                {
                    alone(k, &Value::String(String::new())).err().unwrap_or(e)
                } else {
                    e
                };
                Some(Error::validation(format!("{k} {}", must(&e))))
            })
            .unwrap_or_else(|| Error::validation(format!("{what}: {}", must(&whole))))),
    }
}

/// What serde says was expected, as a rule about the value ("must be ...").
fn must(e: &serde_json::Error) -> String {
    let said = e.to_string();
    if said.starts_with("must ") {
        return said;
    }
    if let Some(rest) = said.strip_prefix("unknown variant ") {
        // "`x`, expected one of `a`, `b`" or "`x`, expected `a` or `b`": the names after `x`.
        let names: Vec<String> = rest
            .split('`')
            .skip(3)
            .step_by(2)
            .map(|n| format!("'{n}'"))
            .collect();
        return format!("must be one of {}", names.join(", "));
    }
    match said.split_once(", expected ") {
        Some((_, expected)) => format!(
            "must be {}",
            match expected {
                "a sequence" => "an array",
                "a map" => "an object",
                "a boolean" | "a string" => expected,
                e if e.starts_with("struct ") => "an object",
                _ => expected,
            }
        ),
        None => said,
    }
}

/// `redact` of a call's `options` (`get`, `export`, `diff`): `None` when not given, so the
/// client's choice holds.
pub fn opt_redact(args: &Value) -> Result<Option<bool>> {
    match args.get("options") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => opt_bool(m, "redact"),
        Some(_) => Err(Error::validation("options must be an object")),
    }
}

/// `machine` of `get`'s `options`: the team database's machine whose copy of the session is
/// wanted (`None`: the one updated last).
pub fn opt_machine(args: &Value) -> Result<Option<String>> {
    match args.get("options") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(m)) => opt_string(m, "machine"),
        Some(_) => Err(Error::validation("options must be an object")),
    }
}

pub fn list_options(v: &Value) -> Result<ListOptions> {
    typed(v, "options")
}

pub fn search_query(v: &Value) -> Result<SearchQuery> {
    let Value::Object(m) = v else {
        return Err(Error::validation("query must be an object"));
    };
    if !m.get("text").is_some_and(Value::is_string) {
        return Err(Error::validation("query.text must be a string"));
    }
    typed(v, "query")
}

/// The options of `sessions.touched`.
pub fn touched_options(v: &Value) -> Result<TouchedOptions> {
    typed(v, "options")
}

pub fn cost_options(v: &Value) -> Result<CostOptions> {
    typed(v, "options")
}

pub fn recap_options(v: &Value) -> Result<agent_mux_sessions::recap::RecapOptions> {
    typed(v, "options")
}

fn opt_weekday(m: &Map<String, Value>) -> Result<Option<chrono::Weekday>> {
    let bad =
        || Error::validation("startOfWeek must be a day of the week ('sunday' to 'saturday')");
    match m.get("startOfWeek") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => weekday(s).map(Some).ok_or_else(bad),
        Some(_) => Err(bad()),
    }
}

/// `since`/`until` of a cost report: a Date (epoch ms), or a calendar day of the report's zone
/// written "YYYY-MM-DD" or "YYYYMMDD".
fn opt_bound(m: &Map<String, Value>, key: &str) -> Result<Option<Bound>> {
    match m.get(key) {
        Some(Value::String(s)) if s != "Invalid Date" => {
            parse_date(s).map(|d| Some(Bound::Date(d))).ok_or_else(|| {
                Error::validation(format!(
                    "{key} must be a Date or a day written YYYY-MM-DD or YYYYMMDD, got '{s}'"
                ))
            })
        }
        _ => Ok(opt_date(m, key)?.map(Bound::At)),
    }
}

fn order(m: &Map<String, Value>) -> Result<Option<Direction>> {
    match m.get("order") {
        None | Some(Value::Null) => Ok(None),
        _ => choice(
            m,
            "order",
            &[("asc", Direction::Asc), ("desc", Direction::Desc)],
            Direction::Asc,
        )
        .map(Some),
    }
}

/// Which sessions a report takes by whether they are archived (as list's `archived`).
fn archived(m: &Map<String, Value>) -> Result<Archived> {
    let choices = [
        ("include", Archived::Include),
        ("only", Archived::Only),
        ("exclude", Archived::Exclude),
    ];
    choice(m, "archived", &choices, Archived::Include)
}

/// The options of `cost.daily|weekly|monthly|sessions`; `report` is that name.
pub fn report_options(report: &Value, v: &Value) -> Result<ReportOptions> {
    let grouping = match report.as_str() {
        Some("daily") => Grouping::Period(Period::Day),
        Some("weekly") => Grouping::Period(Period::Week(chrono::Weekday::Sun)),
        Some("monthly") => Grouping::Period(Period::Month),
        Some("sessions") => Grouping::Session,
        _ => {
            return Err(Error::validation(format!(
                "report must be 'daily', 'weekly', 'monthly' or 'sessions', got {report}"
            )))
        }
    };
    let mut o = ReportOptions::new(grouping);
    let Some(m) = obj(v, "options")? else {
        return Ok(o);
    };
    if let (Grouping::Period(Period::Week(_)), Some(start)) = (grouping, opt_weekday(m)?) {
        o.grouping = Grouping::Period(Period::Week(start));
    }
    o.agent = opt_string(m, "agent")?;
    o.since = opt_bound(m, "since")?;
    o.until = opt_bound(m, "until")?;
    o.timezone = opt_string(m, "timezone")?;
    o.project = opt_project(m)?;
    o.model = opt_string(m, "model")?;
    o.archived = archived(m)?;
    o.order = order(m)?;
    o.last = opt_uint(m, "last", "last", 1)?.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    o.limit = m
        .contains_key("limit")
        .then(|| limit(m, MAX_LIMIT))
        .transpose()?;
    o.machine = opt_string(m, "machine")?;
    o.user = opt_string(m, "user")?;
    Ok(o)
}

/// The options of `cost.blocks`.
pub fn blocks_options(v: &Value) -> Result<BlocksOptions> {
    let mut o = BlocksOptions::default();
    let Some(m) = obj(v, "options")? else {
        return Ok(o);
    };
    o.agent = opt_string(m, "agent")?;
    o.since = opt_bound(m, "since")?;
    o.until = opt_bound(m, "until")?;
    o.timezone = opt_string(m, "timezone")?;
    o.project = opt_project(m)?;
    o.order = order(m)?;
    match m.get("sessionLength") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) if n.as_f64().is_some_and(|h| h.is_finite() && h > 0.0) => {
            o.session_length_hours = n.as_f64().unwrap_or(5.0);
        }
        Some(_) => {
            return Err(Error::validation(
                "sessionLength must be a positive number of hours",
            ))
        }
    }
    o.active = opt_bool(m, "active")?.unwrap_or(false);
    o.recent = opt_bool(m, "recent")?.unwrap_or(false);
    o.archived = archived(m)?;
    o.token_limit = match m.get("tokenLimit") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s == "max" => Some(TokenLimit::Max),
        Some(_) => opt_uint(m, "tokenLimit", "tokenLimit", 1)
            .map_err(|_| {
                Error::validation("tokenLimit must be a positive number of tokens or 'max'")
            })?
            .map(TokenLimit::Tokens),
    };
    Ok(o)
}

pub fn export_format(v: &Value) -> Result<ExportFormat> {
    match v.as_str() {
        Some("json") => Ok(ExportFormat::Json),
        Some("jsonl") => Ok(ExportFormat::Jsonl),
        Some("markdown") => Ok(ExportFormat::Markdown),
        _ => Err(Error::validation(format!(
            "format must be 'json', 'jsonl' or 'markdown', got {v}"
        ))),
    }
}

/// `keep.forget`'s options: the ids named (unified or native) and the moment before which every
/// kept session is forgotten (epoch milliseconds or an ISO 8601 string). One of them is needed.
pub fn forget_options(v: &Value) -> Result<(Vec<String>, Option<i64>)> {
    let Some(m) = obj(v, "options")? else {
        return Err(Error::validation("keep.forget takes { ids } or { before }"));
    };
    let ids = match m.get("ids") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| string_arg(x, "ids[]"))
            .collect::<Result<Vec<_>>>()?,
        Some(_) => return Err(Error::validation("ids must be an array of strings")),
    };
    let before = match m.get("before") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if x.is_finite() => Some(x as i64),
            _ => return Err(Error::validation("before must be a valid date")),
        },
        Some(Value::String(s)) => Some(
            agent_mux_sessions::model::parse_time_str(s)
                .ok_or_else(|| Error::validation(format!("before must be a date, got '{s}'")))?
                .timestamp_millis(),
        ),
        Some(_) => return Err(Error::validation("before must be a Date or a date string")),
    };
    if ids.is_empty() && before.is_none() {
        return Err(Error::validation("keep.forget takes { ids } or { before }"));
    }
    Ok((ids, before))
}

/// A non-empty string argument (agent names, session ids).
pub fn string_arg(v: &Value, what: &str) -> Result<String> {
    match v {
        Value::String(s) if !s.is_empty() => Ok(s.clone()),
        _ => Err(Error::validation(format!(
            "{what} must be a non-empty string"
        ))),
    }
}

fn absolute_path(v: &Value, what: &str) -> Result<PathBuf> {
    let s = v
        .as_str()
        .ok_or_else(|| Error::validation(format!("{what} must be a string")))?;
    let p = PathBuf::from(s);
    if !p.is_absolute() {
        return Err(Error::validation(format!(
            "{what} must be an absolute path, got '{s}'"
        )));
    }
    Ok(p)
}

pub fn client_options(v: &Value) -> Result<ClientOptions> {
    let Some(m) = obj(v, "options")? else {
        return Ok(ClientOptions {
            cache: CacheSetting::FromEnv,
            index_updates: IndexUpdates::Background,
            ..Default::default()
        });
    };
    let config_dir = match m.get("configDir") {
        None | Some(Value::Null) => None,
        Some(v) => Some(absolute_path(v, "configDir")?),
    };
    let mut session_dirs = BTreeMap::new();
    match m.get("sessionDirs") {
        None | Some(Value::Null) => {}
        Some(Value::Object(dirs)) => {
            for (agent, dir) in dirs {
                if !is_built_in(agent) {
                    return Err(Error::validation(format!(
                        "sessionDirs: unknown agent '{agent}'"
                    )));
                }
                if dir.is_null() {
                    continue;
                }
                session_dirs.insert(
                    agent.clone(),
                    absolute_path(dir, &format!("sessionDirs.{agent}"))?,
                );
            }
        }
        Some(_) => return Err(Error::validation("sessionDirs must be an object")),
    }
    let pricing = match m.get("pricing") {
        None | Some(Value::Null) => None,
        Some(p) => {
            price_overrides(p)?;
            Some(p.clone())
        }
    };
    let cache = match m.get("cacheDir") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => CacheSetting::FromEnv,
        Some(Value::Bool(false)) => CacheSetting::Off,
        Some(v) => CacheSetting::Dir(absolute_path(v, "cacheDir")?),
    };
    Ok(ClientOptions {
        config_dir,
        session_dirs,
        pricing,
        run_defaults: run_defaults(m)?,
        cache,
        progress: None,
        index_updates: choice(m, "indexUpdates", INDEX_UPDATES, IndexUpdates::Background)?,
        redact: opt_bool(m, "redact")?.unwrap_or(false),
        keep: opt_bool(m, "keep")?,
        watch: opt_bool(m, "watch")?.unwrap_or(false),
        source: source(m)?,
    })
}

/// `ClientOptions.source`: a team database's URL (the rest of it, credentials included, is read
/// when the first call connects).
fn source(m: &Map<String, Value>) -> Result<Option<String>> {
    let Some(url) = opt_string(m, "source")? else {
        return Ok(None);
    };
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(Error::validation(
            "source must be a PostgreSQL URL (postgres://… or postgresql://…)",
        ));
    }
    Ok(Some(url))
}

/// `ClientOptions.indexUpdates`: a Node app's calls never wait for the index to be written.
const INDEX_UPDATES: &[(&str, IndexUpdates)] = &[
    ("background", IndexUpdates::Background),
    ("wait", IndexUpdates::Wait),
    ("deferred", IndexUpdates::Deferred),
];

/// A non-negative integer (milliseconds, counts): `None` when not given.
fn opt_uint(m: &Map<String, Value>, key: &str, name: &str, min: u64) -> Result<Option<u64>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if x.is_finite() && x.fract() == 0.0 && x >= min as f64 => Ok(Some(x as u64)),
            _ => Err(Error::validation(format!(
                "{name} must be an integer >= {min}, got {n}"
            ))),
        },
        Some(v) => Err(Error::validation(format!(
            "{name} must be an integer >= {min}, got {v}"
        ))),
    }
}

fn opt_bool(m: &Map<String, Value>, key: &str) -> Result<Option<bool>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(Error::validation(format!(
            "{key} must be a boolean, got {v}"
        ))),
    }
}

/// The spec's run options (5.1.1): checked against their valid ranges, then kept.
fn run_defaults(m: &Map<String, Value>) -> Result<RunDefaults> {
    let approval_mode = match m.get("approvalMode") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if ["yolo", "prompt", "deny"].contains(&s.as_str()) => {
            Some(s.clone())
        }
        Some(v) => {
            return Err(Error::validation(format!(
                "approvalMode must be one of 'yolo', 'prompt', 'deny', got {v}"
            )))
        }
    };
    let stream = match m.get("stream") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::String(s)) if s == "auto" => None,
        Some(v) => {
            return Err(Error::validation(format!(
                "stream must be true, false or 'auto', got {v}"
            )))
        }
    };
    let project_config_dir = match m.get("projectConfigDir") {
        None | Some(Value::Null) => None,
        Some(v) => Some(absolute_path(v, "projectConfigDir")?),
    };
    let retry_policy = match m.get("retryPolicy") {
        None | Some(Value::Null) => None,
        Some(Value::Object(p)) => Some(retry_policy(p)?),
        Some(v) => {
            return Err(Error::validation(format!(
                "retryPolicy must be an object, got {v}"
            )))
        }
    };
    Ok(RunDefaults {
        default_agent: opt_string(m, "defaultAgent")?,
        default_model: opt_string(m, "defaultModel")?,
        approval_mode,
        timeout_ms: opt_uint(m, "timeout", "timeout", 0)?,
        inactivity_timeout_ms: opt_uint(m, "inactivityTimeout", "inactivityTimeout", 0)?,
        retry_policy,
        stream,
        project_config_dir,
        debug: opt_bool(m, "debug")?,
    })
}

/// `RetryPolicy` per its table: `maxDelayMs` is compared with the `baseDelayMs` in effect
/// (given, else its default 1000).
fn retry_policy(p: &Map<String, Value>) -> Result<RetryPolicy> {
    let max_attempts = opt_uint(p, "maxAttempts", "retryPolicy.maxAttempts", 1)?;
    let base_delay_ms = opt_uint(p, "baseDelayMs", "retryPolicy.baseDelayMs", 0)?;
    let base = base_delay_ms.unwrap_or(1000);
    let max_delay_ms = opt_uint(p, "maxDelayMs", "retryPolicy.maxDelayMs", base)?;
    let jitter_factor = match p.get("jitterFactor") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) if n.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x)) => {
            n.as_f64()
        }
        Some(v) => {
            return Err(Error::validation(format!(
                "retryPolicy.jitterFactor must be a number from 0 to 1, got {v}"
            )))
        }
    };
    let retry_on = match p.get("retryOn") {
        None | Some(Value::Null) => None,
        Some(Value::Array(codes)) => Some(
            codes
                .iter()
                .map(|c| match c.as_str() {
                    Some(code) if SPEC_ERROR_CODES.contains(&code) => Ok(code.to_string()),
                    _ => Err(Error::validation(format!(
                        "retryPolicy.retryOn must list ErrorCode values, got {c}"
                    ))),
                })
                .collect::<Result<Vec<_>>>()?,
        ),
        Some(v) => {
            return Err(Error::validation(format!(
                "retryPolicy.retryOn must be an array of ErrorCode values, got {v}"
            )))
        }
    };
    Ok(RetryPolicy {
        max_attempts,
        base_delay_ms,
        max_delay_ms,
        jitter_factor,
        retry_on,
    })
}

/// `messages.window`'s options: `{ around?, context?, from?, limit? }`.
/// `index.update(options)`: whether to skip the update while another process writes the index
/// (`ifIdle`, default false: wait for it).
/// `sync(url, {machine, user, redact?, prune?})`: the names are non-empty strings (index.js
/// fills in the host's and the OS user's), the flags booleans; redacted unless told otherwise.
pub fn sync_options(v: &Value) -> Result<agent_mux_sessions::team::push::SyncOptions> {
    let empty = Map::new();
    let m = match v {
        Value::Null => &empty,
        Value::Object(m) => m,
        _ => return Err(Error::validation("sync options must be an object")),
    };
    let name = |key: &str| -> Result<String> {
        match m.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() && s.len() <= 200 => {
                Ok(s.trim().to_string())
            }
            Some(v) => Err(Error::validation(format!(
                "{key} must be a non-empty string of at most 200 characters, got {v}"
            ))),
            None => Err(Error::validation(format!("{key} is required"))),
        }
    };
    Ok(agent_mux_sessions::team::push::SyncOptions {
        machine: name("machine")?,
        user: name("user")?,
        redact: opt_bool(m, "redact")?.unwrap_or(true),
        prune: opt_bool(m, "prune")?.unwrap_or(false),
        schema_version: agent_mux_sessions::team::schema::VERSION,
    })
}

pub fn update_if_idle(v: &Value) -> Result<bool> {
    match obj(v, "options")? {
        Some(m) => Ok(opt_bool(m, "ifIdle")?.unwrap_or(false)),
        None => Ok(false),
    }
}

pub fn window_options(v: &Value) -> Result<WindowOptions> {
    let m = match v {
        Value::Null => return Ok(WindowOptions::default()),
        Value::Object(m) => m,
        _ => return Err(Error::validation("options must be an object")),
    };
    let around = match m.get("around") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(Error::validation("around must be a string")),
    };
    let d = WindowOptions::default();
    Ok(WindowOptions {
        around,
        context: count(m, "context", d.context)?,
        from: count(m, "from", d.from)?,
        limit: count(m, "limit", d.limit)?,
        redact: opt_bool(m, "redact")?,
    })
}

/// A whole number >= 0; larger than any index is as good as infinite.
fn count(m: &Map<String, Value>, key: &str, default: usize) -> Result<usize> {
    let bad = || Error::validation(format!("{key} must be a non-negative integer"));
    match m.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if x >= 0.0 && x.fract() == 0.0 => Ok(x.min(u32::MAX as f64) as usize),
            _ => Err(bad()),
        },
        Some(_) => Err(bad()),
    }
}

/// `tsv.rows`: an array of rows, each an array of strings, numbers and nulls (`JSON.stringify`
/// has made a `Date` its ISO string, and `undefined`, `NaN` and `Infinity` null); a boolean is
/// written as its word.
pub fn tsv_rows(v: &Value) -> Result<Vec<Vec<Cell>>> {
    let bad =
        |what: String| Error::validation(format!("{what} must be a string, number, Date or null"));
    let Value::Array(rows) = v else {
        return Err(Error::validation("rows must be an array of arrays"));
    };
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let Value::Array(cells) = row else {
                return Err(Error::validation(format!("rows[{i}] must be an array")));
            };
            cells
                .iter()
                .enumerate()
                .map(|(j, c)| match c {
                    Value::Null => Ok(Cell::Empty),
                    Value::String(s) => Ok(Cell::Text(s.clone())),
                    Value::Number(n) => Ok(n.as_f64().map_or(Cell::Empty, Cell::Number)),
                    Value::Bool(b) => Ok(Cell::Text(b.to_string())),
                    _ => Err(bad(format!("rows[{i}][{j}]"))),
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_mux_sessions::error::ErrorCode;
    use agent_mux_sessions::options::{ListSort, SearchSort};
    use serde_json::json;

    #[test]
    fn defaults() {
        let o = list_options(&Value::Null).unwrap();
        assert_eq!(o.limit, 100);
        assert_eq!((o.sort, o.direction), (ListSort::Date, Direction::Desc));
        let q = search_query(&json!({"text": "x"})).unwrap();
        assert_eq!((q.limit, q.sort), (50, SearchSort::Relevance));
    }

    #[test]
    fn rejects_bad_values_with_validation_error() {
        for bad in [
            json!({"limit": -1}),
            json!({"limit": 1.5}),
            json!({"limit": "3"}),
            json!({"since": "Invalid Date"}),
            json!({"sort": "size"}),
            json!({"sortDirection": "up"}),
            json!({"tags": "a"}),
            json!({"model": 3}),
        ] {
            let e = list_options(&bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationError, "{bad}");
        }
        assert_eq!(
            search_query(&json!({})).unwrap_err().code,
            ErrorCode::ValidationError
        );
        assert!(client_options(&json!({"configDir": "rel/dir"})).is_err());
        assert!(client_options(&json!({"sessionDirs": {"nope": "/x"}})).is_err());
        assert!(export_format(&json!("yaml")).is_err());
    }

    #[test]
    fn blocks_options_take_an_agent() {
        let o = blocks_options(&json!({"agent": "claude", "active": true})).unwrap();
        assert_eq!((o.agent.as_deref(), o.active), (Some("claude"), true));
        assert_eq!(blocks_options(&Value::Null).unwrap().agent, None);
        let e = blocks_options(&json!({"agent": 3})).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError);
    }

    #[test]
    fn typed_options_name_the_option_and_what_it_must_be() {
        let said = |r: Result<()>| r.unwrap_err().message;
        let list = |v: Value| said(list_options(&v).map(drop));
        let cost = |v: Value| said(cost_options(&v).map(drop));
        assert_eq!(list(json!({"cwd": 3})), "cwd must be a string");
        assert_eq!(list(json!({"model": [1]})), "model must be a string");
        assert_eq!(
            list(json!({"sort": "size"})),
            "sort must be one of 'date', 'cost', 'turns'"
        );
        assert_eq!(
            list(json!({"limit": 5, "sortDirection": 1})),
            "sortDirection must be one of 'asc', 'desc'"
        );
        assert_eq!(
            list(json!({"tags": "a"})),
            "tags must be an array of strings"
        );
        assert_eq!(
            list(json!({"until": "Invalid Date"})),
            "until must be a valid Date"
        );
        assert_eq!(
            list(json!({"limit": 2.5})),
            "limit must be a non-negative integer"
        );
        assert_eq!(list(json!([])), "options must be an object");
        assert_eq!(
            cost(json!({"groupBy": "year"})),
            "groupBy must be one of 'agent', 'model', 'day', 'tag', 'week', 'month', 'session', 'project', 'machine', 'user'"
        );
        assert_eq!(
            cost(json!({"startOfWeek": "someday"})),
            "startOfWeek must be a day of the week ('sunday' to 'saturday')"
        );
        assert_eq!(
            said(search_query(&json!({"text": "x", "agent": 3})).map(drop)),
            "agent must be a string"
        );
        // null is a key not given; unknown keys are left to the caller.
        assert_eq!(
            list_options(&json!({"limit": null, "sort": null, "other": 1})).unwrap(),
            ListOptions::default()
        );
        let o = cost_options(&json!({"groupBy": "week", "startOfWeek": "Monday", "cwd": "/p"}))
            .unwrap();
        assert_eq!(o.group_by, Some(agent_mux_sessions::options::GroupBy::Week));
        assert_eq!(o.start_of_week, Some(chrono::Weekday::Mon));
        assert_eq!(o.filters.cwd.as_deref(), Some("/p"));
    }

    #[test]
    fn client_run_options_are_validated_and_kept() {
        let o = client_options(&json!({
            "defaultAgent": "codex", "defaultModel": "m", "approvalMode": "deny",
            "timeout": 0, "inactivityTimeout": 5000, "stream": "auto", "debug": true,
            "projectConfigDir": "/p/.agent-mux",
            "retryPolicy": {"maxAttempts": 1, "baseDelayMs": 0, "maxDelayMs": 0,
                            "jitterFactor": 1, "retryOn": ["TIMEOUT"]}
        }))
        .unwrap();
        let r = &o.run_defaults;
        assert_eq!(r.approval_mode.as_deref(), Some("deny"));
        assert_eq!(
            (r.timeout_ms, r.inactivity_timeout_ms),
            (Some(0), Some(5000))
        );
        assert_eq!((r.stream, r.debug), (None, Some(true)));
        assert_eq!(r.project_config_dir, Some(PathBuf::from("/p/.agent-mux")));
        let p = r.retry_policy.as_ref().unwrap();
        assert_eq!((p.max_attempts, p.max_delay_ms), (Some(1), Some(0)));
        assert_eq!(p.retry_on, Some(vec!["TIMEOUT".to_string()]));
        let o = client_options(&json!({"stream": false})).unwrap();
        assert_eq!(o.run_defaults.stream, Some(false));
        for (bad, field) in [
            (json!({"timeout": -1}), "timeout"),
            (json!({"timeout": 1.5}), "timeout"),
            (json!({"inactivityTimeout": "5"}), "inactivityTimeout"),
            (json!({"approvalMode": "auto"}), "approvalMode"),
            (json!({"stream": "yes"}), "stream"),
            (json!({"projectConfigDir": "rel"}), "projectConfigDir"),
            (
                json!({"retryPolicy": {"maxAttempts": 0}}),
                "retryPolicy.maxAttempts",
            ),
            // The default baseDelayMs is 1000.
            (
                json!({"retryPolicy": {"maxDelayMs": 999}}),
                "retryPolicy.maxDelayMs",
            ),
            (
                json!({"retryPolicy": {"jitterFactor": 1.5}}),
                "retryPolicy.jitterFactor",
            ),
            (
                json!({"retryPolicy": {"retryOn": ["NOPE"]}}),
                "retryPolicy.retryOn",
            ),
        ] {
            let e = client_options(&bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::ValidationError, "{bad}");
            assert!(e.message.starts_with(field), "{bad}: {}", e.message);
        }
    }

    #[test]
    fn huge_limit_is_clamped_and_dates_parse() {
        let o = list_options(&json!({"limit": 1e300, "since": 1735787045678.0})).unwrap();
        assert_eq!(o.limit, MAX_LIMIT);
        assert_eq!(
            agent_mux_sessions::model::to_iso(&o.filters.since.unwrap()),
            "2025-01-02T03:04:05.678Z"
        );
    }

    #[test]
    fn pricing_is_checked_and_kept() {
        let o = client_options(&json!({
            "pricing": {"anthropic/claude-sonnet-4-5": {"input": 1, "output": 2, "cacheRead": 0.5}}
        }))
        .unwrap();
        assert_eq!(
            o.pricing,
            Some(
                json!({"anthropic/claude-sonnet-4-5": {"input": 1, "output": 2, "cacheRead": 0.5}})
            )
        );
        // The rules are the cost engine's (`price_overrides`, tested there): applied here.
        let e = client_options(&json!({"pricing": {"m": {"input": 1}}})).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError);
        assert!(e.message.starts_with("pricing:"), "{}", e.message);
    }

    #[test]
    fn window_options_are_checked() {
        let v = serde_json::json!({"around": "a", "context": 0, "from": 3, "limit": 10});
        let o = window_options(&v).unwrap();
        assert_eq!((o.context, o.from, o.limit), (0, 3, 10));
        assert_eq!(
            window_options(&Value::Null).unwrap(),
            WindowOptions::default()
        );
        for bad in [
            serde_json::json!({"around": 3}),
            serde_json::json!({"context": -1}),
            serde_json::json!({"from": 1.5}),
            serde_json::json!({"limit": "9"}),
            serde_json::json!([]),
        ] {
            assert_eq!(
                window_options(&bad).unwrap_err().code,
                ErrorCode::ValidationError
            );
        }
    }

    #[test]
    fn tsv_rows_are_typed() {
        let r = tsv_rows(&json!([["a", 1.5, null, true], []])).unwrap();
        assert_eq!(
            r,
            vec![
                vec![
                    Cell::Text("a".into()),
                    Cell::Number(1.5),
                    Cell::Empty,
                    Cell::Text("true".into())
                ],
                vec![]
            ]
        );
        for bad in [json!({}), json!(["a"]), json!([[{"x": 1}]]), json!([[[1]]])] {
            assert_eq!(tsv_rows(&bad).unwrap_err().code, ErrorCode::ValidationError);
        }
    }
}
