//! The napi binding: converts arguments from JS (one JSON string per call, dates as epoch ms),
//! runs the work on libuv's thread pool, and hands back JSON text for the JS layer to revive, or
//! for `get` (whose sessions can be hundreds of MB) the JS objects themselves, Dates included
//! (`to_js`), or for the JSON a command prints, a Buffer over its bytes. Text and objects are
//! both written from the model's serde derives.
//! Errors reach JS as errors whose `code` is the core's (`VALIDATION_ERROR`, …) and whose message
//! is the core's message; panics become `INTERNAL`.
//! No format knowledge lives here.
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use agent_mux_sessions::context::{Progress, ProgressFn};
use agent_mux_sessions::model::{Session, SessionSummary};
use agent_mux_sessions::options::Cancel;
use agent_mux_sessions::{ids, memory, tsv};
use agent_mux_sessions::{Client, Env, Error as CoreError, Result as CoreResult};
use agent_mux_wire as wire;
use napi::bindgen_prelude::*;
use napi::{JsError, JsString, JsValue};
use napi_derive::napi;
use serde_json::Value;
use std::collections::HashMap;

mod objects;
mod to_js;
mod window;

/// The addon's own allocations go through mimalloc: a search or list makes and frees hundreds of
/// thousands of small strings, which glibc's malloc served slowly, growing and trimming its heap
/// at every call. Built for a library loaded with `dlopen` (local-dynamic TLS); not on aarch64
/// musl (see Cargo.toml).
#[cfg(not(all(target_os = "linux", target_env = "musl", target_arch = "aarch64")))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Give the pages mimalloc holds free back to the system: the core's `memory::release_freed`,
/// once `NativeClient::new` has installed it. Reading a report's sessions frees megabytes that it
/// would keep a while longer, and the report's text is allocated next.
#[cfg(not(all(target_os = "linux", target_env = "musl", target_arch = "aarch64")))]
fn release_mimalloc() {
    extern "C" {
        /// mimalloc's own (linked in with the global allocator above).
        fn mi_collect(force: bool);
    }
    // SAFETY: mi_collect takes no pointer; it only walks the allocator's own pages.
    unsafe { mi_collect(true) }
}

/// Tell the core how freed memory goes back to the system under the allocator in use here:
/// mimalloc's collection, or (aarch64 musl, the system allocator) the core's own default.
fn install_release() {
    #[cfg(not(all(target_os = "linux", target_env = "musl", target_arch = "aarch64")))]
    memory::use_release(release_mimalloc);
}

/// A core error as napi throws it: the status string becomes the JS error's `code`.
type Failure = napi::Error<&'static str>;

fn to_napi(e: CoreError) -> Failure {
    napi::Error::new(e.code.as_str(), e.message)
}

/// A core error as the JS error a task's promise rejects with. napi's tasks reject with an
/// `Error<Status>`, whose code would be napi's status; one that refers to a JS error made here
/// rejects with that error itself, code and all.
fn rejection(env: napi::Env, e: CoreError) -> napi::Error {
    let message = e.message.clone();
    // SAFETY: `env` is the live env of the task's completion callback, on the JS thread.
    let made = unsafe { JsError::from(to_napi(e)).into_value(env.raw()) };
    if made.is_null() {
        // The env is tearing down: nothing is left to receive the error.
        return napi::Error::from_reason(message);
    }
    // SAFETY: `made` is an error created just now in this callback's env and scope.
    match unsafe { Unknown::from_napi_value(env.raw(), made) } {
        Ok(js) => napi::Error::from(js),
        Err(_) => napi::Error::from_reason(message),
    }
}

fn parse_args(args: &str) -> CoreResult<Value> {
    serde_json::from_str(args).map_err(|e| CoreError::validation(format!("bad arguments: {e}")))
}

fn field<'a>(v: &'a Value, key: &str) -> &'a Value {
    v.get(key).unwrap_or(&Value::Null)
}

