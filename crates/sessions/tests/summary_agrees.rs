//! `list` reads a cheaper pass than `get` (typed borrowed fields, no messages kept). Both must
//! tell the same story: for every real capture of the file-based agents, the summary pass and the
//! full read agree on counts, model, title, dates and per-model tokens.
use crate::common;

use agent_mux_sessions::agents::{self, Source};
use agent_mux_sessions::model::SessionSummary;

fn key(s: &SessionSummary) -> impl std::fmt::Debug + PartialEq {
    let mut usage: Vec<_> = s
        .usage
        .iter()
        .map(|u| {
            (
                u.model.clone(),
                u.tokens,
                u.native_cost_usd.map(f64::to_bits),
            )
        })
        .collect();
    usage.sort_by(|a, b| a.0.cmp(&b.0));
    (
        s.session_id.clone(),
        s.title.clone(),
        s.message_count,
        s.turn_count,
        s.model.clone(),
        s.created_at,
        s.updated_at,
        s.cwd.clone(),
        s.forked_from.clone(),
        usage,
    )
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn summaries_and_full_reads_agree_on_every_real_capture() {
    let home = tempfile::tempdir().unwrap();
    let ctx = common::ctx(home.path());
    let mut checked = 0;
    for name in ["claude", "codex", "gemini", "copilot", "pi", "openclaw"] {
        let agent = agents::find(name).unwrap();
        for path in common::real_session_files(name) {
            let src = Source::new(path.clone(), &[]).unwrap();
            let summaries = agent.summaries(&ctx, &src);
            let sessions = agent.load_source(&ctx, &src);
            let (summaries, sessions) = match (summaries, sessions) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(a), Err(b)) => {
                    assert_eq!(a.code, b.code, "{}", path.display());
                    continue;
                }
                (a, b) => panic!(
                    "{}: summary ok={} but full read ok={}",
                    path.display(),
                    a.is_ok(),
                    b.is_ok()
                ),
            };
            assert_eq!(summaries.len(), sessions.len(), "{}", path.display());
            for (s, full) in summaries.iter().zip(&sessions) {
                assert_eq!(key(s), key(&full.summary), "{} ({name})", path.display());
                assert_eq!(
                    s.message_count as usize,
                    full.messages.len(),
                    "{}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    // 4 claude + 3 codex + 3 gemini + 2 copilot + 3 pi + 4 openclaw top-level files.
    assert!(checked >= 15, "only {checked} sessions compared");
}
