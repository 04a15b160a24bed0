//! Copilot CLI events.jsonl; after a `%%%%` separator line, its workspace.yaml, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = parts(data, 2);
    let d = ".copilot/session-state/5b4b1b75-321c-4296-abd8-c67656d050cd";
    one_file("copilot", &format!("{d}/events.jsonl"), &[(&format!("{d}/workspace.yaml"), p[1])], p[0]);
});