/// The sessions `{agent, options}` asks `list` for.
fn list_of(client: &Client, env: Env, v: &Value) -> CoreResult<Vec<SessionSummary>> {
    let agent = wire::string_arg(field(v, "agent"), "agent")?;
    let opts = wire::list_options(field(v, "options"))?;
    client.list(env, &agent, &opts)
}

/// The sessions `{options}` asks `listAll` for.
fn list_all_of(client: &Client, env: Env, v: &Value) -> CoreResult<Vec<SessionSummary>> {
    client.list_all(env, &wire::list_options(field(v, "options"))?)
}

/// `v` as `JSON.stringify(v, null, 2)` writes it (numbers as JS prints them).
/// Written twice, first only counted: megabytes of text grown by doubling would hold the last
/// half-size copy beside it, and the allocator keeps what is freed.
fn pretty<T: serde::Serialize>(v: &T) -> CoreResult<Vec<u8>> {
    let write = |w: &mut dyn std::io::Write| {
        agent_mux_sessions::export::json::write_pretty(w, v)
            .map_err(|e| CoreError::internal(e.to_string()))
    };
    let mut size = Counter(0);
    write(&mut size)?;
    let mut out = Vec::with_capacity(size.0);
    write(&mut out)?;
    Ok(out)
}

/// A writer that keeps only how many bytes it was given.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// JSON text for the JS layer to parse, in ASCII: characters past it are written as `\u` escapes.
/// V8 makes a string from ASCII bytes several times faster than from UTF-8 with other characters
/// in it, and JSON.parse reads the same values.
fn json<T: serde::Serialize>(v: &T) -> CoreResult<String> {
    let mut out = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, AsciiOnly);
    v.serialize(&mut ser)
        .map_err(|e| CoreError::internal(e.to_string()))?;
    String::from_utf8(out).map_err(|e| CoreError::internal(e.to_string()))
}

/// serde_json's compact output, with every character past ASCII escaped.
struct AsciiOnly;

impl serde_json::ser::Formatter for AsciiOnly {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        if fragment.is_ascii() {
            return w.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices().filter(|(_, c)| !c.is_ascii()) {
            w.write_all(&fragment.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                write!(w, "\\u{u:04x}")?;
            }
            start = i + c.len_utf8();
        }
        w.write_all(&fragment.as_bytes()[start..])
    }
}

/// One unit of work for the thread pool, whose result `T` becomes a JS value on the main thread:
/// text as a string, a session (`get`) as objects built directly (`to_js`). Which way each call
/// takes was measured (bench/contract.mjs): text, which V8 parses faster than objects are built
/// through napi, except for a session, which as text is held three times over.
pub struct Job<T> {
    work: Option<Box<dyn FnOnce() -> CoreResult<T> + Send>>,
}

impl<T> Job<T> {
    fn new(work: impl FnOnce() -> CoreResult<T> + Send + 'static) -> AsyncTask<Job<T>>
    where
        Job<T>: Task,
    {
        AsyncTask::new(Job {
            work: Some(Box::new(work)),
        })
    }

    /// Run the work once, with a panic turned into an `INTERNAL` error. The error is kept as
    /// the core's until the main thread makes it a JS error (`rejection`).
    fn run(&mut self) -> napi::Result<CoreResult<T>> {
        let Some(work) = self.work.take() else {
            return Ok(Err(CoreError::internal("job ran twice")));
        };
        Ok(
            catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|panic| {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                Err(CoreError::internal(format!("internal panic: {why}")))
            }),
        )
    }
}

/// Jobs answering with text (JSON, or the exported text itself).
pub type TextJob = Job<String>;
/// `get`'s job: the session, built into JS objects on the main thread.
pub type SessionJob = Job<Session>;
/// Jobs answering with UTF-8 bytes that JS gets as a Buffer over the same memory: a report's JSON
/// of megabytes reaches stdout without being copied into a JS string and back out of it.
pub type BytesJob = Job<Vec<u8>>;

#[napi]
impl Task for TextJob {
    type Output = CoreResult<String>;
    type JsValue = JsString<'static>;

    fn compute(&mut self) -> napi::Result<CoreResult<String>> {
        self.run()
    }

