//! Hermes sessions. Reader not written yet: the store reads as empty.
use crate::agents::{Agent, Source};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::{Session, SessionSummary};

pub struct Hermes;

impl Agent for Hermes {
    fn name(&self) -> &'static str {
        "hermes"
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

    fn native_search(
        &self,
        ctx: &Context,
        query: &crate::search::Query,
    ) -> Option<Result<Vec<crate::search::NativeHit>>> {
        Some(crate::search::hermes::native_search(ctx, query))
    }
}
