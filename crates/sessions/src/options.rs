//! The options of the public methods, as the engines take them: plain Rust values. Those of
//! `list`, `search` and `totalCost` deserialize from the options JavaScript passes (the names
//! as the API spells them; `from_js`: the values serde cannot read by itself); the binding
//! (`agent-mux-wire`) turns a failure into a `VALIDATION_ERROR` naming the option.
use chrono::{NaiveDate, Weekday};
use serde::Deserialize;

use crate::model::Timestamp;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ListSort {
    #[default]
    Date,
    Cost,
    Turns,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchSort {
    #[default]
    Relevance,
    Date,
    Cost,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Asc,
    #[default]
    Desc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    Agent,
    Model,
    Day,
    Tag,
    /// Beyond the spec: the local week (its first day, weeks starting on `start_of_week`).
    Week,
    /// Beyond the spec: the local month ("YYYY-MM").
    Month,
    /// Beyond the spec: the session (its unified id).
    Session,
    /// Beyond the spec: the project (`SessionSummary::project`: the main working directory of
    /// the session's git repository, else its working directory).
    Project,
    /// Beyond the spec, a team database only: the machine that synced the session.
    Machine,
    /// Beyond the spec, a team database only: the OS user that synced it.
    User,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Jsonl,
    Markdown,
}

/// Filters shared by list, search and totalCost (each a key of their options).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Filters {
    #[serde(deserialize_with = "from_js::moment")]
    pub since: Option<Timestamp>,
    #[serde(deserialize_with = "from_js::moment")]
    pub until: Option<Timestamp>,
    pub model: Option<String>,
    #[serde(deserialize_with = "from_js::strings")]
    pub tags: Option<Vec<String>>,
    pub cwd: Option<String>,
    /// The git branch the session ran on (`SessionSummary::git_branch`), exactly.
    pub branch: Option<String>,
    /// The project the session ran in (`SessionSummary::project`): an absolute directory (taken
    /// to its project) or a project directory's name.
    #[serde(deserialize_with = "from_js::project")]
    pub project: Option<crate::read::project::Wanted>,
    /// Kept sessions whose source is gone: with the others, only them, or none.
    pub archived: Archived,
    /// A team database only (`ClientOptions::source`): the machine that synced the session.
    pub machine: Option<String>,
    /// A team database only: the OS user that synced the session.
    pub user: Option<String>,
}

/// Which sessions a call takes by whether they are archived (`SessionSummary::archived`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Archived {
    #[default]
    Include,
    Only,
    Exclude,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ListOptions {
    #[serde(flatten)]
    pub filters: Filters,
    #[serde(deserialize_with = "from_js::limit")]
    pub limit: usize,
    pub sort: ListSort,
    #[serde(rename = "sortDirection")]
    pub direction: Direction,
    /// Every session on its own: sub-agent sessions are not folded into their parent.
    #[serde(deserialize_with = "from_js::bool")]
    pub subagents: bool,
    /// Redact secrets in the summaries (`crate::redact`); `None`: as the client does.
    #[serde(deserialize_with = "from_js::opt_bool")]
    pub redact: Option<bool>,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            filters: Filters::default(),
            limit: 100,
            sort: ListSort::Date,
            direction: Direction::Desc,
            subagents: false,
            redact: None,
        }
    }
}

/// `search`'s query. A missing `text` reads as empty: the binding asks for it by name first.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchQuery {
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(flatten)]
    pub filters: Filters,
    #[serde(default = "search_limit", deserialize_with = "from_js::limit")]
    pub limit: usize,
    #[serde(default)]
    pub sort: SearchSort,
    /// Redact secrets in the results' titles and snippets (`crate::redact`); `None`: as the
    /// client does. The query still finds what the secrets' own text holds.
    #[serde(default, deserialize_with = "from_js::opt_bool")]
    pub redact: Option<bool>,
    /// Only these sessions (unified ids) may be found: those that touched the files the query
    /// names (`file:`). Set by the client, never read from the caller.
    #[serde(skip)]
    pub only: Option<std::sync::Arc<std::collections::HashSet<String>>>,
    /// The index's documents of those sessions, when the index answered which they are: a
    /// lookup of the same index scores no other document as a hit.
    #[serde(skip)]
    pub only_docs: Option<std::sync::Arc<OnlyDocs>>,
    /// Set by the caller that no longer needs the results (the binding's `signal`): the search
    /// stops at its next stage and fails with `ABORTED`.
    #[serde(skip)]
    pub cancel: Cancel,
}