    fn resolve(
        &mut self,
        env: napi::Env,
        output: CoreResult<String>,
    ) -> napi::Result<JsString<'static>> {
        let output = output.map_err(|e| rejection(env, e))?;
        // ASCII (all JSON from `json`) is copied into V8 as it is; UTF-8 has to be decoded.
        let text = if output.is_ascii() {
            env.create_string_latin1(&output)?
        } else {
            env.create_string(&output)?
        };
        // SAFETY: `text` is a string created just now in this callback's env and scope.
        unsafe { JsString::from_napi_value(env.raw(), text.raw()) }
    }
}

#[napi]
impl Task for BytesJob {
    type Output = CoreResult<Vec<u8>>;
    type JsValue = Buffer;

    fn compute(&mut self) -> napi::Result<CoreResult<Vec<u8>>> {
        self.run()
    }

    fn resolve(&mut self, env: napi::Env, output: CoreResult<Vec<u8>>) -> napi::Result<Buffer> {
        Ok(Buffer::from(output.map_err(|e| rejection(env, e))?))
    }
}

#[napi]
impl Task for SessionJob {
    type Output = CoreResult<Session>;
    type JsValue = Object<'static>;

    fn compute(&mut self) -> napi::Result<CoreResult<Session>> {
        self.run()
    }

    fn resolve(
        &mut self,
        env: napi::Env,
        output: CoreResult<Session>,
    ) -> napi::Result<Object<'static>> {
        let output = output.map_err(|e| rejection(env, e))?;
        let made = to_js::Builder::with_dates(env.raw(), 1).session(output)?;
        // SAFETY: `made` is an object created just now in this callback's env and scope.
        unsafe { Object::from_napi_value(env.raw(), made) }
    }
}

#[napi]
pub struct NativeClient {
    inner: Arc<Client>,
    /// The index's latest progress report, numbered, for the JS layer to poll: JS
    /// callbacks are never called from worker threads.
    progress: Arc<Mutex<(u64, Option<Progress>)>>,
    /// The searches under way that their caller may give up (`cancel`), by the caller's number.
    cancels: Arc<Mutex<HashMap<u32, Cancel>>>,
}

/// Forgets a call's `Cancel` once the call is over, however it ends.
struct Forget(Arc<Mutex<HashMap<u32, Cancel>>>, u32);

impl Drop for Forget {
    fn drop(&mut self) {
        if let Ok(mut m) = self.0.lock() {
            m.remove(&self.1);
        }
    }
}

