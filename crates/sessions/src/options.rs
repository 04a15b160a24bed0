//! Options of the public methods, validated from the JSON the binding passes (dates as epoch
//! milliseconds). Every problem is a `VALIDATION_ERROR` naming the option.
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::context::{CacheSetting, ClientOptions};
use crate::error::{Error, Result};
use crate::model::{from_epoch_guess, Timestamp};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListSort {
    #[default]
    Date,
    Cost,
    Turns,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchSort {
    #[default]
    Relevance,
    Date,
    Cost,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    Asc,
    #[default]
    Desc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    Agent,
    Model,
    Day,
    Tag,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Jsonl,
    Markdown,
}

/// Filters shared by list, search and totalCost.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filters {
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
    pub model: Option<String>,
    pub tags: Option<Vec<String>>,
    pub cwd: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ListOptions {
    pub filters: Filters,
    pub limit: usize,
    pub sort: ListSort,
    pub direction: Direction,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            filters: Filters::default(),
            limit: 100,
            sort: ListSort::Date,
            direction: Direction::Desc,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchQuery {
    pub text: String,
    pub agent: Option<String>,
    pub filters: Filters,
    pub limit: usize,
    pub sort: SearchSort,
}

impl SearchQuery {
    pub fn new(text: &str) -> Self {
        SearchQuery {
            text: text.to_string(),
            agent: None,
            filters: Filters::default(),
            limit: 50,
            sort: SearchSort::Relevance,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CostOptions {
    pub agent: Option<String>,
    pub filters: Filters,
    pub group_by: Option<GroupBy>,
}

/// Largest limit honoured; larger values are clamped (a huge LIMIT is not an error, just "all").
pub const MAX_LIMIT: usize = 1_000_000;

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

fn opt_tags(m: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|t| match t {
                Value::String(s) => Ok(s.clone()),
                _ => Err(Error::validation(format!(
                    "{key} must be an array of strings"
                ))),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(_) => Err(Error::validation(format!(
            "{key} must be an array of strings"
        ))),
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

fn filters(m: &Map<String, Value>) -> Result<Filters> {
    let f = Filters {
        since: opt_date(m, "since")?,
        until: opt_date(m, "until")?,
        model: opt_string(m, "model")?,
        tags: opt_tags(m, "tags")?,
        cwd: opt_string(m, "cwd")?,
    };
    Ok(f)
}

pub fn list_options(v: &Value) -> Result<ListOptions> {
    let Some(m) = obj(v, "options")? else {
        return Ok(ListOptions::default());
    };
    Ok(ListOptions {
        filters: filters(m)?,
        limit: limit(m, 100)?,
        sort: choice(
            m,
            "sort",
            &[
                ("date", ListSort::Date),
                ("cost", ListSort::Cost),
                ("turns", ListSort::Turns),
            ],
            ListSort::Date,
        )?,
        direction: choice(
            m,
            "sortDirection",
            &[("asc", Direction::Asc), ("desc", Direction::Desc)],
            Direction::Desc,
        )?,
    })
}

pub fn search_query(v: &Value) -> Result<SearchQuery> {
    let m = obj(v, "query")?.ok_or_else(|| Error::validation("query must be an object"))?;
    let text = match m.get("text") {
        Some(Value::String(s)) => s.clone(),
        _ => return Err(Error::validation("query.text must be a string")),
    };
    Ok(SearchQuery {
        text,
        agent: opt_string(m, "agent")?,
        filters: filters(m)?,
        limit: limit(m, 50)?,
        sort: choice(
            m,
            "sort",
            &[
                ("relevance", SearchSort::Relevance),
                ("date", SearchSort::Date),
                ("cost", SearchSort::Cost),
            ],
            SearchSort::Relevance,
        )?,
    })
}

pub fn cost_options(v: &Value) -> Result<CostOptions> {
    let Some(m) = obj(v, "options")? else {
        return Ok(CostOptions::default());
    };
    let group_by = match m.get("groupBy") {
        None | Some(Value::Null) => None,
        _ => Some(choice(
            m,
            "groupBy",
            &[
                ("agent", GroupBy::Agent),
                ("model", GroupBy::Model),
                ("day", GroupBy::Day),
                ("tag", GroupBy::Tag),
            ],
            GroupBy::Agent,
        )?),
    };
    Ok(CostOptions {
        agent: opt_string(m, "agent")?,
        filters: filters(m)?,
        group_by,
    })
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
                if !crate::agents::is_built_in(agent) {
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
            crate::cost::prices::parse_overrides(p)?;
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
        cache,
        progress: None,
    })
}

/// `since`/`until` given as epoch milliseconds or ISO strings (CLI, tests).
pub fn timestamp_from(v: &Value) -> Option<Timestamp> {
    match v {
        Value::Number(n) => n.as_f64().and_then(from_epoch_guess),
        Value::String(s) => crate::model::parse_time_str(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
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
    fn huge_limit_is_clamped_and_dates_parse() {
        let o = list_options(&json!({"limit": 1e300, "since": 1735787045678.0})).unwrap();
        assert_eq!(o.limit, MAX_LIMIT);
        assert_eq!(
            crate::model::to_iso(&o.filters.since.unwrap()),
            "2025-01-02T03:04:05.678Z"
        );
    }
}
