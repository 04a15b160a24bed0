//! Search must find exactly the sessions a full parse would: the prefilter (files with their side
//! files, database rows streamed session by session) may only skip work, never a match.
use crate::common;
use crate::sqlite_fixtures;

use std::collections::BTreeSet;
use std::path::Path;

use agent_mux_sessions::agents;
use agent_mux_sessions::options::SearchQuery;
use agent_mux_sessions::query::prefilter::Prefilter;
use agent_mux_sessions::query::Query;
use agent_mux_sessions::search::score::{analyse, Matcher};
use rusqlite::Connection;
use serde_json::{json, Value};
use sqlite_fixtures::opencode::{add_message, add_project, add_session, ddl};
use sqlite_fixtures::{create_db, t};

/// Session ids of `agent` that match `text` when every session is parsed.
fn oracle(home: &Path, agent: &str, text: &str) -> BTreeSet<String> {
    let ctx = common::ctx(home);
    let a = agents::find(agent).unwrap();
    let q = Query::parse(text).unwrap();
    let pf = Prefilter::new(&q);
    let m = Matcher::exhaustive(&q, &pf);
    a.sources(&ctx)
        .iter()
        .flat_map(|s| a.load_source(&ctx, s).unwrap_or_default())
        .filter(|s| analyse(&m, s).matches(&q))
        .map(|s| s.summary.session_id)
        .collect()
}

fn searched(home: &Path, agent: &str, text: &str) -> BTreeSet<String> {
    let mut q = SearchQuery::new(text);
    q.agent = Some(agent.into());
    q.limit = 1000;
    common::client()
        .search(common::env(home), &q)
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect()
}

#[test]
fn demo_home_search_equals_a_full_parse_for_every_file_and_database_agent() {
    let home = common::demo_home();
    let queries = [
        "kubernetes",
        "flaky OR sqlite",
        "test NOT flaky",
        "middle*",
        "\"liveness probe\"",
        "café",
        "zzzznothing",
    ];
    let mut total = 0;
    for agent in [
        "claude", "codex", "gemini", "copilot", "cursor", "opencode", "pi", "omp", "openclaw",
    ] {
        for text in queries {
            let want = oracle(&home, agent, text);
            total += want.len();
            assert_eq!(searched(&home, agent, text), want, "{agent}: {text}");
        }
    }
    // The comparison is not vacuous: the queries hit something in the demo home.
    assert!(total >= 15, "only {total} hits");
}

/// Every file of a tree dropped from the page cache; `false` where the tree lives only in memory
/// (tmpfs) and nothing could be dropped.
#[cfg(target_os = "linux")]
fn evict(dir: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let mut dropped = true;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            dropped &= evict(&e.path());
            continue;
        }
        let f = std::fs::File::open(e.path()).unwrap();
        f.sync_all().unwrap();
        // SAFETY: an open fd; DONTNEED drops clean cached pages and changes no data.
        unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if e.path().extension().is_some_and(|x| x == "jsonl") {
            let cached = agent_mux_sessions::read::page_cache::start_is_cached(&f);
            dropped &= cached == Some(false);
        }
    }
    dropped
}

/// A store read from disk is searched by a wider pool (more reads in flight): the results, their
/// order, scores and snippets are the same as from memory.
#[cfg(target_os = "linux")]
#[test]
fn a_store_read_from_disk_gives_the_same_results() {
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let home = tmp.path();
    common::copy_dir(&common::demo_home(), home);
    let search = |text: &str| {
        let mut q = SearchQuery::new(text);
        q.limit = 1000;
        let v = common::client().search(common::env(home), &q).unwrap();
        serde_json::to_value(v).unwrap()
    };
    let queries = [
        "kubernetes",
        "flaky OR sqlite",
        "\"liveness probe\"",
        "café",
    ];
    let warm: Vec<Value> = queries.iter().map(|t| search(t)).collect();
    assert!(
        warm.iter()
            .map(|v| v.as_array().unwrap().len())
            .sum::<usize>()
            >= 10
    );
    for (text, want) in queries.iter().zip(&warm) {
        if !evict(home) {
            eprintln!("skipped: {} is kept in memory only", home.display());
            return;
        }
        assert_eq!(&search(text), want, "{text}");
    }
}

