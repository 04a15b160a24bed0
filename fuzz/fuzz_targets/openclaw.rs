//! OpenClaw transcript JSONL; after a `%%%%` separator line, the sessions.json index, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = parts(data, 2);
    let d = ".openclaw/agents/main/sessions";
    one_file("openclaw", &format!("{d}/9d3c6a52-2f1e-4c5e-9a57-0e4f3b2a1c10.jsonl"), &[(&format!("{d}/sessions.json"), p[1])], p[0]);
});
