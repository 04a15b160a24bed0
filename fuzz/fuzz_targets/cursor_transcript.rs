//! Cursor agent transcript JSONL, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one_file("cursor", ".cursor/projects/home-u-app/agent-transcripts/26433798-7e83-4904-bc17-3498b87e4e2b.jsonl", &[], data);
});
