//! Codex rollout JSONL, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one_file("codex", ".codex/sessions/2026/10/19/rollout-2026-10-19T23-27-30-78572976-3a12-417c-9a26-f88938703800.jsonl", &[], data);
});