#[napi]
impl NativeClient {
    /// A call's work, run on the thread pool with this client, the environment read on the
    /// calling thread now (`HOME` and the overrides as they are at call time) and the call's
    /// parsed `{…}` arguments.
    pub(crate) fn job<T>(
        &self,
        args: String,
        work: impl FnOnce(&Client, Env, &Value) -> CoreResult<T> + Send + 'static,
    ) -> AsyncTask<Job<T>>
    where
        Job<T>: Task,
    {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || work(&client, env, &parse_args(&args)?))
    }

    /// `options`: JSON of `ClientOptions`. Throws a `VALIDATION_ERROR` for invalid options.
    #[napi(constructor)]
    pub fn new(options: String) -> napi::Result<Self, &'static str> {
        install_release();
        let mut opts = parse_args(&options)
            .and_then(|v| wire::client_options(&v))
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
            cancels: Arc::default(),
        })
    }

    /// Give up the search numbered `call` (its `signal` aborted): it stops at its next stage and
    /// rejects with `ABORTED`. A call already done is not found, and nothing happens.
    #[napi]
    pub fn cancel(&self, call: u32) {
        if let Some(c) = self.cancels.lock().ok().and_then(|m| m.get(&call).cloned()) {
            c.cancel();
        }
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

    /// `{}` → JSON of the doctor's report (`Client::doctor`).
    #[napi]
    pub fn doctor(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, _| json(&client.doctor(env)?))
    }

    /// `{options?: {verify?}}` → JSON `KeepStatus`.
    #[napi]
    pub fn keep_status(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let verify = match field(field(v, "options"), "verify") {
                Value::Null => false,
                Value::Bool(b) => *b,
                v => {
                    return Err(CoreError::validation(format!(
                        "verify must be true or false, not {v}"
                    )))
                }
            };
            client.local_only("keep.status")?;
            json(&client.keep_status(env, verify))
        })
    }

    /// `{on}` → JSON `KeepStatus` once the setting is written.
    #[napi]
    pub fn keep_set(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let on = match field(v, "on") {
                Value::Bool(b) => *b,
                v => {
                    return Err(CoreError::validation(format!(
                        "keep.set takes a boolean, got {v}"
                    )))
                }
            };
            json(&client.keep_set(env, on)?)
        })
    }

    /// `{options: {ids?, before?}}` → JSON `{forgotten}`.
    #[napi]
    pub fn keep_forget(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let (ids, before) = wire::forget_options(field(v, "options"))?;
            let n = client.keep_forget(env, &ids, before)?;
            json(&serde_json::json!({ "forgotten": n }))
        })
    }

    /// `{}` → JSON `IndexStatus`.
    #[napi]
    pub fn index_status(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, _| {
            client.local_only("index.status")?;
            json(&client.index_status(env))
        })
    }

    /// `{}` → JSON `IndexStatus` after deleting and building the index again.
    #[napi]
    pub fn index_rebuild(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, _| json(&client.index_rebuild(env)?))
    }

    /// `{}` → JSON `true` when the index was deleted, `false` when it is off.
    #[napi]
    pub fn index_clear(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, _| json(&client.index_clear(env)?))
    }

    /// `{options}` → JSON `IndexStatus` after bringing the index up to date with the stores.
    #[napi]
    pub fn index_update(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let if_idle = wire::update_if_idle(&v["options"])?;
            json(&client.index_update(env, if_idle)?)
        })
    }

    /// Whether a search left changes for the caller to write (`indexUpdates: 'deferred'`).
    #[napi]
    pub fn index_pending(&self) -> bool {
        self.inner.index_pending()
    }

    /// Whether a thread of this process is writing the index (`indexUpdates: 'background'`).
    #[napi]
    pub fn index_writing(&self) -> bool {
        self.inner.index_writing(Env::from_process())
    }

    /// What this client's searches left for the index that this process has not written, as
    /// JSON `[{dir, env: {NAME: value | null}}]`: the JS layer hands it to a process of its own
    /// when this one exits.
    #[napi]
    pub fn index_left(&self) -> String {
        let left: Vec<Value> = self
            .inner
            .index_left()
            .into_iter()
            .map(|l| {
                let env: serde_json::Map<String, Value> = l
                    .env
                    .variables()
                    .map(|(k, v)| (k.to_string(), v.map_or(Value::Null, |v| v.into())))
                    .collect();
                serde_json::json!({ "dir": l.dir.to_string_lossy(), "env": env })
            })
            .collect();
        Value::Array(left).to_string()
    }

    /// `{close}` → JSON `null` once no thread of this process writes the index this client uses
    /// (waited for off the JS thread); with `close`, what its searches left is then forgotten.
    #[napi]
    pub fn index_idle(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let close = field(v, "close").as_bool() == Some(true);
            client.index_idle(env, close);
            Ok("null".into())
        })
    }

    /// `{agent, options}` → JSON `SessionSummary[]`.
    #[napi]
    pub fn list(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| json(&list_of(client, env, v)?))
    }

    /// `{agent, options}` → the same sessions as tab-separated lines (`tsv::session_list`).
    #[napi]
    pub fn list_tsv(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            Ok(tsv::session_list(&list_of(client, env, v)?))
        })
    }

    /// JSON rows (arrays of strings, numbers and nulls) → tab-separated lines (`tsv::rows`): the
    /// one place the CLI's piped output is written.
    #[napi]
    pub fn tsv_rows(&self, rows: String) -> napi::Result<String, &'static str> {
        parse_args(&rows)
            .and_then(|v| wire::tsv_rows(&v))
            .map(|r| tsv::rows(&r))
            .map_err(to_napi)
    }

    /// `{options}` → JSON `SessionSummary[]` of every agent (`Client::list_all`).
    #[napi]
    pub fn list_all(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| json(&list_all_of(client, env, v)?))
    }

    /// `{options}` → the same sessions as tab-separated lines, the unified id first.
    #[napi]
    pub fn list_all_tsv(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            Ok(tsv::session_list_unified(&list_all_of(client, env, v)?))
        })
    }

    /// `{agent, sessionId, options: {redact}}` → the `Session` as JS objects, its moments as
    /// Dates.
    #[napi]
    pub fn get(&self, args: String) -> AsyncTask<SessionJob> {
        self.job(args, |client, env, v| {
            let agent = wire::string_arg(field(v, "agent"), "agent")?;
            let id = wire::string_arg(field(v, "sessionId"), "sessionId")?;
            let redact = wire::opt_redact(v)?;
            let machine = wire::opt_machine(v)?;
            let session = client.get_on(env, &agent, &id, machine.as_deref())?;
            Ok(client.redacted(redact, session))
        })
    }

    /// `{query}` → JSON `SessionSummary[]` with `relevanceScore`. `call`: the number `cancel`
    /// gives it up by.
    #[napi]
    pub fn search(&self, args: String, call: Option<u32>) -> AsyncTask<TextJob> {
        let cancel = Cancel::default();
        // Known before the work is queued: a `cancel` that follows at once finds it.
        if let (Some(n), Ok(mut m)) = (call, self.cancels.lock()) {
            m.insert(n, cancel.clone());
        }
        let done = call.map(|n| Forget(self.cancels.clone(), n));
        self.job(args, move |client, env, v| {
            let _done = done;
            let mut q = wire::search_query(field(v, "query"))?;
            q.cancel = cancel;
            json(&client.search(env, &q)?)
        })
    }

    /// `{path, options}` → JSON `TouchedSession[]` (beyond the spec: `sessions.touched`).
    #[napi]
    pub fn touched(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let path = wire::string_arg(field(v, "path"), "path")?;
            let opts = wire::touched_options(field(v, "options"))?;
            json(&client.touched(env, &path, &opts)?)
        })
    }

    /// `{agent, sessionId, options: {redact}}` → JSON `FileTouch[]` of one session (beyond the
    /// spec: `sessions.touches`).
    #[napi]
    pub fn touches(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let agent = wire::string_arg(field(v, "agent"), "agent")?;
            let id = wire::string_arg(field(v, "sessionId"), "sessionId")?;
            let redact = wire::opt_redact(v)?;
            json(&client.touches(env, &agent, &id, redact)?)
        })
    }

    /// `{options}` → JSON `CostSummary`.
    #[napi]
    pub fn total_cost(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let opts = wire::cost_options(field(v, "options"))?;
            json(&client.total_cost(env, &opts)?)
        })
    }

    /// `{url, options}` → JSON `SyncResult`: this machine's sessions pushed into the team database.
    #[napi]
    pub fn sync(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let url = wire::string_arg(field(v, "url"), "url")?;
            let opts = wire::sync_options(field(v, "options"))?;
            json(&client.sync(env, &url, &opts)?)
        })
    }

    /// `{options}` → JSON `Recap`: what the agents did in a period, per project.
    #[napi]
    pub fn recap(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let opts = wire::recap_options(field(v, "options"))?;
            json(&client.recap(env, &opts)?)
        })
    }

    /// `{report, options}` → JSON report (`{daily|weekly|monthly|sessions, totals, …}`).
    #[napi]
    pub fn cost_report(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let opts = wire::report_options(field(v, "report"), field(v, "options"))?;
            json(&client.cost_report(env, &opts)?)
        })
    }

    /// `{options}` → JSON `{blocks}`.
    #[napi]
    pub fn cost_blocks(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let opts = wire::blocks_options(field(v, "options"))?;
            json(&client.cost_blocks(env, &opts)?)
        })
    }

    /// `{report, options, breakdown}` → the report as tab-separated lines (`tsv::cost_report`).
    #[napi]
    pub fn cost_report_tsv(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let opts = wire::report_options(field(v, "report"), field(v, "options"))?;
            let breakdown = field(v, "breakdown").as_bool().unwrap_or(false);
            Ok(tsv::cost_report(
                &client.cost_report(env, &opts)?,
                breakdown,
            ))
        })
    }

    /// `{report, options}` → the report as `JSON.stringify(report, null, 2)` writes it, UTF-8.
    #[napi]
    pub fn cost_report_json(&self, args: String) -> AsyncTask<BytesJob> {
        self.job(args, |client, env, v| {
            let opts = wire::report_options(field(v, "report"), field(v, "options"))?;
            let sums = client.cost_report_sums(env, &opts)?;
            memory::release_freed();
            pretty(&sums)
        })
    }

    /// `{options}` → the blocks as `JSON.stringify(blocks, null, 2)` writes them, UTF-8.
    #[napi]
    pub fn cost_blocks_json(&self, args: String) -> AsyncTask<BytesJob> {
        self.job(args, |client, env, v| {
            let opts = wire::blocks_options(field(v, "options"))?;
            let blocks = client.cost_blocks(env, &opts)?;
            memory::release_freed();
            pretty(&blocks)
        })
    }

    /// `{options}` → the blocks as tab-separated lines (`tsv::cost_blocks`).
    #[napi]
    pub fn cost_blocks_tsv(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let opts = wire::blocks_options(field(v, "options"))?;
            Ok(tsv::cost_blocks(&client.cost_blocks(env, &opts)?))
        })
    }

    /// `{agent, sessionId, format, options: {redact}}` → the exported text itself.
    #[napi]
    pub fn export(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let agent = wire::string_arg(field(v, "agent"), "agent")?;
            let id = wire::string_arg(field(v, "sessionId"), "sessionId")?;
            let format = wire::export_format(field(v, "format"))?;
            let redact = wire::opt_redact(v)?;
            let out = client.export(env, &agent, &id, format, redact);
            // The session, dropped, leaves the process before its text is copied into JS.
            memory::release_freed();
            out
        })
    }

    /// `{a: {agent, sessionId}, b: {agent, sessionId}, options: {redact}}` → JSON `SessionDiff`.
    #[napi]
    pub fn diff(&self, args: String) -> AsyncTask<TextJob> {
        self.job(args, |client, env, v| {
            let side = |k: &str| -> CoreResult<(String, String)> {
                let s = field(v, k);
                if !s.is_object() {
                    return Err(CoreError::validation(format!(
                        "{k} must be an object {{ agent, sessionId }}"
                    )));
                }
                Ok((
                    wire::string_arg(field(s, "agent"), &format!("{k}.agent"))?,
                    wire::string_arg(field(s, "sessionId"), &format!("{k}.sessionId"))?,
                ))
            };
            let (a, b) = (side("a")?, side("b")?);
            let redact = wire::opt_redact(v)?;
            json(&client.diff(env, (&a.0, &a.1), (&b.0, &b.1), redact)?)
        })
    }
}

/// The built-in agents' names in the spec's order, from `ids::AGENT_NAMES` (`BUILT_IN_AGENTS`).
#[napi]
pub fn built_in_agents() -> Vec<String> {
    ids::AGENT_NAMES.iter().map(|n| n.to_string()).collect()
}

/// `resolveUnifiedId`: `<agent>:<native id>` (spec section 5).
#[napi]
pub fn unified_id(agent: String, native_session_id: String) -> String {
    ids::unified_id(&agent, &native_session_id)
}

#[napi(object)]
pub struct NativeIdParts {
    pub agent: String,
    pub native_session_id: String,
}

/// `resolveNativeId`: the id split on its first colon, or null when it is no built-in agent's.
#[napi]
pub fn parse_unified_id(unified_id: String) -> Option<NativeIdParts> {
    ids::parse_unified_id(&unified_id).map(|(agent, native)| NativeIdParts {
        agent: agent.to_string(),
        native_session_id: native.to_string(),
    })
}
