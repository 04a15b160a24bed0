//! `window`: a window of one session's messages (`agent_mux_sessions::window`), as JSON text.
use agent_mux_sessions::{memory, Env};
use agent_mux_wire as wire;
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::{field, json, parse_args, Job, NativeClient, TextJob};

#[napi]
impl NativeClient {
    /// `{agent, sessionId, options}` → JSON `MessageWindow`.
    #[napi]
    pub fn window(&self, args: String) -> AsyncTask<TextJob> {
        let (client, env) = (self.inner.clone(), Env::from_process());
        Job::new(move || {
            let v = parse_args(&args)?;
            let agent = wire::string_arg(field(&v, "agent"), "agent")?;
            let id = wire::string_arg(field(&v, "sessionId"), "sessionId")?;
            let opts = wire::window_options(field(&v, "options"))?;
            let out = json(&client.window(env, &agent, &id, &opts)?);
            // The session, dropped, leaves the process before its window is copied into JS.
            memory::release_freed();
            out
        })
    }
}
