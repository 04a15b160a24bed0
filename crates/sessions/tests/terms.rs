//! The index answers queries from its postings without reading sessions. Their counts must be
//! what the search's own analysis finds for every word and prefix, in every field, with the same
//! field lengths: checked here word by word, on the demo home and on every real capture, against
//! the exhaustive analysis.
use crate::common;

use std::path::Path;

use agent_mux_sessions::agents::{self, Source};
use agent_mux_sessions::index::postings::document::Texts;
use agent_mux_sessions::index::postings::lookup::{lookup, side_by_side};
use agent_mux_sessions::index::postings::tokens::each_word;
use agent_mux_sessions::index::postings::{Budget, Postings};
use agent_mux_sessions::model::Session;
use agent_mux_sessions::query::prefilter::Prefilter;
use agent_mux_sessions::search::score::{analyse, Matcher};
use agent_mux_sessions::search::Query;

/// Postings of `sessions`, each the document of its position.
fn indexed(sessions: &[Session], dir: &Path) -> Postings {
    let p = Postings::open(dir).unwrap();
    let mut w = p.writer(Budget::update(), true).unwrap();
    for (i, s) in sessions.iter().enumerate() {
        w.add(Texts::of(s).document(&w.fields, i as i64)).unwrap();
    }
    w.commit(1).unwrap();
    w.finish().unwrap();
    p
}

/// Compare the postings' counts of session `at` with the analysis for a spread of the session's
/// own words, their prefixes and a word it does not hold; returns how many words were compared.
fn agrees(p: &Postings, sessions: &[Session], at: usize, what: &str) -> usize {
    let s = &sessions[at];
    let texts = Texts::of(s);
    let mut words: Vec<String> = Vec::new();
    for (_, text) in &texts.values {
        each_word(text, &mut |t| words.push(t.text.clone()));
    }
    words.retain(|t| t.chars().all(char::is_alphanumeric));
    words.sort();
    words.dedup();
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
    let (searcher, _) = p.searcher().unwrap();
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
        let found = lookup(&searcher, &p.fields, &q, false).unwrap();
        let have = found
            .iter()
            .find(|f| f.doc == at as i64)
            .map(|f| f.counts.clone().expect("a word's counts are known").tf[0])
            .unwrap_or_default();
        assert_eq!(have, st.tf[0], "{what}: {text:?}");
        assert_eq!(texts.lengths, st.lengths, "{what}: lengths");
    }
    // Two words: their side-by-side count, left for later and told then, is the one counted
    // with the rest.
    let words: Vec<&String> = (queries.iter())
        .filter(|(_, prefix)| !prefix)
        .map(|(w, _)| w)
        .collect();
    for pair in words.windows(2).chain([[words[0], words[0]].as_slice()]) {
        let Some(q) = Query::parse(&format!("{} {}", pair[0], pair[1])) else {
            continue;
        };
        let now = lookup(&searcher, &p.fields, &q, false).unwrap();
        let later = lookup(&searcher, &p.fields, &q, true).unwrap();
        assert_eq!(now.len(), later.len(), "{what}: {pair:?}");
        let at: Vec<_> = later.iter().filter_map(|f| f.adjacent_at).collect();
        let told = side_by_side(&searcher, &p.fields, &q, &at).unwrap();
        let mut told = told.into_iter();
        for (n, l) in now.iter().zip(&later) {
            assert_eq!(n.doc, l.doc, "{what}: {pair:?}");
            match (&n.counts, &l.counts, l.adjacent_at) {
                (Some(n), Some(l), Some(_)) => {
                    assert_eq!(l.adjacent, 0, "{what}: {pair:?}");
                    assert_eq!(told.next(), Some(n.adjacent), "{what}: {pair:?}");
                    assert_eq!(n.tf, l.tf, "{what}: {pair:?}");
                }
                (n, l, None) => assert_eq!(n, l, "{what}: {pair:?}"),
                (None, _, Some(_)) => panic!("{what}: {pair:?}: unsure, yet left for later"),
                (_, None, Some(_)) => panic!("{what}: {pair:?}: no counts, yet left for later"),
            }
        }
    }
    queries.len()
}

#[test]
fn postings_count_as_the_analysis_on_the_demo_home() {
    let ctx = common::ctx(&common::demo_home());
    let mut sessions = Vec::new();
    for a in agents::all() {
        for src in a.sources(&ctx) {
            sessions.extend(a.load_source(&ctx, &src).unwrap_or_default());
        }
    }
    assert!(sessions.len() >= 20, "only {} sessions", sessions.len());
    let dir = tempfile::tempdir().unwrap();
    let p = indexed(&sessions, dir.path());
    for (i, s) in sessions.iter().enumerate() {
        let what = format!("{} {}", s.summary.agent, s.summary.session_id);
        assert!(agrees(&p, &sessions, i, &what) > 1);
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn postings_count_as_the_analysis_on_every_real_capture() {
    let home = tempfile::tempdir().unwrap();
    let ctx = common::ctx(home.path());
    let mut sessions = Vec::new();
    for name in ["claude", "codex", "gemini", "copilot", "pi", "openclaw"] {
        let agent = agents::find(name).unwrap();
        for path in common::real_session_files(name) {
            let src = Source::new(path.clone(), &[]).unwrap();
            sessions.extend(agent.load_source(&ctx, &src).unwrap_or_default());
        }
    }
    assert!(sessions.len() >= 15, "only {} sessions", sessions.len());
    let dir = tempfile::tempdir().unwrap();
    let p = indexed(&sessions, dir.path());
    for (i, s) in sessions.iter().enumerate() {
        let what = format!("{} {}", s.summary.agent, s.summary.session_id);
        agrees(&p, &sessions, i, &what);
    }
}
