//! The full-text index answers exactly as the scan does: the same sessions, scores, order,
//! counts and snippets for every query form, sort, cut and filter, on generated homes of every
//! agent (both vocabularies of scripts/gen_home.py), the demo home and the real captures; and a
//! source changed after the build is scanned, not answered from the index.
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use agent_mux_sessions::fulltext::build::{build, Options};
use agent_mux_sessions::fulltext::hits::{self, Tally};
use agent_mux_sessions::fulltext::FullText;
use agent_mux_sessions::list::SummaryCache;
use agent_mux_sessions::options::search_query;
use agent_mux_sessions::{agents, Client, ClientOptions, Context, Env};
use serde_json::{json, Value};

fn generated_home(out: &Path, agents: &str, vocabulary: &str, scale: u32) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = Command::new("python3")
        .arg(root.join("scripts/gen_home.py"))
        .args(["--out", out.to_str().unwrap(), "--sessions", "40"])
        .args(["--seed", "5", "--scale", &scale.to_string()])
        .args(["--agents", agents, "--vocabulary", vocabulary])
        .status()
        .expect("python3 runs scripts/gen_home.py (a prerequisite, see the README)");
    assert!(status.success(), "scripts/gen_home.py failed: {status}");
    out.to_path_buf()
}

/// Every query form: words, implicit AND, phrases, OR, NOT, prefixes, CJK (alone, in runs, with
/// other characters), words that may be everywhere or nowhere, a word longer than the index
/// keeps whole.
const QUERIES: &[&str] = &[
    "test",
    "kubernetes",
    "borrow",
    "docker compose",
    "\"docker compose\"",
    "kube*",
    "bor*",
    "kubernetes OR borrow",
    "test NOT kubernetes",
    "borrow NOT checker",
    "\"borrow checker\" NOT mutable",
    "大别山",
    "大别",
    "山",
    "大别山 徒步",
    "\"大别山 主峰\"",
    "修改youer",
    "go",
    "a",
    "the error",
    "\"the error\"",
    "error the",
    "docker OR 大别山",
    "Café",
    "fix",
    "src ts",
    "\"src middleware\"",
    "detail",
    "zzzqqq-not-there",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
];

/// A context over `home` at a fixed time (recency is part of every score), with `dirs` as the
/// agents' stores when given.
fn context(home: &Path, dirs: &BTreeMap<String, PathBuf>) -> Context {
    let env = Env::with_home(home).at(chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap());
    Context::new(
        env,
        Arc::new(ClientOptions {
            session_dirs: dirs.clone(),
            ..Default::default()
        }),
    )
}

/// Compares every shape; returns how many results were compared and where the index's
/// statistics came from, summed.
fn assert_same(ctx: &Context, ft: &FullText) -> (usize, Tally) {
    let scan = Client::new((*ctx.options).clone());
    let cache = SummaryCache::default();
    let mut shapes: Vec<Value> = Vec::new();
    for q in QUERIES {
        for sort in ["relevance", "date", "cost"] {
            shapes.push(json!({"text": q, "sort": sort, "limit": 1000}));
            for limit in [1, 3] {
                shapes.push(json!({"text": q, "sort": sort, "limit": limit}));
            }
        }
        shapes.push(json!({"text": q, "since": 1767225600000u64, "limit": 1000}));
        for a in agents::all() {
            shapes.push(json!({"text": q, "agent": a.name(), "limit": 1000}));
        }
    }
    let (mut compared, mut sum) = (0, Tally::default());
    for shape in shapes {
        let q = search_query(&shape).unwrap();
        let want = scan.search(ctx.env.clone(), &q).unwrap();
        let (got, tally) = hits::search(ft, &cache, ctx, &q).unwrap();
        assert_eq!(got, want, "{shape}");
        compared += want.len();
        sum.indexed += tally.indexed;
        sum.unsure += tally.unsure;
        sum.scanned += tally.scanned;
        sum.completed += tally.completed;
    }
    (compared, sum)
}

/// On an index as fresh as its home, nothing is scanned and most statistics come from it.
fn assert_from_the_index(name: &str, (compared, tally): (usize, Tally), least: usize) {
    assert!(
        compared >= least,
        "{name}: only {compared} results compared"
    );
    assert_eq!(tally.scanned, 0, "{name}: {tally:?}");
    assert!(
        tally.indexed > 10 * tally.unsure.max(1),
        "{name}: {tally:?}"
    );
}

