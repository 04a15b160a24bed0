//! The filters of list, search and totalCost as SQL over the `sessions` table (aliased `s`),
//! with their values as the statement's parameters (never spliced into its text).
use postgres::types::ToSql;

use crate::model::Timestamp;
use crate::options::{Archived, Filters};

/// A statement's parameters, numbered as they are added.
#[derive(Default)]
pub(crate) struct Params(Vec<Box<dyn ToSql + Sync + Send>>);

impl Params {
    /// Add `v`; its placeholder (`$n`).
    pub fn add(&mut self, v: impl ToSql + Sync + Send + 'static) -> String {
        self.0.push(Box::new(v));
        format!("${}", self.0.len())
    }

    /// A moment as the placeholder of a timestamptz (sent as epoch milliseconds).
    pub fn moment(&mut self, t: Timestamp) -> String {
        let p = self.add(t.timestamp_millis() as f64);
        format!("to_timestamp({p}::float8 / 1000)")
    }

    pub fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.0
            .iter()
            .map(|b| b.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }
}

/// The conditions `f` puts on `s` (a `sessions` row), ANDed; "true" when there are none.
pub(crate) fn sessions_where(f: &Filters, agent: Option<&str>, p: &mut Params) -> String {
    let mut c: Vec<String> = Vec::new();
    if let Some(a) = agent {
        c.push(format!("s.agent = {}", p.add(a.to_string())));
    }
    if let Some(t) = f.since {
        c.push(format!("s.created_at >= {}", p.moment(t)));
    }
    if let Some(t) = f.until {
        c.push(format!("s.created_at <= {}", p.moment(t)));
    }
    if let Some(m) = &f.model {
        // As locally: the session's model, or any model its usage was recorded under.
        let m = p.add(m.clone());
        c.push(format!(
            "(s.model = {m} OR EXISTS (SELECT 1 FROM usage u WHERE u.machine = s.machine \
             AND u.unified_id = s.unified_id AND u.model = {m}))"
        ));
    }
    if let Some(tags) = f.tags.as_ref().filter(|t| !t.is_empty()) {
        c.push(format!("s.tags && {}::text[]", p.add(tags.clone())));
    }
    if let Some(cwd) = &f.cwd {
        let want = cwd.trim_end_matches(['/', '\\']).to_string();
        c.push(format!("rtrim(s.cwd, '/\\') = {}", p.add(want)));
    }
    if let Some(b) = &f.branch {
        c.push(format!("s.git_branch = {}", p.add(b.clone())));
    }
    match f.archived {
        Archived::Include => {}
        Archived::Only => c.push("s.archived".into()),
        Archived::Exclude => c.push("NOT s.archived".into()),
    }
    if let Some(m) = &f.machine {
        c.push(format!("s.machine = {}", p.add(m.clone())));
    }
    if let Some(u) = &f.user {
        c.push(format!("s.os_user = {}", p.add(u.clone())));
    }
    if c.is_empty() {
        "true".into()
    } else {
        c.join(" AND ")
    }
}
