//! The index of terms (tantivy postings) answers exactly as the scan does: the same sessions,
//! scores, order, counts and snippets for every query form, sort, cut and filter, on generated
//! homes of every agent (both vocabularies of scripts/gen_home.py), the demo home and the real
//! captures.
use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::{agents, Client, ClientOptions, Context, Env};
use agent_mux_wire::search_query;
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

/// Compares every shape between a client that scans and one with an index in `cache`; returns
/// how many results were compared.
fn assert_same(ctx: &Context, cache: &Path) -> usize {
    let scan = Client::new((*ctx.options).clone());
    let indexed = Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.to_path_buf()),
        ..(*ctx.options).clone()
    });
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
    let mut compared = 0;
    for shape in shapes {
        let q = search_query(&shape).unwrap();
        let want = scan.search(ctx.env.clone(), &q).unwrap();
        let got = indexed.search(ctx.env.clone(), &q).unwrap();
        assert_eq!(got, want, "{shape}");
        compared += want.len();
    }
    let status = indexed.index_status(ctx.env.clone());
    assert!(status.sessions > 0 && status.stale == 0, "{status:?}");
    compared
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
        let compared = assert_same(&ctx, &tmp.path().join(format!("{name}-index")));
        assert!(compared >= 500, "{name}: only {compared} results compared");
    }
}

#[test]
fn the_index_answers_as_the_scan_on_the_demo_home() {
    let tmp = tempfile::tempdir().unwrap();
    let ctx = context(&common::demo_home(), &BTreeMap::new());
    assert!(assert_same(&ctx, tmp.path()) >= 100);
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
    assert!(assert_same(&ctx, &tmp.path().join("index")) >= 10);
}

/// The snippet of a matching session as the index completes a hit is the snippet its whole
/// analysis makes: for a query of one leaf, read without its tool outputs when its counts put
/// the snippet before them and matched only in the field they name (`score::snippet_field`);
/// words side by side matched on the original text (`Matcher::for_snippets`). Over every Claude
/// and Codex session of a generated home, the demo home and the real captures; and where the
/// snippet is in the conversation, read for the conversation alone (`load_field`, Codex). Returns
/// how many snippets were compared, how many of them were narrowed, and how many were read for
/// the conversation alone.
fn assert_narrowed_snippets_agree(ctx: &Context) -> (usize, usize, usize) {
    use agent_mux_sessions::query::fields::Field;
    use agent_mux_sessions::query::prefilter::Prefilter;
    use agent_mux_sessions::query::Query;
    use agent_mux_sessions::search::score::{analyse, snippet, snippet_field, Matcher};
    let (mut compared, mut narrowed, mut conversation_only) = (0, 0, 0);
    let conversation_only = &mut conversation_only;
    for name in ["claude", "codex"] {
        let a = agents::find(name).unwrap();
        let support = a.search_support().expect("reads for search");
        for src in a.sources(ctx) {
            let whole = a.load_source(ctx, &src).unwrap();
            let without_outputs = support.load_for_search(ctx, &src, &|_| true).unwrap();
            let without_outputs = without_outputs.unwrap();
            // An agent's read of the conversation alone, where it has one.
            let conversation =
                (support.load_field(ctx, &src, Field::Conversation)).map(|read| read.unwrap());
            for text in QUERIES.iter().chain(&[
                "the",
                "bash",
                "read",
                "kube*",
                "\"the file\"",
                "function error",
            ]) {
                let q = Query::parse(text).unwrap();
                let pf = Prefilter::new(&q);
                let m = Matcher::new(&q, &pf);
                let for_snippets = Matcher::for_snippets(&q, &pf);
                for (i, (s, narrow)) in whole.iter().zip(&without_outputs).enumerate() {
                    let st = analyse(&m, s);
                    if !st.matches(&q) {
                        continue;
                    }
                    let field = snippet_field(&q, &st.tf);
                    let read = match field {
                        Some(f) if f != Field::ToolOutput => {
                            narrowed += 1;
                            narrow
                        }
                        _ => s,
                    };
                    if let (Some(Field::Conversation), Some(c)) = (field, &conversation) {
                        assert_eq!(
                            snippet(&for_snippets, &c[i], field),
                            st.snippet,
                            "{text} in {:?}, its conversation read alone",
                            src.path
                        );
                        *conversation_only += 1;
                    }
                    assert_eq!(
                        snippet(&for_snippets, read, field),
                        st.snippet,
                        "{text} in {:?}",
                        src.path
                    );
                    compared += 1;
                }
            }
        }
    }
    (compared, narrowed, *conversation_only)
}

#[test]
fn a_snippet_read_without_tool_outputs_is_the_whole_reads_on_generated_and_demo_homes() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("real"), "claude,codex", "real", 3);
    for home in [home, common::demo_home()] {
        let (compared, narrowed, conversation) =
            assert_narrowed_snippets_agree(&context(&home, &BTreeMap::new()));
        assert!(
            compared >= 30 && narrowed >= 20 && conversation >= 5,
            "{home:?}: {compared} / {narrowed} / {conversation}"
        );
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn a_snippet_read_without_tool_outputs_is_the_whole_reads_on_the_real_captures() {
    let mut dirs = BTreeMap::new();
    for name in ["claude", "codex"] {
        dirs.insert(name.to_string(), common::real_fixtures().join(name));
    }
    let tmp = tempfile::tempdir().unwrap();
    let (compared, narrowed, conversation) =
        assert_narrowed_snippets_agree(&context(tmp.path(), &dirs));
    assert!(
        compared >= 15 && narrowed >= 10 && conversation >= 1,
        "{compared} / {narrowed} / {conversation}"
    );
}
