//! Engine tests over a test-only agent whose sessions are written as JSON files, so the prefilter
//! reads real bytes and the agent's `load_source` returns the sessions as built.
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::agents::{Mode, Source};
use crate::error::Result;
use crate::model::{parse_time_str, Message, Role, Session, ToolCall};
use crate::options::SearchQuery;

struct TestAgent {
    name: &'static str,
    files: Vec<(PathBuf, Session)>,
    loads: AtomicUsize,
}

impl Agent for TestAgent {
    fn name(&self) -> &'static str {
        self.name
    }
    fn sources(&self, _ctx: &Context) -> Vec<Source> {
        self.files
            .iter()
            .filter_map(|(p, _)| Source::new(p.clone(), &[]))
            .collect()
    }
    fn summaries(&self, _ctx: &Context, _s: &Source) -> Result<Vec<SessionSummary>> {
        unreachable!("search must not list file-based agents")
    }
    fn load(&self, _ctx: &Context, id: &str, _mode: Mode) -> Result<Session> {
        Err(crate::error::Error::session_not_found(self.name, id))
    }
    fn load_source(&self, _ctx: &Context, s: &Source) -> Result<Vec<Session>> {
        self.loads.fetch_add(1, Ordering::SeqCst);
        Ok(self
            .files
            .iter()
            .filter(|(p, _)| *p == s.path)
            .map(|(_, s)| s.clone())
            .collect())
    }
}

/// A session `id` with a title, updated at `day` (2025-01-DD), and user/assistant texts.
fn session(agent: &str, id: &str, title: &str, day: u32, texts: &[&str]) -> Session {
    let t = parse_time_str(&format!("2025-01-{day:02}T10:00:00Z")).unwrap();
    let mut summary = SessionSummary::new(agent, id, t, t);
    summary.title = title.to_string();
    let messages = texts
        .iter()
        .enumerate()
        .map(|(i, x)| {
            Message::new(
                if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                },
                *x,
            )
        })
        .collect();
    let mut s = Session {
        summary,
        messages,
        raw: None,
    };
    s.derive_summary_fields();
    s
}

struct Home {
    _dir: tempfile::TempDir,
    agents: Vec<&'static TestAgent>,
}

fn home(sets: Vec<(&'static str, Vec<Session>)>) -> Home {
    let dir = tempfile::tempdir().unwrap();
    let mut agents = Vec::new();
    for (name, sessions) in sets {
        let files = sessions
            .into_iter()
            .map(|s| {
                let p = dir
                    .path()
                    .join(format!("{name}-{}.jsonl", s.summary.session_id));
                let line = serde_json::to_string(&s).unwrap();
                std::fs::write(&p, line + "\n").unwrap();
                (p, s)
            })
            .collect();
        let a: &'static TestAgent = Box::leak(Box::new(TestAgent {
            name,
            files,
            loads: AtomicUsize::new(0),
        }));
        agents.push(a);
    }
    Home { _dir: dir, agents }
}

