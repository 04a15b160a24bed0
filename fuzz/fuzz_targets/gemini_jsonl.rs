//! Gemini CLI 0.40+ chat JSONL, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one_file("gemini", ".gemini/tmp/shop/chats/session-2026-10-25T00-05-81fc069e.jsonl", &[(".gemini/tmp/shop/.project_root", b"/work/shop\n")], data);
});
