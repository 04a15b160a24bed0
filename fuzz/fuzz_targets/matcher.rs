//! The matcher: the first line is a query, the rest a session's text (title, then one message per
//! line). Runs the raw-byte prefilter (which must keep every matching text), the analysis
//! (checked against the exhaustive one), the score and the snippet.
#![no_main]
use agent_mux_sessions::model::{parse_time_str, Message, Role, Session, SessionSummary};
use agent_mux_sessions::search::{prefilter::Prefilter, query::Query, score};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (qtext, body) = text.split_once('\n').unwrap_or((&text, ""));
    let Some(q) = Query::parse(qtext) else {
        return;
    };
    let pre = Prefilter::new(&q);
    let mask = pre.scan_bytes(body.as_bytes());
    let mut lines = body.lines();
    let t = parse_time_str("2025-01-01T00:00:00Z").unwrap();
    let mut summary = SessionSummary::new("claude", "s", t, t);
    summary.title = lines.next().unwrap_or("").to_string();
    let messages = lines
        .enumerate()
        .map(|(i, l)| Message::new(if i % 2 == 0 { Role::User } else { Role::Assistant }, l))
        .collect();
    let session = Session {
        summary,
        messages,
        raw: None,
    };
    let st = score::analyse(&score::Matcher::new(&q, &pre), &session);
    // The shortcuts (prefiltered fields, matching on the original text) change nothing.
    assert_eq!(st, score::analyse(&score::Matcher::exhaustive(&q, &pre), &session));
    // The byte prefilter never drops text that matches.
    assert!(!st.matches(&q) || pre.could_match(&q, mask), "prefilter dropped a match");
    if st.matches(&q) {
        let _ = st.match_count(&q);
        let corpus = score::Corpus {
            docs: 1,
            df: vec![1; q.leaves.len()],
            total_length: st.length,
            measured: 1,
        };
        let s = corpus.score(&q, &st);
        assert!(s.is_finite(), "score {s}");
    }
});