/// Documents of the index as its generation `generation` numbers them (another generation may
/// number them otherwise: then they name nothing).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OnlyDocs {
    pub generation: u64,
    pub docs: std::collections::HashSet<i64>,
}

/// A caller's word that it no longer needs a call's answer, shared with the call.
#[derive(Debug, Clone, Default)]
pub struct Cancel(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    pub fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Two queries are alike whatever their callers do with them.
impl PartialEq for Cancel {
    fn eq(&self, _: &Cancel) -> bool {
        true
    }
}

fn search_limit() -> usize {
    50
}

impl SearchQuery {
    pub fn new(text: &str) -> Self {
        SearchQuery {
            text: text.to_string(),
            agent: None,
            filters: Filters::default(),
            limit: search_limit(),
            sort: SearchSort::Relevance,
            redact: None,
            only: None,
            only_docs: None,
            cancel: Cancel::default(),
        }
    }
}

/// Beyond the spec: `sessions.touched(path, options)`: which sessions touched a file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TouchedOptions {
    /// Only touches of this kind.
    pub action: Option<crate::model::FileAction>,
    pub agent: Option<String>,
    /// Only touches made at or after this moment.
    #[serde(deserialize_with = "from_js::moment")]
    pub since: Option<Timestamp>,
    /// The same path relative to its repository, in any other checkout of a repository.
    #[serde(deserialize_with = "from_js::bool")]
    pub any_checkout: bool,
    /// Only sessions of this project (`SessionSummary::project`): a directory (taken to its
    /// project) or a project directory's name.
    #[serde(deserialize_with = "from_js::project")]
    pub project: Option<crate::read::project::Wanted>,
    #[serde(deserialize_with = "from_js::limit")]
    pub limit: usize,
    #[serde(deserialize_with = "from_js::opt_bool")]
    pub redact: Option<bool>,
}

impl Default for TouchedOptions {
    fn default() -> Self {
        TouchedOptions {
            action: None,
            agent: None,
            since: None,
            any_checkout: false,
            project: None,
            limit: 100,
            redact: None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CostOptions {
    pub agent: Option<String>,
    #[serde(flatten)]
    pub filters: Filters,
    pub group_by: Option<GroupBy>,
    /// Beyond the spec: the first day of a week for `GroupBy::Week` (default Sunday, as ccusage).
    #[serde(deserialize_with = "from_js::weekday")]
    pub start_of_week: Option<chrono::Weekday>,
}

/// The calendar period a report groups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Day,
    /// Weeks starting on this day.
    Week(Weekday),
    Month,
}

/// One end of a report's range: a moment, or a whole local day of the report's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    At(Timestamp),
    Date(NaiveDate),
}

/// What the rows are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    Period(Period),
    Session,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    pub grouping: Grouping,
    pub agent: Option<String>,
    /// Only usage from this moment (or local day) on.
    pub since: Option<Bound>,
    /// Only usage up to this moment (or the end of this local day).
    pub until: Option<Bound>,
    /// An IANA zone for the calendar; `None`: the caller's (`TZ`, else the system's).
    pub timezone: Option<String>,
    /// Only sessions of this project (`SessionSummary::project`).
    pub project: Option<crate::read::project::Wanted>,
    /// Only usage of this model.
    pub model: Option<String>,
    /// Kept sessions whose source is gone: with the others, alone, or left out.
    pub archived: Archived,
    /// Row order: periods by date (ascending unless asked), sessions by cost (descending).
    pub order: Option<Direction>,
    /// Only the most recent N periods (1: today, this week, this month), or the N sessions
    /// active last.
    pub last: Option<u32>,
    /// At most this many rows, the first in `order` (the costliest sessions unless told).
    pub limit: Option<usize>,
    /// A team database only: the sessions synced from this machine.
    pub machine: Option<String>,
    /// A team database only: the sessions synced by this OS user.
    pub user: Option<String>,
}

