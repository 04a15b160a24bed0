//! The search query sanitiser and parser (Hermes' FTS5 subset), and the Hermes route choice.
#![no_main]
use agent_mux_sessions::search::{hermes, query};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let sanitized = query::sanitize(&text);
    let _ = hermes::route(&sanitized);
    if let Some(q) = query::Query::parse(&text) {
        assert_eq!(q.positive.len(), q.leaves.len());
        assert_eq!(q.sanitized, sanitized);
        let _ = q.eval(&|i| i % 2 == 0);
        let _ = q.eval_ignoring_not(&|_| true);
    }
});
