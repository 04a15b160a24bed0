//! The shared JSONL reader: line splitting (torn lines, BOM, CRLF), parse_line / parse_borrowed
//! with the invalid-UTF-8 repair, read_lines over a file, and the head peeks.
#![no_main]
use agent_mux_fuzz::temp_home;
use agent_mux_sessions::read::{head, jsonl};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut lines = 0usize;
    jsonl::for_each_line_in(std::io::Cursor::new(data), |line| {
        lines += 1;
        let _ = jsonl::parse_line::<Value>(line);
        let mut scratch = String::new();
        let _ = jsonl::parse_borrowed::<std::collections::HashMap<&str, Value>>(line, &mut scratch);
        true
    })
    .unwrap();
    let home = temp_home();
    let p = home.path().join("s.jsonl");
    std::fs::write(&p, data).unwrap();
    let stats = jsonl::read_lines::<Value>(&p, |_| true).unwrap();
    assert_eq!(stats.parsed + stats.bad, lines, "both passes see the same lines");
    let _ = head::first_record(&p);
    let _ = head::first_string_field(&p, "sessionId", 4096);
});