/// Queries of every kind the analysis' shortcuts treat differently: single words (matched on the
/// original text), prefixes, OR and NOT, phrases, word pairs (adjacency), accents, CJK.
const SHORTCUT_QUERIES: [&str; 12] = [
    "kubernetes",
    "kube*",
    "flaky OR sqlite",
    "test NOT flaky",
    "\"liveness probe\"",
    "docker compose",
    "café",
    "cafe",
    "大别山",
    "failing",
    "大别 OR 别山",
    "山山",
];

/// The shortcuts (fields without a needle only measured, single-word queries matched on the
/// original text, huge sessions analysed in parts) change nothing: every statistic and snippet
/// equals the exhaustive analysis, for every session of the demo home and a long generated one.
#[test]
fn analysis_shortcuts_give_the_exhaustive_statistics() {
    let home = common::demo_home();
    let ctx = common::ctx(&home);
    let mut sessions = Vec::new();
    for a in agents::all() {
        for src in a.sources(&ctx) {
            sessions.extend(a.load_source(&ctx, &src).unwrap_or_default());
        }
    }
    // One session long enough to be analysed in parallel parts, with hits spread through it.
    let mut long = sessions[0].clone();
    let base = long.messages.clone();
    for k in 0..3000 {
        let mut m = base[k % base.len()].clone();
        m.content = if k % 11 == 0 {
            // Plain ASCII but for a combining mark inside a word (folding drops it, joining
            // the word) and CJK around one: no accent sends this field the folded way.
            format!("step {k} Kuber\u{A8E0}netes 漢kubernetes漢 ca\u{A8E0}fe")
        } else if k % 13 == 0 {
            // CJK matched on the original text: overlapping runs, and a mark folding drops.
            let mark = if k % 26 == 0 {
                "大\u{301}别山"
            } else {
                "别大别"
            };
            format!("step {k} 大别山大别山别山 山山山 {mark} Ünï 大别大别山山")
        } else {
            format!(
                "{} step {k} Kubernetes café naïve kube-proxy {}",
                m.content,
                k % 7
            )
        };
        long.messages.push(m);
    }
    sessions.push(long);
    let mut matched = 0;
    for text in SHORTCUT_QUERIES {
        let q = Query::parse(text).unwrap();
        let pf = Prefilter::new(&q);
        let (fast, reference) = (Matcher::new(&q, &pf), Matcher::exhaustive(&q, &pf));
        for s in &sessions {
            let got = analyse(&fast, s);
            assert_eq!(
                got,
                analyse(&reference, s),
                "{text}: {}",
                s.summary.session_id
            );
            matched += got.matches(&q) as usize;
        }
    }
    assert!(matched >= 20, "only {matched} matches");
}

/// Full and lean (search) reads of every session in `home` agree for every shortcut query:
/// search reads may leave needle-free text out (`SearchSupport::load_for_search`, Claude's tool outputs),
/// yet statistics and snippets stay those of the exhaustive analysis of a full read. Returns the
/// matches and the outputs left out, so callers can prove the check was not vacuous.
fn lean_reads_agree_with_full_reads(home: &Path) -> (usize, usize) {
    let ctx = common::ctx(home);
    let (mut matched, mut left_out) = (0, 0);
    for text in SHORTCUT_QUERIES {
        let q = Query::parse(text).unwrap();
        let pf = Prefilter::new(&q);
        let (fast, reference) = (Matcher::new(&q, &pf), Matcher::exhaustive(&q, &pf));
        let needle_free = |t: &str| fast.needle_free(t);
        for a in agents::all() {
            for src in a.sources(&ctx) {
                let full = a.load_source(&ctx, &src).unwrap_or_default();
                let lean = a
                    .search_support()
                    .and_then(|s| s.load_for_search(&ctx, &src, &needle_free))
                    .unwrap_or_else(|| a.load_source(&ctx, &src))
                    .unwrap_or_default();
                assert_eq!(full.len(), lean.len(), "{}", src.path.display());
                for (f, l) in full.iter().zip(&lean) {
                    let want = analyse(&reference, f);
                    let id = &f.summary.session_id;
                    assert_eq!(analyse(&fast, l), want, "{text}: {id}");
                    assert_eq!(l.summary, f.summary, "{id}");
                    matched += want.matches(&q) as usize;
                    left_out += l.messages.iter().filter(|m| m.elided > 0).count();
                }
            }
        }
    }
    (matched, left_out)
}

