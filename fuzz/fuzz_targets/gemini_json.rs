//! Gemini CLI legacy chat JSON document, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    one_file("gemini", ".gemini/tmp/shop/chats/session-2025-11-02T08-15-0f1e2d3c.json", &[(".gemini/tmp/shop/.project_root", b"/work/shop\n")], data);
});