impl Home {
    fn search_q(&self, q: &SearchQuery) -> Vec<SessionSummary> {
        let ctx = Context::with_env(crate::env::Env::with_home(self._dir.path()));
        let targets: Vec<&'static dyn Agent> = self
            .agents
            .iter()
            .map(|a| *a as &'static dyn Agent)
            .filter(|a| q.agent.as_deref().is_none_or(|n| n == a.name()))
            .collect();
        let price = |_: &mut [SessionSummary]| {};
        // A context without a cache directory: the storage layer reads the agents.
        run(&ctx, &Storage::default(), &targets, q, &price, None)
    }
    fn search(&self, text: &str) -> Vec<String> {
        self.search_q(&SearchQuery::new(text))
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    }
}

fn corpus() -> Home {
    home(vec![(
        "claude",
        vec![
            session(
                "claude",
                "s1",
                "Docker setup",
                1,
                &[
                    "How do I deploy with docker compose?",
                    "Use docker compose up.",
                ],
            ),
            session(
                "claude",
                "s2",
                "Kubernetes",
                2,
                &["Deploying to kubernetes", "kubectl apply the deployment"],
            ),
            session(
                "claude",
                "s3",
                "Python",
                3,
                &["python script fails", "It is not java, it is python 3.12"],
            ),
            session(
                "claude",
                "s4",
                "Java",
                4,
                &["java and python interop", "Use Jython"],
            ),
            session(
                "claude",
                "s5",
                "Café",
                5,
                &[
                    "Le café est fermé",
                    "chat-send returns 429 at my-app.config.ts",
                ],
            ),
            session(
                "claude",
                "s6",
                "大别山",
                6,
                &["大别山项目进度如何？", "进度正常"],
            ),
            session("claude", "s7", "Stones", 7, &["别忘了山上的大石头", "好的"]),
        ],
    )])
}

#[test]
fn every_syntax_form() {
    let h = corpus();
    assert_eq!(h.search("docker compose"), ["s1"]);
    assert_eq!(h.search("DOCKER"), ["s1"]);
    assert_eq!(h.search("\"compose up\""), ["s1"]);
    assert_eq!(h.search("\"up compose\""), Vec::<String>::new());
    let mut or = h.search("docker OR kubernetes");
    or.sort();
    assert_eq!(or, ["s1", "s2"]);
    assert!(h.search("python NOT java").is_empty());
    assert_eq!(h.search("python NOT jython"), ["s3"]);
    let mut pre = h.search("deploy*");
    pre.sort();
    assert_eq!(pre, ["s1", "s2"]);
    assert_eq!(h.search("deploy"), ["s1"]);
    // accents fold both ways; hyphen/dot terms are phrases
    assert_eq!(h.search("cafe ferme"), ["s5"]);
    assert_eq!(h.search("CAFÉ"), ["s5"]);
    assert_eq!(h.search("chat-send 429"), ["s5"]);
    assert_eq!(h.search("my-app.config.ts"), ["s5"]);
    assert_eq!(h.search("send-chat"), Vec::<String>::new());
    // titles are searched
    assert_eq!(h.search("kubernetes"), ["s2"]);
    // malformed input is searched literally, never an error
    assert_eq!(h.search("\"docker"), ["s1"]);
    assert_eq!(h.search("docker AND"), ["s1"]);
    assert_eq!(h.search("(docker)"), ["s1"]);
    assert!(h.search("***").is_empty());
}

#[test]
fn cjk_long_and_short() {
    let h = corpus();
    assert_eq!(h.search("大别山"), ["s6"]);
    assert_eq!(h.search("大别山项目"), ["s6"]);
    assert_eq!(h.search("项目"), ["s6"]);
    assert_eq!(h.search("石头"), ["s7"]);
    let mut both = h.search("山");
    both.sort();
    assert_eq!(both, ["s6", "s7"]);
}

#[test]
fn ranking_properties() {
    let h = home(vec![(
        "codex",
        vec![
            // same body, one has the word in the title too
            session(
                "codex",
                "title",
                "Tokio runtime",
                1,
                &["about tokio runtime things"],
            ),
            session("codex", "body", "Other", 1, &["about tokio runtime things"]),
            // more occurrences rank higher, but saturate
            session(
                "codex",
                "many",
                "x",
                1,
                &["tokio tokio tokio tokio", "tokio"],
            ),
            // scattered words vs side by side
            session(
                "codex",
                "scattered",
                "x",
                2,
                &["runtime is here", "and later tokio"],
            ),
            session(
                "codex",
                "adjacent",
                "x",
                2,
                &["tokio runtime is here", "and later"],
            ),
            // filler documents so idf is meaningful
            session("codex", "f1", "x", 1, &["runtime runtime"]),
            session("codex", "f2", "x", 1, &["runtime only"]),
        ],
    )]);
    let r = h.search_q(&SearchQuery::new("tokio runtime"));
    let ids: Vec<&str> = r.iter().map(|s| s.session_id.as_str()).collect();
    let pos = |id: &str| ids.iter().position(|x| *x == id).unwrap();
    assert!(pos("title") < pos("body"), "{ids:?}");
    assert!(pos("adjacent") < pos("scattered"), "{ids:?}");
    assert_eq!(r[0].relevance_score, Some(1.0));
    assert!(r
        .iter()
        .all(|s| s.relevance_score.unwrap() > 0.0 && s.relevance_score.unwrap() <= 1.0));
    // alone: the session named after the word first, then more occurrences above fewer
    let one: Vec<String> = h.search("tokio");
    let at = |id: &str| one.iter().position(|x| x == id).unwrap();
    assert_eq!(one[0], "title", "{one:?}");
    assert!(at("many") < at("body"), "{one:?}");
    // deterministic: same order every time
    for _ in 0..3 {
        assert_eq!(h.search("tokio runtime"), ids);
    }
}

#[test]
fn rarer_terms_weigh_more_and_ties_go_newest_first() {
    let h = home(vec![(
        "gemini",
        vec![
            session("gemini", "common", "x", 1, &["alpha"]),
            session("gemini", "rare", "x", 1, &["omega"]),
            session("gemini", "c2", "x", 1, &["alpha"]),
            session("gemini", "c3", "x", 1, &["alpha"]),
            session("gemini", "old", "x", 1, &["zeta"]),
            session("gemini", "new", "x", 9, &["zeta"]),
        ],
    )]);
    let r = h.search("alpha OR omega");
    assert_eq!(r[0], "rare");
    assert_eq!(h.search("zeta"), ["new", "old"]);
}

#[test]
fn snippets_and_match_counts() {
    let h = corpus();
    let r = h.search_q(&SearchQuery::new("docker"));
    assert_eq!(r[0].match_count, Some(3)); // twice in the body, once in the title
    assert_eq!(
        r[0].snippet.as_deref(),
        Some("How do I deploy with >>>docker<<< compose?")
    );
    let r = h.search_q(&SearchQuery::new("进度"));
    assert_eq!(r[0].snippet.as_deref(), Some("大别山项目>>>进度<<<如何？"));
    // NOT-ed terms are not counted: python twice in the body, once in the title
    let r = h.search_q(&SearchQuery::new("python NOT jython"));
    assert_eq!(r[0].match_count, Some(3));
}

#[test]
fn merges_agents_filters_sorts_and_limits() {
    let h = home(vec![
        (
            "claude",
            vec![session("claude", "a", "x", 1, &["shared word", "shared"])],
        ),
        ("pi", vec![session("pi", "b", "x", 5, &["shared word"])]),
        ("omp", vec![session("omp", "c", "x", 3, &["nothing here"])]),
    ]);
    let r = h.search_q(&SearchQuery::new("shared"));
    let ids: Vec<_> = r.iter().map(|s| s.unified_id.as_str()).collect();
    assert_eq!(ids, ["claude:a", "pi:b"]);
    assert_eq!(r[0].relevance_score, Some(1.0));
    assert!(r[1].relevance_score.unwrap() < 1.0);

    let mut q = SearchQuery::new("shared");
    q.sort = SearchSort::Date;
    assert_eq!(h.search_q(&q)[0].unified_id, "pi:b");
    q.limit = 1;
    assert_eq!(h.search_q(&q).len(), 1);
    q.limit = 50;
    q.agent = Some("pi".into());
    assert_eq!(h.search_q(&q).len(), 1);
    q.agent = None;
    q.filters.since = parse_time_str("2025-01-03T00:00:00Z");
    assert_eq!(h.search_q(&q).len(), 1);
    q.filters.since = None;
    q.filters.model = Some("none-such".into());
    assert!(h.search_q(&q).is_empty());
}

#[test]
fn prefilter_spares_parsing_files_that_cannot_match() {
    let h = corpus();
    assert_eq!(h.search("kubectl"), ["s2"]);
    assert_eq!(h.agents[0].loads.load(Ordering::SeqCst), 1);
}

#[test]
fn tool_inputs_outputs_and_thinking_are_searched() {
    let mut s = session("claude", "tools", "x", 1, &["run it"]);
    s.messages[0].thinking = Some("consider flamegraph first".into());
    s.messages[0].tool_calls.push(ToolCall {
        tool_call_id: "t1".into(),
        tool_name: "Bash".into(),
        input: serde_json::json!({"command": "cargo nextest run"}),
        output: Some(serde_json::json!("error: segfault in worker")),
        duration_ms: None,
        output_at_result: false,
    });
    let h = home(vec![("claude", vec![s])]);
    assert_eq!(h.search("flamegraph"), ["tools"]);
    assert_eq!(h.search("nextest"), ["tools"]);
    assert_eq!(h.search("segfault"), ["tools"]);
    // keys of tool inputs are structure, not text
    assert!(h.search("command").is_empty());
}

/// The cut (`cut::returnable`) keeps what ranking every match returns: over random matches
/// (sessions seen twice with other scores and dates, equal scores and dates, scores a rounding
/// apart, several coverage tiers, results found natively beside them with scores of another
/// scale), `dedupe` and `finish` over the matches it keeps return the same results in the same
/// order with the same relevances as over all of them, and it keeps at most the two that set the
/// scale beyond the first `limit`.
#[test]
fn the_cut_keeps_what_ranking_every_match_returns() {
    use super::cut::{self, Ranked};
    // xorshift: deterministic, no dependency
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    // Scores that tie, that a rounding of the relevance makes equal, and spread ones.
    let score = |next: &mut dyn FnMut(u64) -> u64, scale: f64| {
        let s = match next(4) {
            0 => 2.0,
            1 => 2.0 + 1e-12,
            2 => 2.0 + 2e-9,
            _ => 0.01 + next(1000) as f64 / 97.0,
        };
        s * scale
    };
    let now = parse_time_str("2025-03-01T00:00:00Z").unwrap();
    let mut cut_some = 0;
    for round in 0..4000 {
        let limit = 1 + next(12) as usize;
        let pool = 1 + next(60);
        let tiers = 1 + next(3) as usize;
        // (summary, score, terms): the natives first, as `run_on` gathers them.
        let mut all: Vec<(SessionSummary, f64, usize)> = Vec::new();
        let result = |agent: &str, id: String, score: f64, terms: usize, days: i64| {
            let t = now - chrono::Duration::days(days);
            (SessionSummary::new(agent, &id, t, t), score, terms)
        };
        let natives = next(3) as usize;
        let native_scale = [1.0, 1e6, 1e-6][next(3) as usize];
        for _ in 0..natives {
            let (id, days, terms) = (next(5), 30 * next(3) as i64, 1 + next(3) as usize);
            all.push(result(
                "hermes",
                format!("h{id}"),
                score(&mut next, native_scale),
                terms,
                days,
            ));
        }
        let n = next(90) as usize;
        for _ in 0..n {
            let agent = ["claude", "codex"][next(2) as usize];
            let (id, days) = (next(pool), [0, 0, 30, 200][next(4) as usize]);
            let terms = 1 + next(tiers as u64) as usize;
            all.push(result(
                agent,
                format!("s{id}"),
                score(&mut next, 1.0),
                terms,
                days,
            ));
        }
        let ranked: Vec<Ranked> = (all[natives..].iter())
            .map(|(s, score, terms)| Ranked {
                head: ((&s.agent, &s.session_id), s.updated_at),
                score: *score,
                most: *score,
                terms: *terms,
                recency: score::recency(s.updated_at, now),
            })
            .collect();
        let found = |matches: &mut dyn Iterator<Item = usize>| -> Vec<Found> {
            (0..natives)
                .chain(matches.map(|k| k + natives))
                .map(|k| Found {
                    summary: Box::new(all[k].0.clone()),
                    score: all[k].1,
                    terms: all[k].2,
                    snippet_from: None,
                    pending: None,
                })
                .collect()
        };
        let kept = cut::returnable(&ranked, &beside(&found(&mut (0..0)), now), limit);
        assert!(
            kept.len() <= limit + 2,
            "round {round}: kept {}",
            kept.len()
        );
        let mut q = SearchQuery::new("x");
        q.limit = limit;
        // `dedupe` and `finish` as `run_on` calls them, over the natives and `matches`.
        let results = |matches: &mut dyn Iterator<Item = usize>| {
            let found = dedupe(found(matches));
            let recency = recencies(&found, Some(now));
            (finish(found, &recency, &q).into_iter())
                .map(|f| (f.summary.unified_id, f.summary.relevance_score))
                .collect::<Vec<_>>()
        };
        let want = results(&mut (0..n));
        assert_eq!(results(&mut kept.iter().copied()), want, "round {round}");
        cut_some += (kept.len() < n) as usize;
    }
    assert!(cut_some > 2000, "{cut_some}");
}
