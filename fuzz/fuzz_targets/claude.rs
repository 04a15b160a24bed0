//! Claude Code project JSONL, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one_file("claude", ".claude/projects/-home-u-app/8b0d7c2e-1111-4000-8000-000000000001.jsonl", &[], data);
});