#[test]
fn search_reads_that_leave_text_out_give_the_exhaustive_statistics() {
    let (matched, left_out) = lean_reads_agree_with_full_reads(&common::demo_home());
    assert!(matched >= 20, "only {matched} matches");
    assert!(left_out >= 40, "only {left_out} outputs left out");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn search_reads_of_the_real_claude_captures_give_the_exhaustive_statistics() {
    let home = tempfile::tempdir().unwrap();
    common::copy_dir(
        &common::real_fixtures().join("claude"),
        &home.path().join(".claude/projects/real"),
    );
    // None of the shortcut queries matches these captures; their long tool outputs are left out.
    let (_, left_out) = lean_reads_agree_with_full_reads(home.path());
    assert!(left_out >= 40, "only {left_out} outputs left out");
}

/// A message of `role` created at the fixture's one time, with its parts.
fn message(c: &Connection, sid: &str, id: &str, role: &str, parts: &[Value]) {
    let at = 1780000001000i64;
    let data = json!({"role": role, "time": {"created": at}});
    add_message(c, sid, id, at, data, parts);
}

fn text(s: &str) -> Value {
    json!({"type": "text", "text": s})
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn opencode_database_search_builds_candidates_only_and_misses_nothing() {
    let ddl = ddl();
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join(".local/share/opencode/opencode.db");
    let c = create_db(&db, &ddl, true);
    add_project(&c);
    add_session(&c, "ses_tool", &[("title", t("Fix the build"))]);
    message(
        &c,
        "ses_tool",
        "msg_1",
        "user",
        &[text("why is the deploy failing?")],
    );
    let tool = json!({"type": "tool", "callID": "c1", "tool": "bash", "state": {"status": "completed",
        "input": {"command": "kubectl get pods"}, "output": "KUBERNETES api unreachable", "title": "kubectl",
        "time": {"start": 1, "end": 2}}});
    message(&c, "ses_tool", "msg_2", "assistant", &[tool]);
    // Only the accented capital form: SQLite's lower() would not fold it, the prefilter must.
    add_session(&c, "ses_accent", &[("title", t("Coffee"))]);
    message(
        &c,
        "ses_accent",
        "msg_3",
        "user",
        &[text("UN CAFÉ, S'IL VOUS PLAÎT")],
    );
    add_session(&c, "ses_title", &[("title", t("Deploy kubernetes"))]);
    message(&c, "ses_title", "msg_4", "user", &[text("go")]);
    add_session(&c, "ses_none", &[("title", t("Nothing"))]);
    message(&c, "ses_none", "msg_5", "user", &[text("plain words")]);
    drop(c);

    let ids =
        |q: &str| -> Vec<String> { searched(home.path(), "opencode", q).into_iter().collect() };
    assert_eq!(ids("kubernetes"), ["ses_title", "ses_tool"]);
    assert_eq!(ids("cafe"), ["ses_accent"]);
    assert_eq!(ids("kubernetes NOT deploy"), Vec::<String>::new());
    assert_eq!(ids("kubectl OR plain"), ["ses_none", "ses_tool"]);
    for q in ["kubernetes", "cafe", "kubectl OR plain", "deploy"] {
        assert_eq!(
            searched(home.path(), "opencode", q),
            oracle(home.path(), "opencode", q),
            "{q}"
        );
    }
}