fn built(ctx: &Context, dir: &Path) -> FullText {
    let opts = Options {
        threads: 2,
        memory: 40 << 20,
        merge: false,
    };
    build(ctx, agents::all(), dir, opts).unwrap()
}

#[test]
fn the_index_answers_as_the_scan_on_generated_homes_of_both_vocabularies() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, agents, vocabulary, scale) in [
        (
            "all",
            "claude,codex,gemini,copilot,cursor,opencode,pi,omp,openclaw,hermes",
            "topics",
            2,
        ),
        ("real", "claude,codex,gemini,copilot,pi,omp", "real", 3),
    ] {
        let home = generated_home(&tmp.path().join(name), agents, vocabulary, scale);
        let ctx = context(&home, &BTreeMap::new());
        let ft = built(&ctx, &tmp.path().join(format!("{name}-index")));
        assert_from_the_index(name, assert_same(&ctx, &ft), 500);
    }
}

#[test]
fn the_index_answers_as_the_scan_on_the_demo_home() {
    let tmp = tempfile::tempdir().unwrap();
    let ctx = context(&common::demo_home(), &BTreeMap::new());
    let ft = built(&ctx, tmp.path());
    assert_from_the_index("demo", assert_same(&ctx, &ft), 100);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn the_index_answers_as_the_scan_on_the_real_captures() {
    let tmp = tempfile::tempdir().unwrap();
    let mut dirs = BTreeMap::new();
    for name in ["claude", "codex", "gemini", "copilot", "pi"] {
        dirs.insert(name.to_string(), common::real_fixtures().join(name));
    }
    let ctx = context(tmp.path(), &dirs);
    let ft = built(&ctx, &tmp.path().join("index"));
    let sessions: usize = ft.catalog.iter().map(|c| c.sessions).sum();
    assert!(sessions >= 10, "only {sessions} sessions indexed");
    assert_from_the_index("real", assert_same(&ctx, &ft), 10);
}

#[test]
fn a_source_changed_after_the_build_is_scanned() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    common::copy_dir(&common::demo_home(), &home);
    let ctx = context(&home, &BTreeMap::new());
    let ft = built(&ctx, &tmp.path().join("index"));
    // Grow one session, cut another, remove a third, add a new one.
    let mut files: Vec<PathBuf> = common::snapshot(&home.join(".claude"))
        .into_keys()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    let sid = |p: &Path| p.file_stem().unwrap().to_str().unwrap().to_string();
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let last = text
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| v["uuid"].as_str().map(str::to_string))
        .unwrap();
    std::fs::write(
        &files[0],
        text + &claude_line(
            &sid(&files[0]),
            "00000000-0000-4000-8000-0000000000f1",
            Some(&last),
        ),
    )
    .unwrap();
    let cut = std::fs::read_to_string(&files[1]).unwrap();
    let half: Vec<&str> = cut.lines().take(cut.lines().count() / 2).collect();
    std::fs::write(&files[1], half.join("\n") + "\n").unwrap();
    std::fs::remove_file(&files[2]).unwrap();
    let new_sid = "00000000-0000-4000-8000-00000000abcd";
    let fresh = files[0].with_file_name(format!("{new_sid}.jsonl"));
    std::fs::write(
        &fresh,
        claude_line(new_sid, "00000000-0000-4000-8000-0000000000f2", None),
    )
    .unwrap();
    let cache = SummaryCache::default();
    let q = search_query(&json!({"text": "zebrafish", "limit": 100})).unwrap();
    let (got, tally) = hits::search(&ft, &cache, &ctx, &q).unwrap();
    assert!(
        got.len() >= 2,
        "the grown and the new session hold the word: {got:?}"
    );
    // The grown, the cut and the new file; the removed one is simply gone.
    assert_eq!(tally.scanned, 3, "{tally:?}");
    let (compared, _) = assert_same(&ctx, &ft);
    assert!(compared > 100);
}

/// A Claude user message saying "zebrafish" in session `sid`, after record `parent`.
fn claude_line(sid: &str, uuid: &str, parent: Option<&str>) -> String {
    json!({
        "parentUuid": parent, "isSidechain": false, "type": "user", "uuid": uuid,
        "sessionId": sid, "cwd": "/home/dev/src/shop", "timestamp": "2026-10-08T10:00:00.000Z",
        "message": {"role": "user", "content": "a zebrafish swims by"}
    })
    .to_string()
        + "\n"
}
