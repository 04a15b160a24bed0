//! OpenCode legacy storage/: session, message and part JSON documents separated by `%%%%` lines, written at the agent's store path in a temp home, then listed, loaded, exported,
//! searched and costed through the public API.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let p = parts(data, 3);
    let s = ".local/share/opencode/storage";
    one_file("opencode", &format!("{s}/session/global/ses_L.json"), &[(&format!("{s}/message/ses_L/msg_a.json"), p[1]), (&format!("{s}/part/msg_a/prt_a.json"), p[2])], p[0]);
});
