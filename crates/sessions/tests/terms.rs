//! The index answers one-word queries from stored counts (`search::terms`) without reading
//! sessions. Those counts must be what the search's own analysis finds for every word, in every
//! field, with the same field lengths: checked here word by word, on the demo home and on every
//! real capture, against the exhaustive analysis.
mod common;

use agent_mux_sessions::agents::{self, Source};
use agent_mux_sessions::model::Session;
use agent_mux_sessions::query::prefilter::Prefilter;
use agent_mux_sessions::search::score::{analyse, Matcher};
use agent_mux_sessions::search::terms::term_stats;
use agent_mux_sessions::search::Query;

/// Compare the counts with the analysis for a spread of the session's own words, their
/// prefixes and a word it does not hold; returns how many words were compared.
fn agrees(s: &Session, what: &str) -> usize {
    let stats = term_stats(s);
    let mut words: Vec<&String> = stats
        .terms
        .keys()
        .filter(|t| t.chars().all(char::is_alphanumeric))
        .collect();
    words.sort();
    let step = (words.len() / 40).max(1);
    let mut queries: Vec<(String, bool)> = words
        .iter()
        .step_by(step)
        .map(|w| (w.to_string(), false))
        .collect();
    for w in words.iter().step_by(step * 4) {
        let cut: String = w.chars().take(2).collect();
        queries.push((cut, true));
    }
    queries.push(("zzqxjwnothere".into(), false));
    for (word, prefix) in &queries {
        let text = if *prefix {
            format!("{word}*")
        } else {
            word.clone()
        };
        let Some(q) = Query::parse(&text) else {
            continue;
        };
        let pf = Prefilter::new(&q);
        let st = analyse(&Matcher::exhaustive(&q, &pf), s);
        let mut want = [0u32; 5];
        for (t, c) in &stats.terms {
            if t == word || (*prefix && t.starts_with(word.as_str())) {
                for (a, b) in want.iter_mut().zip(c.tf) {
                    *a += b;
                }
            }
        }
        assert_eq!(st.tf[0], want, "{what}: {text:?}");
        assert_eq!(st.lengths, stats.lengths, "{what}: lengths");
    }
    queries.len()
}

#[test]
fn stored_counts_are_the_analysis_counts_on_the_demo_home() {
    let ctx = common::ctx(&common::demo_home());
    let mut sessions = 0;
    for a in agents::all() {
        for src in a.sources(&ctx) {
            for s in a.load_source(&ctx, &src).unwrap_or_default() {
                assert!(agrees(&s, &format!("{} {}", a.name(), s.summary.session_id)) > 1);
                sessions += 1;
            }
        }
    }
    assert!(sessions >= 20, "only {sessions} sessions");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn stored_counts_are_the_analysis_counts_on_every_real_capture() {
    let home = tempfile::tempdir().unwrap();
    let ctx = common::ctx(home.path());
    let mut sessions = 0;
    for name in ["claude", "codex", "gemini", "copilot", "pi", "openclaw"] {
        let agent = agents::find(name).unwrap();
        for path in common::real_session_files(name) {
            let src = Source::new(path.clone(), &[]).unwrap();
            for s in agent.load_source(&ctx, &src).unwrap_or_default() {
                agrees(&s, &path.display().to_string());
                sessions += 1;
            }
        }
    }
    assert!(sessions >= 15, "only {sessions} sessions");
}
