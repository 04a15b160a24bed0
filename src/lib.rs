//! The napi binding: converts arguments from JS (one JSON string per call, dates as epoch ms),
//! runs the work on libuv's thread pool, and hands back JSON text for the JS layer to revive.
//! Errors cross as a JSON `{code, message}` in the error message; panics become `INTERNAL`.
//! No format knowledge lives here.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use agent_mux_sessions::context::{Progress, ProgressFn};
use agent_mux_sessions::options;
use agent_mux_sessions::{Client, Env, Error as CoreError, Result as CoreResult};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

fn to_napi(e: CoreError) -> napi::Error {
    let body = serde_json::json!({ "code": e.code.as_str(), "message": e.message });
    napi::Error::from_reason(body.to_string())
}

fn parse_args(args: &str) -> CoreResult<Value> {
    serde_json::from_str(args).map_err(|e| CoreError::validation(format!("bad arguments: {e}")))
}

fn field<'a>(v: &'a Value, key: &str) -> &'a Value {
    v.get(key).unwrap_or(&Value::Null)
}

fn json<T: serde::Serialize>(v: &T) -> CoreResult<String> {
    serde_json::to_string(v).map_err(|e| CoreError::internal(e.to_string()))
}

/// One unit of work for the thread pool.
pub struct Job {
    work: Option<Box<dyn FnOnce() -> CoreResult<String> + Send>>,
}

impl Job {
    fn new(work: impl FnOnce() -> CoreResult<String> + Send + 'static) -> AsyncTask<Job> {
        AsyncTask::new(Job {
            work: Some(Box::new(work)),
        })
    }
}

#[napi]
impl Task for Job {
    type Output = String;
    type JsValue = String;

    fn compute(&mut self) -> napi::Result<String> {
        let work = self
            .work
            .take()
            .ok_or_else(|| to_napi(CoreError::internal("job ran twice")))?;
        match catch_unwind(AssertUnwindSafe(work)) {
            Ok(r) => r.map_err(to_napi),
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                Err(to_napi(CoreError::internal(format!(
                    "internal panic: {why}"
                ))))
            }
        }
    }

    fn resolve(&mut self, _env: napi::Env, output: String) -> napi::Result<String> {
        Ok(output)
    }
}

#[napi]
pub struct NativeClient {
    inner: Arc<Client>,
    /// The index's latest progress report, numbered, for the JS layer to poll (issue #16): JS
    /// callbacks are never called from worker threads.
    progress: Arc<Mutex<(u64, Option<Progress>)>>,
}

#[napi]
impl NativeClient {
    /// `options`: JSON of `ClientOptions`. Throws a `VALIDATION_ERROR` for invalid options.
    #[napi(constructor)]
    pub fn new(options: String) -> napi::Result<Self> {
        let mut opts = parse_args(&options)
            .and_then(|v| options::client_options(&v))
            .map_err(to_napi)?;
        let progress: Arc<Mutex<(u64, Option<Progress>)>> = Arc::default();
        let slot = progress.clone();
        opts.progress = Some(ProgressFn(Arc::new(move |p: &Progress| {
            if let Ok(mut s) = slot.lock() {
                *s = (s.0 + 1, Some(p.clone()));
            }
        })));
        Ok(NativeClient {
            inner: Arc::new(Client::new(opts)),
            progress,
        })
    }

    /// The latest index progress as JSON `{seq, agent, done, total}`, or `null` before any.
    #[napi]
    pub fn progress(&self) -> String {
        let s = self.progress.lock().map(|s| s.clone()).unwrap_or_default();
        match s.1 {
            Some(p) => serde_json::json!({
                "seq": s.0, "agent": p.agent, "done": p.done, "total": p.total
            })
            .to_string(),
            None => "null".into(),
        }
    }

    /// `{}` → JSON `IndexStatus`.
    #[napi]
    pub fn index_status(&self, _args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || json(&client.index_status(env)))
    }

    /// `{}` → JSON `IndexStatus` after deleting and building the index again.
    #[napi]
    pub fn index_rebuild(&self, _args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || json(&client.index_rebuild(env)?))
    }

    /// `{}` → JSON `true` when the index was deleted, `false` when it is off.
    #[napi]
    pub fn index_clear(&self, _args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || json(&client.index_clear(env)?))
    }

    /// `{agent, options}` → JSON `SessionSummary[]`.
    #[napi]
    pub fn list(&self, args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || {
            let v = parse_args(&args)?;
            let agent = options::string_arg(field(&v, "agent"), "agent")?;
            let opts = options::list_options(field(&v, "options"))?;
            json(&client.list(env, &agent, &opts)?)
        })
    }

    /// `{agent, sessionId}` → JSON `Session`.
    #[napi]
    pub fn get(&self, args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || {
            let v = parse_args(&args)?;
            let agent = options::string_arg(field(&v, "agent"), "agent")?;
            let id = options::string_arg(field(&v, "sessionId"), "sessionId")?;
            // Written while the session is freed piece by piece: a large session and its JSON
            // are never both whole in memory.
            let session = client.get(env, &agent, &id)?;
            session
                .into_json()
                .map_err(|e| CoreError::internal(e.to_string()))
        })
    }

    /// `{query}` → JSON `SessionSummary[]` with `relevanceScore`.
    #[napi]
    pub fn search(&self, args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || {
            let v = parse_args(&args)?;
            let q = options::search_query(field(&v, "query"))?;
            json(&client.search(env, &q)?)
        })
    }

    /// `{options}` → JSON `CostSummary`.
    #[napi]
    pub fn total_cost(&self, args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || {
            let v = parse_args(&args)?;
            let opts = options::cost_options(field(&v, "options"))?;
            json(&client.total_cost(env, &opts)?)
        })
    }

    /// `{agent, sessionId, format}` → the exported text itself.
    #[napi]
    pub fn export(&self, args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || {
            let v = parse_args(&args)?;
            let agent = options::string_arg(field(&v, "agent"), "agent")?;
            let id = options::string_arg(field(&v, "sessionId"), "sessionId")?;
            let format = options::export_format(field(&v, "format"))?;
            client.export(env, &agent, &id, format)
        })
    }

    /// `{a: {agent, sessionId}, b: {agent, sessionId}}` → JSON `SessionDiff`.
    #[napi]
    pub fn diff(&self, args: String) -> AsyncTask<Job> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || {
            let v = parse_args(&args)?;
            let side = |k: &str| -> CoreResult<(String, String)> {
                let s = field(&v, k);
                if !s.is_object() {
                    return Err(CoreError::validation(format!(
                        "{k} must be an object {{ agent, sessionId }}"
                    )));
                }
                Ok((
                    options::string_arg(field(s, "agent"), &format!("{k}.agent"))?,
                    options::string_arg(field(s, "sessionId"), &format!("{k}.sessionId"))?,
                ))
            };
            let (a, b) = (side("a")?, side("b")?);
            json(&client.diff(env, (&a.0, &a.1), (&b.0, &b.1))?)
        })
    }
}

/// Is `name` a registered agent? (Used by the JS layer's pure `resolveNativeId`.)
#[napi]
pub fn is_known_agent(name: String) -> bool {
    agent_mux_sessions::agents::is_built_in(&name)
}