impl ReportOptions {
    pub fn new(grouping: Grouping) -> Self {
        ReportOptions {
            grouping,
            agent: None,
            since: None,
            until: None,
            timezone: None,
            project: None,
            model: None,
            archived: Archived::Include,
            order: None,
            last: None,
            limit: None,
            machine: None,
            user: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BlocksOptions {
    /// Only this agent's blocks; none: every agent whose requests fall into billing blocks.
    pub agent: Option<String>,
    /// Only blocks that start from this moment (or local day) on.
    pub since: Option<Bound>,
    /// Only blocks that start up to this moment (or the end of this local day).
    pub until: Option<Bound>,
    pub timezone: Option<String>,
    /// Only sessions of this project (`SessionSummary::project`).
    pub project: Option<crate::read::project::Wanted>,
    /// Ascending by start unless asked.
    pub order: Option<Direction>,
    /// A block's length in hours (Claude's is 5).
    pub session_length_hours: f64,
    /// Only the active block.
    pub active: bool,
    /// Only blocks of the last three days, and the active one.
    pub recent: bool,
    /// Tokens a block may use, for the active block's status: a number, or `Max` (the most any
    /// finished block used).
    pub token_limit: Option<TokenLimit>,
    /// Which sessions by whether they are archived (as list's `archived`).
    pub archived: Archived,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TokenLimit {
    Tokens(u64),
    Max,
}

impl Default for BlocksOptions {
    fn default() -> Self {
        BlocksOptions {
            agent: None,
            since: None,
            until: None,
            timezone: None,
            project: None,
            order: None,
            session_length_hours: 5.0,
            active: false,
            recent: false,
            token_limit: None,
            archived: Archived::Include,
        }
    }
}

/// A weekday by its English name, as `--start-of-week` takes it.
pub fn weekday(name: &str) -> Option<Weekday> {
    name.to_ascii_lowercase().parse().ok()
}

/// A calendar date written `YYYY-MM-DD` or, as ccusage takes it, `YYYYMMDD`.
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    let b = s.as_bytes();
    let fmt = match s.len() {
        8 if digits(s) => "%Y%m%d",
        10 if b[4] == b'-'
            && b[7] == b'-'
            && digits(&s[..4])
            && digits(&s[5..7])
            && digits(&s[8..]) =>
        {
            "%Y-%m-%d"
        }
        _ => return None,
    };
    NaiveDate::parse_from_str(s, fmt).ok()
}

/// Largest limit honoured; larger values are clamped (a huge LIMIT is not an error, just "all").
pub const MAX_LIMIT: usize = 1_000_000;

/// The values of JavaScript's options that serde cannot read by itself. Each error says what the
/// value must be; the binding puts the option's name before it.
pub mod from_js {
    use chrono::Weekday;
    use serde::de::Error;
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    use super::{weekday as weekday_named, MAX_LIMIT};
    use crate::model::Timestamp;

    /// A `Date`, which `index.js` sends as epoch milliseconds (an invalid one as the string
    /// "Invalid Date").
    pub fn moment<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
        match Value::deserialize(d)? {
            Value::Null => Ok(None),
            Value::Number(n) => n
                .as_f64()
                .filter(|ms| ms.is_finite())
                .and_then(|ms| chrono::DateTime::from_timestamp_millis(ms as i64))
                .map(Some)
                .ok_or_else(|| D::Error::custom("must be a valid Date")),
            _ => Err(D::Error::custom("must be a valid Date")),
        }
    }

    /// A count of results: a whole number >= 0; one past `MAX_LIMIT` is as good as all.
    pub fn limit<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
        match Value::deserialize(d)?.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 && x.fract() == 0.0 => {
                Ok(x.min(MAX_LIMIT as f64) as usize)
            }
            _ => Err(D::Error::custom("must be a non-negative integer")),
        }
    }

    /// A boolean, or null for "not given".
    pub fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        Option::<bool>::deserialize(d).map_err(|_| D::Error::custom("must be a boolean"))
    }

    /// A boolean; null or missing for false.
    pub fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        opt_bool(d).map(|b| b.unwrap_or(false))
    }

    /// A list of strings (tags).
    pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
        Option::<Vec<String>>::deserialize(d)
            .map_err(|_| D::Error::custom("must be an array of strings"))
    }

    /// A project: an absolute path (resolved to its repository's project) or a directory's name.
    pub fn project<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<crate::read::project::Wanted>, D::Error> {
        let bad = || D::Error::custom("must be an absolute path or a project directory's name");
        match Value::deserialize(d)? {
            Value::Null => Ok(None),
            Value::String(s) => crate::read::project::Wanted::parse(&s)
                .map(Some)
                .ok_or_else(bad),
            _ => Err(bad()),
        }
    }

    /// A day of the week by its English name.
    pub fn weekday<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Weekday>, D::Error> {
        let bad = || D::Error::custom("must be a day of the week ('sunday' to 'saturday')");
        match Value::deserialize(d)? {
            Value::Null => Ok(None),
            Value::String(s) => weekday_named(&s).map(Some).ok_or_else(bad),
            _ => Err(bad()),
        }
    }
}
