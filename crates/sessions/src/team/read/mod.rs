//! Reading a team database (`ClientOptions::source`): the client's calls answered from the rows
//! `amux sync` wrote (sessions, messages, usage) rather than from this machine's agents. Each
//! engine that can run on a rebuilt session does (export, diff, windows, the cost reports);
//! what the database cannot answer (the index, the kept store, billing blocks) is a
//! `CAPABILITY_ERROR`, never this machine's data passed off as the team's.
use std::sync::Mutex;

use super::conn::Target;
use crate::env::Env;
use crate::error::{Error, ErrorCode, Result};

pub mod cost;
mod filters;
pub mod list;
mod rows;
pub mod search;
pub mod session;

/// One team database, connected on the first call and again after the connection is lost.
pub struct Team {
    url: String,
    conn: Mutex<Option<(Target, postgres::Client)>>,
}

impl Team {
    pub fn new(url: &str) -> Team {
        Team {
            url: url.to_string(),
            conn: Mutex::new(None),
        }
    }

    /// Run `f` on the connection (made now, with `env`'s `PG*` variables, if there is none).
    /// Calls of one client take turns: one connection serves them all.
    pub(crate) fn with<T>(
        &self,
        env: &Env,
        f: impl FnOnce(&mut postgres::Client) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        let mut slot = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        if slot.as_ref().is_none_or(|(_, c)| c.is_closed()) {
            let target = Target::parse(&self.url, env)?;
            let client = target.connect()?;
            *slot = Some((target, client));
        }
        let (target, conn) = slot.as_mut().expect("connected above");
        let out = f(conn).map_err(|e| target.error(&e, "read"));
        if conn.is_closed() {
            *slot = None;
        }
        out
    }
}

/// What a team database cannot answer: said, never answered from this machine instead.
pub fn unsupported(what: &str) -> Error {
    Error::new(
        ErrorCode::Capability,
        format!(
            "{what} is not available from a team database (source): it reads this machine only"
        ),
    )
}

/// The filters a team database cannot apply, refused there so that none is silently ignored: its
/// sessions hold their working directory, not the repository (`project`) it belongs to.
pub fn team_check(filters: &crate::options::Filters) -> Result<()> {
    match filters.project {
        None => Ok(()),
        Some(_) => Err(Error::new(
            ErrorCode::Capability,
            "project does not filter a team database's sessions: they hold their working \
             directory, not its repository; filter by cwd instead"
                .to_string(),
        )),
    }
}

/// The filters only a team database answers, refused on this machine's sessions so that none is
/// silently ignored.
pub fn local_check(filters: &crate::options::Filters) -> Result<()> {
    let which = match (&filters.machine, &filters.user) {
        (Some(_), _) => "machine",
        (None, Some(_)) => "user",
        (None, None) => return Ok(()),
    };
    Err(Error::validation(format!(
        "{which} filters a team database's sessions (createClient({{ source }}), amux --db): this machine's sessions have no {which}"
    )))
}
