//! omp session tree JSONL (title slot + tree), written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one_file("omp", ".omp/agent/sessions/-src-docs/2026-10-28T18-52-37-000Z_5b6e48b0-85e9-451c-9b3a-953c4dc1d327.jsonl", &[], data);
});
