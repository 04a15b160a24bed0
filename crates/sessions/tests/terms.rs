//! The index answers one-word queries from stored counts (`query::terms`) without reading
//! sessions. Those counts must be what the search's own analysis finds for every word, in every
//! field, with the same field lengths: checked here word by word, on the demo home and on every
//! real capture, against the exhaustive analysis.
mod common;

use std::path::Path;

use agent_mux_sessions::agents::{self, Source};
use agent_mux_sessions::index::codec;
use agent_mux_sessions::index::delta::{delta, Reread};
use agent_mux_sessions::model::Session;
use agent_mux_sessions::query::prefilter::Prefilter;
use agent_mux_sessions::query::terms::term_stats;
use agent_mux_sessions::search::score::{analyse, Matcher};
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

/// Each session the file `path` holds, read from its first `lines` lines (a copy named as the
/// file, so that ids do not change).
fn sessions_of_prefix(agent: &str, path: &Path, lines: usize, dir: &Path) -> Vec<Session> {
    let text = std::fs::read_to_string(path).unwrap();
    let copy = dir.join(path.file_name().unwrap());
    let kept: Vec<&str> = text.split_inclusive('\n').take(lines).collect();
    std::fs::write(&copy, kept.concat()).unwrap();
    let ctx = common::ctx(dir);
    let src = Source::new(copy, &[]).unwrap();
    agents::find(agent)
        .unwrap()
        .load_source(&ctx, &src)
        .unwrap_or_default()
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn a_real_session_cut_anywhere_and_grown_again_moves_to_its_own_counts() {
    // What the index does when an agent appends to a session: the counts stored for the session
    // as it was, moved by the delta, are the counts of the session as it is now.
    let dir = tempfile::tempdir().unwrap();
    let (mut compared, mut changed) = (0, 0);
    for name in ["claude", "codex", "copilot", "pi", "openclaw"] {
        for path in common::real_session_files(name) {
            if path.extension().is_some_and(|e| e != "jsonl") {
                continue;
            }
            let lines = std::fs::read_to_string(&path).unwrap().lines().count();
            let whole = sessions_of_prefix(name, &path, lines, dir.path());
            let step = (lines / 12).max(1);
            for cut in (1..lines).step_by(step) {
                let before = sessions_of_prefix(name, &path, cut, dir.path());
                for (b, now) in before.iter().zip(&whole) {
                    // Decoded from the index, a session counts as it did when read.
                    let stored = codec::pack(&codec::messages(&b.messages));
                    let reread = Reread::new(b);
                    assert_eq!(reread.stats().unwrap(), term_stats(b), "{path:?} stored");
                    let d = delta(&stored, &b.summary.title, &Reread::new(now)).unwrap();
                    let mut moved = term_stats(b);
                    d.apply(&mut moved)
                        .expect("takes away only what was counted");
                    assert_eq!(moved, term_stats(now), "{path:?} cut at line {cut}");
                    compared += 1;
                    changed += d.messages_changed as usize;
                }
            }
        }
    }
    assert!(compared >= 100, "only {compared} cuts compared");
    assert!(
        changed * 2 > compared,
        "{changed} of {compared} cuts changed messages"
    );
}
