//! The other side of each call's way across (`bench/contract.mjs` times both): the results that
//! cross as JSON text built as JS objects instead, the model's moments as JS Dates, and `get`'s
//! session as JSON text. Both ways are written from the model's serde derives.
use agent_mux_sessions::{Error as CoreError, Result as CoreResult};
use agent_mux_wire as wire;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

use crate::{field, json, list_of, rejection, to_js, Job, NativeClient, TextJob};

/// A result as a JSON value (made on the worker thread) and the depth of the objects that hold
/// its moments, built into JS on the main thread.
pub struct Dated(Value, usize);
pub type ValueJob = Job<Dated>;

/// `v` as a JSON value whose moments are in the objects at `depth`.
fn value<T: serde::Serialize>(v: &T, depth: usize) -> CoreResult<Dated> {
    let made = serde_json::to_value(v).map_err(|e| CoreError::internal(e.to_string()))?;
    Ok(Dated(made, depth))
}

#[napi]
impl Task for ValueJob {
    type Output = CoreResult<Dated>;
    type JsValue = Object<'static>;

    fn compute(&mut self) -> napi::Result<CoreResult<Dated>> {
        self.run()
    }

    fn resolve(
        &mut self,
        env: napi::Env,
        output: CoreResult<Dated>,
    ) -> napi::Result<Object<'static>> {
        let Dated(output, depth) = output.map_err(|e| rejection(env, e))?;
        let made = to_js::Builder::with_dates(env.raw(), depth).value(&output)?;
        // SAFETY: `made` is a value created just now in this callback's env and scope.
        unsafe { Object::from_napi_value(env.raw(), made) }
    }
}

#[napi]
impl NativeClient {
    /// `list`'s sessions as objects.
    #[napi]
    pub fn list_objects(&self, args: String) -> AsyncTask<ValueJob> {
        self.job(args, |client, env, v| value(&list_of(client, env, v)?, 1))
    }

    /// `search`'s sessions as objects.
    #[napi]
    pub fn search_objects(&self, args: String) -> AsyncTask<ValueJob> {
        self.job(args, |client, env, v| {
            value(
                &client.search(env, &wire::search_query(field(v, "query"))?)?,
                1,
            )
        })
    }

    /// `totalCost`'s summary as objects.
    #[napi]
    pub fn total_cost_objects(&self, args: String) -> AsyncTask<ValueJob> {
        self.job(args, |client, env, v| {
            value(
                &client.total_cost(env, &wire::cost_options(field(v, "options"))?)?,
                1,
            )
        })
    }

    /// A cost report as objects.
    #[napi]
    pub fn cost_report_objects(&self, args: String) -> AsyncTask<ValueJob> {
        self.job(args, |client, env, v| {
            let opts = wire::report_options(field(v, "report"), field(v, "options"))?;
            value(&client.cost_report(env, &opts)?, 2)
        })
    }

    /// The billing blocks as objects.
    #[napi]
    pub fn cost_blocks_objects(&self, args: String) -> AsyncTask<ValueJob> {
        self.job(args, |client, env, v| {
            value(
                &client.cost_blocks(env, &wire::blocks_options(field(v, "options"))?)?,
                2,
            )
        })
    }

    /// `get`'s session as JSON text.
    #[napi]
    pub fn get_text(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let agent = wire::string_arg(field(v, "agent"), "agent")?;
            let id = wire::string_arg(field(v, "sessionId"), "sessionId")?;
            json(&client.get(env, &agent, &id)?)
        })
    }
}
