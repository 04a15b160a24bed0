//! Pi session tree JSONL, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one_file("pi", ".pi/agent/sessions/--home-dev-src--/2026-11-11T20-33-35-000Z_1e239eb4-52fe-4478-9694-8dedaafb4294.jsonl", &[], data);
});
