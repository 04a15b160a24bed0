//! Codex sessions. Reader not written yet: the store reads as empty.
use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Session, SessionSummary};

pub struct Codex;

impl Agent for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn sources(&self, _ctx: &Context) -> Vec<Source> {
        Vec::new()
    }

    fn summaries(&self, _ctx: &Context, _source: &Source) -> Result<Vec<SessionSummary>> {
        Ok(Vec::new())
    }

    fn load(&self, _ctx: &Context, session_id: &str) -> Result<Session> {
        Err(Error::session_not_found(self.name(), session_id))
    }

    fn load_source(&self, _ctx: &Context, _source: &Source) -> Result<Vec<Session>> {
        Ok(Vec::new())
    }
}
