//! The persistent index (issue #16) answers exactly as reading the stores does: every query
//! form, filter and sort, on homes of every agent, through a client with an index and one
//! without; and it stays exact while sources appear, grow, change and vanish between calls.
use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use agent_mux_sessions::context::{CacheSetting, IndexUpdates};
use agent_mux_sessions::{Client, ClientOptions, Env};
use agent_mux_wire::{cost_options, list_options, search_query};
use serde_json::{json, Value};

use common::{copy_dir, snapshot};

/// A generated home of every agent (scripts/gen_home.py, from the repository's own schemas).
/// Python 3 is a stated prerequisite, so a generator that does not run fails the test.
fn generated_home(out: &Path, sessions: u32, seed: u32) -> PathBuf {
    generated_home_of(out, sessions, seed, "all")
}

/// `generated_home` of `agents` only (`all`: every agent).
pub(crate) fn generated_home_of(out: &Path, sessions: u32, seed: u32, agents: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut gen = Command::new("python3");
    gen.arg(root.join("scripts/gen_home.py"));
    if agents != "all" {
        gen.args(["--agents", agents]);
    }
    let status = gen
        .args([
            "--out",
            out.to_str().unwrap(),
            "--sessions",
            &sessions.to_string(),
        ])
        .args(["--seed", &seed.to_string(), "--scale", "1"])
        .status()
        .expect("python3 runs scripts/gen_home.py (a prerequisite, see the README)");
    assert!(status.success(), "scripts/gen_home.py failed: {status}");
    out.to_path_buf()
}

/// A temporary directory with a copy of the demo home in it (tests change and evict it).
fn demo_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    copy_dir(&common::demo_home(), &home);
    (tmp, home)
}

/// A client with an index in `cache`.
fn indexed(cache: &Path) -> Client {
    Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.to_path_buf()),
        ..Default::default()
    })
}

fn scanning() -> Client {
    Client::new(ClientOptions::default())
}

const AGENTS: [&str; 10] = [
    "claude", "codex", "gemini", "copilot", "cursor", "opencode", "pi", "omp", "openclaw", "hermes",
];

/// Every query form: words, implicit AND, phrases, OR, NOT, prefixes, CJK, short needles that
/// trigrams cannot look up, accents, nothing found.
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
    "大别山",
    "大别",
    "go",
    "a",
    "the error",
    "\"the error\"",
    "docker OR 大别山",
    "Café",
    "fix",
    "zzzqqq-not-there",
];

fn search(c: &Client, env: &Env, q: Value) -> Vec<agent_mux_sessions::SessionSummary> {
    c.search(env.clone(), &search_query(&q).unwrap()).unwrap()
}

/// Queries, filters and sorts over all agents and each agent alone; returns how many results
/// were compared (so a test can tell it compared something).
fn assert_same_search(home: &Path, with: &Client, without: &Client) -> usize {
    assert_answers(with, &scan_answers(home, without))
}

/// What the stores' scan answers to each search shape, at a time of its own (as a process is:
/// the index then counts words side by side only for the hits that may make the cut). A test
/// whose home does not change compares several clients against one of these.
struct Answers {
    env: Env,
    cases: Vec<(Value, Vec<agent_mux_sessions::SessionSummary>)>,
}

fn scan_answers(home: &Path, without: &Client) -> Answers {
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-28T12:00:00Z").unwrap();
    let env = Env::with_home(home).at(now.with_timezone(&chrono::Utc));
    let mut shapes: Vec<Value> = Vec::new();
    for q in QUERIES {
        for sort in ["relevance", "date", "cost"] {
            shapes.push(json!({"text": q, "sort": sort, "limit": 1000}));
        }
        // Cuts that leave hits out: the index completes only what the cut needs.
        for sort in ["relevance", "date", "cost"] {
            for limit in [1, 3] {
                shapes.push(json!({"text": q, "sort": sort, "limit": limit}));
            }
        }
        shapes.push(json!({"text": q, "since": 1767225600000u64, "limit": 1000}));
        shapes.push(json!({"text": q, "until": 1748736000000u64}));
        for a in AGENTS {
            shapes.push(json!({"text": q, "agent": a, "limit": 1000}));
        }
    }
    // Filters that take values from the home itself.
    let all = search(without, &env, json!({"text": "test", "limit": 1000}));
    for s in all.iter().take(4) {
        if let Some(m) = &s.model {
            shapes.push(json!({"text": "test", "model": m, "limit": 1000}));
        }
        if let Some(cwd) = &s.cwd {
            shapes.push(json!({"text": "test OR the", "cwd": cwd, "limit": 1000}));
        }
    }
    shapes.push(json!({"text": "test", "tags": ["nightly"], "limit": 1000}));
    let cases = (shapes.into_iter())
        .map(|q| {
            let want = search(without, &env, q.clone());
            (q, want)
        })
        .collect();
    Answers { env, cases }
}

/// `with` answers every shape as the scan did; returns how many results were compared.
fn assert_answers(with: &Client, answers: &Answers) -> usize {
    let mut compared = 0;
    for (q, want) in &answers.cases {
        assert_eq!(&search(with, &answers.env, q.clone()), want, "{q}");
        compared += want.len();
    }
    compared
}

fn assert_same_lists(home: &Path, with: &Client, without: &Client) {
    let env = Env::with_home(home);
    for a in AGENTS {
        for o in [
            json!({"limit": 1000}),
            json!({"sort": "cost", "limit": 5}),
            json!({"sort": "turns", "sortDirection": "asc"}),
        ] {
            let o = list_options(&o).unwrap();
            let want = without.list(env.clone(), a, &o).unwrap();
            assert_eq!(with.list(env.clone(), a, &o).unwrap(), want, "{a}");
        }
    }
    for o in [json!({"groupBy": "day"}), json!({"groupBy": "model"})] {
        let o = cost_options(&o).unwrap();
        let want = without.total_cost(env.clone(), &o).unwrap();
        assert_eq!(with.total_cost(env.clone(), &o).unwrap(), want);
    }
}

#[test]
fn the_index_answers_as_the_stores_do_on_the_demo_home() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let before = snapshot(&home);
    let (with, without) = (indexed(&cache), scanning());
    let scanned = scan_answers(&home, &without);
    // Twice: the first call builds the index, the second reads it.
    for _ in 0..2 {
        assert!(assert_answers(&with, &scanned) > 100);
        assert_same_lists(&home, &with, &without);
    }
    // A new client (a new process) answers from the index as it stands.
    assert!(assert_answers(&indexed(&cache), &scanned) > 100);
    assert!(agent_mux_sessions::index::store::path_in(&cache).is_file());
    // The agent stores are byte-identical, and nothing was added to them.
    assert_eq!(snapshot(&home), before);
}

#[test]
fn the_index_answers_as_the_stores_do_on_a_generated_home() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("home"), 150, 11);
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    let scanned = scan_answers(&home, &without);
    for _ in 0..2 {
        assert!(assert_answers(&with, &scanned) > 100);
        assert_same_lists(&home, &with, &without);
    }
    // Every session's terms are in the postings, and nothing else is.
    let (postings, orphans) = stored_postings(&cache);
    assert!(postings.len() > 10_000, "{} postings", postings.len());
    assert_eq!(orphans, 0);
}

/// A word in every session cut to a few results: the index ranks the thousands of matches
/// before making summaries and makes them only for those it returns, and answers exactly as
/// the stores' scan does (ids, order, scores, snippets, counts), in a client that watches the
/// stores too, with Hermes' own engine finding hits beside the index's (they share the scale
/// every relevance is divided by).
#[test]
fn a_broad_word_cut_to_a_few_results_answers_as_the_stores_do() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home_of(&tmp.path().join("home"), 240, 3, "claude,codex,hermes");
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-28T12:00:00Z").unwrap();
    let mut env = Env::with_home(&home).at(now.with_timezone(&chrono::Utc));
    env.set("AGENT_MUX_WATCH_MIN_SOURCES", "1");
    let watching = Client::new(ClientOptions {
        cache: CacheSetting::Dir(tmp.path().join("watched")),
        watch: true,
        ..Default::default()
    });
    let (with, without) = (indexed(&tmp.path().join("cache")), scanning());
    for text in [
        "the",
        "the first",
        "the OR kubernetes",
        "the NOT kubernetes",
        "th*",
    ] {
        let every = search(&without, &env, json!({"text": text, "limit": 100000}));
        assert!(every.len() > 100, "{text}: {}", every.len());
        assert!(every.iter().any(|s| s.agent == "hermes"), "{text}");
        for limit in [1, 2, 7, 50] {
            let q = json!({"text": text, "limit": limit});
            let want = search(&without, &env, q.clone());
            assert_eq!(want.len(), limit, "{q}");
            // Twice: the first call builds the index, the second reads it.
            for c in [&with, &watching, &with, &watching] {
                assert_eq!(search(c, &env, q.clone()), want, "{q}");
            }
        }
    }
    // One session grows and another goes: the watching client, which held the documents of the
    // index before, answers from the index as it is now.
    let claude = jsonl_files(&home.join(".claude"));
    let (grown, gone) = (&claude[0].0, &claude[1].0);
    let id = |p: &Path| p.file_stem().unwrap().to_str().unwrap().to_string();
    append_message(grown, &id(grown), "u-grown", "the zebrafish");
    std::fs::remove_file(gone).unwrap();
    for (text, limit) in [("the", 7), ("the", 100000), ("the zebrafish", 7)] {
        let q = json!({"text": text, "limit": limit});
        let want = search(&without, &env, q.clone());
        let ids: Vec<String> = want.iter().map(|s| s.session_id.clone()).collect();
        assert!(!ids.contains(&id(gone)), "{q}");
        if text == "the zebrafish" {
            assert_eq!(ids, [id(grown)], "{q}");
        }
        for c in [&watching, &with, &watching] {
            assert_eq!(search(c, &env, q.clone()), want, "{q}");
        }
    }
}

/// A Claude JSONL record: a user message `text` in session `sid`, after record `parent`.
fn claude_line(sid: &str, uuid: &str, parent: Option<&str>, text: &str) -> String {
    json!({
        "parentUuid": parent, "isSidechain": false, "type": "user", "uuid": uuid,
        "sessionId": sid, "cwd": "/home/dev/src/shop", "timestamp": "2026-10-08T10:00:00.000Z",
        "message": {"role": "user", "content": text}
    })
    .to_string()
        + "\n"
}

fn last_uuid(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|v| v["uuid"].as_str().map(str::to_string))
        .unwrap()
}

/// Append a user message to a Claude session, after its last message.
fn append_message(path: &Path, sid: &str, uuid: &str, text: &str) {
    let line = claude_line(sid, uuid, Some(&last_uuid(path)), text);
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, line.as_bytes()).unwrap();
}

/// Index and scan agree on these queries and on Claude's listing, and return the hits' ids.
fn agree(home: &Path, with: &Client, without: &Client) -> Vec<Vec<String>> {
    let env = Env::with_home(home);
    let ids = |v: &[agent_mux_sessions::SessionSummary]| -> Vec<String> {
        v.iter().map(|s| s.session_id.clone()).collect()
    };
    let mut out = Vec::new();
    for q in ["zebrafish", "kubernetes", "test OR zebrafish", "okapi"] {
        let q = json!({"text": q, "limit": 1000});
        let want = search(without, &env, q.clone());
        assert_eq!(search(with, &env, q.clone()), want, "{q}");
        out.push(ids(&want));
    }
    let o = list_options(&json!({"limit": 1000})).unwrap();
    // The same scanning client: its in-process summary cache, like the index, keys on the inode
    // too, so it sees a file replaced by one of the same size and time.
    let want = without.list(env.clone(), "claude", &o).unwrap();
    assert_eq!(with.list(env, "claude", &o).unwrap(), want);
    out
}

/// A posting: field, term, and the session (agent, id) that holds it at these positions.
type Posting = (String, Vec<u8>, String, String, Vec<u32>);

/// Every live posting of the index in `cache`, by session rather than by row id: what an index
/// kept up to date call by call must hold, exactly as one built afresh does; and how many live
/// documents of the postings and rows of the file have no counterpart in the other.
fn stored_postings(cache: &Path) -> (BTreeSet<Posting>, usize) {
    use agent_mux_sessions::index::{postings, store};
    use tantivy::postings::Postings as _;
    use tantivy::{DocSet, TERMINATED};
    let db = rusqlite::Connection::open(store::path_in(cache)).unwrap();
    // Hermes' sessions are held for their touches only, without postings (`TOUCHES_ONLY`).
    let mut st = db
        .prepare(&format!(
            "SELECT id, agent, summary FROM doc WHERE agent <> '{TOUCHES_ONLY}'"
        ))
        .unwrap();
    let mut rows: std::collections::BTreeMap<u64, (String, String)> = st
        .query_map([], |r| {
            let summary: Vec<u8> = r.get(2)?;
            let sid = agent_mux_sessions::index::codec::decode_summary(&summary)
                .unwrap()
                .session_id;
            Ok((r.get::<_, i64>(0)? as u64, (r.get(1)?, sid)))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let p = postings::Postings::open(&postings::path_in(cache, store::FORMAT)).unwrap();
    let (searcher, _) = p.searcher().unwrap();
    let schema = p.index.schema();
    let (mut out, mut orphans) = (BTreeSet::new(), 0);
    let mut live = BTreeSet::new();
    for seg in searcher.segment_readers() {
        let ids = seg.fast_fields().u64("doc").unwrap();
        let alive = |d| seg.alive_bitset().is_none_or(|a| a.is_alive(d));
        for d in (0..seg.max_doc()).filter(|&d| alive(d)) {
            live.insert(ids.first(d).unwrap());
        }
        for field in p.fields.words.iter().chain(&p.fields.cjk) {
            let name = schema.get_field_name(*field).to_string();
            let inv = seg.inverted_index(*field).unwrap();
            let mut terms = inv.terms().stream().unwrap();
            while terms.advance() {
                let mut postings = inv
                    .read_postings_from_terminfo(
                        terms.value(),
                        tantivy::schema::IndexRecordOption::WithFreqsAndPositions,
                    )
                    .unwrap();
                while postings.doc() != TERMINATED {
                    let d = postings.doc();
                    if alive(d) {
                        let (agent, sid) = rows[&ids.first(d).unwrap()].clone();
                        let mut positions = Vec::new();
                        postings.positions(&mut positions);
                        out.insert((name.clone(), terms.key().to_vec(), agent, sid, positions));
                    }
                    postings.advance();
                }
            }
        }
    }
    for id in &live {
        if rows.remove(id).is_none() {
            orphans += 1;
        }
    }
    orphans += rows.len();
    (out, orphans)
}

/// The agent searched by its own engine, whose sessions the index holds for their touches
/// only (written by `index update`, not by a search).
const TOUCHES_ONLY: &str = "hermes";

/// A stored session: agent, id, field lengths.
type StoredDoc = (String, String, Vec<u8>);

fn stored_docs(cache: &Path) -> BTreeSet<StoredDoc> {
    use agent_mux_sessions::index::codec;
    let db = rusqlite::Connection::open(agent_mux_sessions::index::store::path_in(cache)).unwrap();
    let mut st = db
        .prepare(&format!(
            "SELECT d.agent, d.summary, d.lengths FROM doc d WHERE agent <> '{TOUCHES_ONLY}'"
        ))
        .unwrap();
    let rows = st
        .query_map([], |r| {
            let blob = |i: usize| r.get::<_, Vec<u8>>(i);
            let sid = codec::decode_summary(&blob(1)?).unwrap().session_id;
            Ok((r.get(0)?, sid, blob(2)?))
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// The index kept up to date holds what a fresh build of the home holds.
fn same_as_rebuilt(home: &Path, cache: &Path) {
    let fresh = tempfile::tempdir().unwrap();
    let rebuilt = indexed(fresh.path());
    search(
        &rebuilt,
        &Env::with_home(home),
        json!({"text": "zebrafish"}),
    );
    let ((kept, orphans), (built, _)) = (stored_postings(cache), stored_postings(fresh.path()));
    assert!(!built.is_empty());
    assert_eq!(
        orphans, 0,
        "documents of the postings or rows of the file left behind"
    );
    assert_eq!(kept.len(), built.len());
    assert!(
        kept == built,
        "the postings kept differ from a fresh build's"
    );
    let (kept, built) = (stored_docs(cache), stored_docs(fresh.path()));
    assert_eq!(kept.len(), built.len());
    for (k, b) in kept.iter().zip(&built) {
        assert_eq!((&k.0, &k.1), (&b.0, &b.1));
        assert_eq!(k.2, b.2, "{} {}: lengths", b.0, b.1);
    }
}

/// The JSONL files under `home`, with their text.
fn jsonl_files(home: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![home.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                let text = std::fs::read_to_string(&p).unwrap();
                out.push((p, text));
            }
        }
    }
    out.sort();
    out
}

/// Leave the first `part` of each file's lines (at least one), as the agent had written them
/// by then.
fn cut_to(files: &[(PathBuf, String)], part: f64) {
    for (p, text) in files {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let keep = ((lines.len() as f64 * part).ceil() as usize).clamp(1, lines.len());
        std::fs::write(p, lines[..keep].concat()).unwrap();
    }
}

#[test]
fn sessions_that_grow_are_counted_as_a_fresh_build_counts_them() {
    // Every JSONL session of every agent grows in steps, the cuts falling anywhere: between a
    // tool call and its answer, inside a response split over lines, before a title line.
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("home"), 60, 11);
    let files = jsonl_files(&home);
    let agents: BTreeSet<String> = files
        .iter()
        .map(|(p, _)| p.strip_prefix(&home).unwrap().iter().next().unwrap())
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert!(agents.len() >= 5, "JSONL stores of {agents:?}");
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    for part in [0.3, 0.55, 0.8, 1.0] {
        cut_to(&files, part);
        for q in ["test", "kubernetes OR borrow", "\"docker compose\""] {
            let env = Env::with_home(&home);
            let q = json!({"text": q, "limit": 1000});
            assert_eq!(
                search(&with, &env, q.clone()),
                search(&without, &env, q.clone()),
                "{q}"
            );
        }
        same_as_rebuilt(&home, &cache);
    }
}

/// A Claude session of the demo home's shop project: its folder, its file and its id.
fn shop_session(home: &Path) -> (PathBuf, PathBuf, String) {
    let project = home.join(".claude/projects/-home-dev-src-shop");
    let existing = std::fs::read_dir(&project)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let sid = existing.file_stem().unwrap().to_str().unwrap().to_string();
    (project, existing, sid)
}

#[test]
fn sources_that_appear_grow_change_shrink_or_vanish_are_seen_at_the_next_call() {
    let (tmp, home) = demo_copy();
    let (with, without) = (indexed(&tmp.path().join("cache")), scanning());
    let (project, existing, sid) = shop_session(&home);
    assert!(agree(&home, &with, &without)[0].is_empty());

    // New: a session appears.
    let new_sid = "0b5e7a57-0000-4000-8000-000000000001";
    let new = project.join(format!("{new_sid}.jsonl"));
    std::fs::write(&new, claude_line(new_sid, "u1", None, "a zebrafish tank")).unwrap();
    assert_eq!(agree(&home, &with, &without)[0], [new_sid]);

    // Grown: a message appended to an indexed session.
    append_message(&existing, &sid, "u2", "zebrafish too");
    let hits = agree(&home, &with, &without);
    assert_eq!(hits[0].len(), 2, "{hits:?}");
    // Grown again, with a word it holds already: it still holds what a fresh build does.
    append_message(&existing, &sid, "u3", "zebrafish again");
    assert_eq!(agree(&home, &with, &without)[0].len(), 2);
    same_as_rebuilt(&home, &tmp.path().join("cache"));

    // Rewritten in place with the same size and time, as another file (a new inode).
    let md = std::fs::metadata(&new).unwrap();
    let replaced = tmp.path().join("replacement");
    std::fs::write(
        &replaced,
        claude_line(new_sid, "u1", None, "an okapi... tank"),
    )
    .unwrap();
    assert_eq!(std::fs::metadata(&replaced).unwrap().len(), md.len());
    std::fs::File::options()
        .write(true)
        .open(&replaced)
        .unwrap()
        .set_modified(md.modified().unwrap())
        .unwrap();
    std::fs::rename(&replaced, &new).unwrap();
    let hits = agree(&home, &with, &without);
    assert_eq!((hits[0].len(), &hits[3]), (1, &vec![new_sid.to_string()]));

    // Truncated: the appended messages are gone again.
    let text = std::fs::read_to_string(&existing).unwrap();
    let keep = text.lines().count() - 2;
    let kept: String = text.lines().take(keep).map(|l| format!("{l}\n")).collect();
    std::fs::write(&existing, kept).unwrap();
    assert!(agree(&home, &with, &without)[0].is_empty());
    same_as_rebuilt(&home, &tmp.path().join("cache"));

    // Vanished: the session is dropped from the index at once, its text with it.
    std::fs::remove_file(&new).unwrap();
    assert!(agree(&home, &with, &without)[3].is_empty());
    let (postings, orphans) = stored_postings(&tmp.path().join("cache"));
    assert!(!postings.iter().any(|p| p.1 == b"okapi"));
    // Nothing of a dropped session is left behind: every posting belongs to a session.
    assert_eq!(orphans, 0);
    assert!(!postings.is_empty());
}

/// A snippet is made from the source as it is when the call reads it, never from what the index
/// took in: a Codex rollout rewritten in place (same inode, size and time, so the index still
/// holds it as it was, counts and all) gives the snippet of its text as it is now, read for its
/// conversation alone as from the whole file.
#[test]
fn a_source_rewritten_in_place_gives_the_snippet_of_its_text_as_it_is_now() {
    let (tmp, home) = demo_copy();
    let (with, without) = (indexed(&tmp.path().join("cache")), scanning());
    let env = Env::with_home(&home);
    let rollout = snapshot(&home.join(".codex"))
        .into_keys()
        .filter(|p| p.is_file())
        .find(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            text.contains("docker compose up fails with port already allocated")
        })
        .expect("the demo's Codex rollout of the port clash");
    let snippet_of = |c: &Client, q: &str| -> Option<String> {
        let found = search(c, &env, json!({"text": q, "limit": 1000}));
        found
            .into_iter()
            .find(|s| rollout.to_str().unwrap().contains(&s.session_id))
            .map(|s| s.snippet.unwrap_or_default())
    };
    let before = snippet_of(&with, "allocated").expect("found by the index");
    assert!(before.contains("fails"), "{before}");
    assert_eq!(Some(before), snippet_of(&without, "allocated"));

    let md = std::fs::metadata(&rollout).unwrap();
    let text = std::fs::read_to_string(&rollout).unwrap();
    let rewritten = text.replace("compose up fails with", "compose up broke with");
    assert_eq!(rewritten.len(), text.len());
    {
        use std::io::Write;
        let mut f = std::fs::File::options().write(true).open(&rollout).unwrap();
        f.write_all(rewritten.as_bytes()).unwrap();
        f.set_modified(md.modified().unwrap()).unwrap();
    }
    let now = std::fs::metadata(&rollout).unwrap();
    assert_eq!(
        (now.len(), now.modified().unwrap()),
        (md.len(), md.modified().unwrap())
    );
    // The index still holds the rollout as it was: its stamps did not change.
    assert!(snippet_of(&with, "fails").is_some());
    assert!(snippet_of(&without, "fails").is_none());
    let after = snippet_of(&with, "allocated").expect("found by the index");
    assert!(
        after.contains("broke") && !after.contains("fails"),
        "{after}"
    );
    assert_eq!(Some(after), snippet_of(&without, "allocated"));
}

/// A used client lists again from the summaries it kept of the sources that did not change, and
/// reads from the index only those of the sources that did: stored summaries swapped behind its
/// back are not seen by it (a new client shows them), and a session that grows is listed as the
/// stores have it.
#[test]
fn a_used_client_reads_again_only_the_summaries_of_sources_that_changed() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    let env = Env::with_home(&home);
    let o = list_options(&json!({"limit": 1000})).unwrap();
    let list = |c: &Client| c.list(env.clone(), "claude", &o).unwrap();
    let want = list(&without);
    assert!(want.len() > 1);
    // A client's first listing of an agent keeps nothing (a command lists once); its second
    // keeps what it listed.
    let once = indexed(&cache);
    assert_eq!(list(&once), want);
    assert_eq!(list(&with), want);
    assert_eq!(list(&with), want);
    // Every Claude source's row made to hold one session's summaries.
    let db = rusqlite::Connection::open(agent_mux_sessions::index::store::path_in(&cache)).unwrap();
    let swapped = db
        .execute(
            "UPDATE source SET summaries = (SELECT summaries FROM source WHERE agent = 'claude'
               AND summaries IS NOT NULL LIMIT 1) WHERE agent = 'claude' AND summaries IS NOT NULL",
            [],
        )
        .unwrap();
    assert!(swapped > 1);
    drop(db);
    assert_ne!(
        list(&indexed(&cache)),
        want,
        "a new client reads the swapped rows"
    );
    assert_ne!(list(&once), want, "so does one that listed once");
    assert_eq!(list(&with), want);

    let (_, existing, sid) = shop_session(&home);
    append_message(&existing, &sid, "u2", "one message more");
    let messages = |v: &[agent_mux_sessions::SessionSummary]| {
        v.iter()
            .find(|s| s.session_id == sid)
            .unwrap()
            .message_count
    };
    let grown = list(&without);
    assert_eq!(messages(&grown), messages(&want) + 1);
    assert_eq!(list(&with), grown);
}

/// A search answers from the postings, not from the sources: a session whose file was changed
/// behind the index's back (same size, time and inode) is still found by the words it held, by
/// every query form, while a scan finds it by its new text only.
#[test]
fn the_postings_answer_and_the_sources_are_not_scanned() {
    let (tmp, home) = demo_copy();
    let (with, without) = (indexed(&tmp.path().join("cache")), scanning());
    let project = home.join(".claude/projects/-home-dev-src-shop");
    let sid = "0b5e7a57-0000-4000-8000-000000000002";
    let path = project.join(format!("{sid}.jsonl"));
    let text = "the zebrafish tank 蝾螈缸 gets cleaned";
    std::fs::write(&path, claude_line(sid, "u1", None, text)).unwrap();
    assert_eq!(agree(&home, &with, &without)[0], [sid]);
    let md = std::fs::metadata(&path).unwrap();
    let changed = std::fs::read_to_string(&path)
        .unwrap()
        .replace("zebrafish", "walrusfsh")
        .replace("蝾螈缸", "蝾螈池");
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::io::Write::write_all(&mut f, changed.as_bytes()).unwrap();
    f.set_modified(md.modified().unwrap()).unwrap();
    drop(f);
    let env = Env::with_home(&home);
    for q in [
        "zebrafish",
        "zebra*",
        "zebrafish tank",
        "\"zebrafish tank\"",
        "zebrafish OR okapi",
        "zebrafish NOT okapi",
        "蝾螈缸",
    ] {
        let q = json!({"text": q, "limit": 1000});
        let ids: Vec<String> = search(&with, &env, q.clone())
            .into_iter()
            .map(|s| s.session_id)
            .collect();
        assert_eq!(ids, [sid], "{q}");
        assert!(search(&without, &env, q.clone()).is_empty(), "{q}");
    }
}

#[test]
fn a_damaged_or_foreign_index_is_read_around_and_rebuilt() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let db = agent_mux_sessions::index::store::path_in(&cache);
    let (with, without) = (indexed(&cache), scanning());
    agree(&home, &with, &without);
    let damages: [(&str, &dyn Fn()); 3] = [
        ("garbage", &|| {
            std::fs::write(&db, vec![7u8; 64 * 1024]).unwrap()
        }),
        ("truncated", &|| {
            let f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
            f.set_len(f.metadata().unwrap().len() / 3).unwrap();
        }),
        ("foreign", &|| {
            rusqlite::Connection::open(&db)
                .unwrap()
                .pragma_update(None, "user_version", 99)
                .unwrap()
        }),
    ];
    for (what, damage) in damages {
        // Settle the WAL into the file so the damage reaches what is read.
        rusqlite::Connection::open(&db)
            .unwrap()
            .pragma_update(None, "wal_checkpoint", "TRUNCATE")
            .ok();
        damage();
        rebuilt_after_damage(&home, &cache, &with, &without, what);
    }
    // The postings: a segment's file missing or damaged, their metadata unreadable, or of
    // another generation than the file records (a commit of one without the other).
    let postings = agent_mux_sessions::index::postings::path_in(
        &cache,
        agent_mux_sessions::index::store::FORMAT,
    );
    let segment_file = |ext: &str| -> PathBuf {
        std::fs::read_dir(&postings)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == ext))
            .unwrap_or_else(|| panic!("a .{ext} file"))
    };
    let damages: [(&str, &dyn Fn()); 5] = [
        ("a segment's positions missing", &|| {
            std::fs::remove_file(segment_file("pos")).unwrap()
        }),
        ("a segment's terms damaged", &|| {
            let f = segment_file("term");
            let len = std::fs::metadata(&f).unwrap().len() as usize;
            std::fs::write(&f, vec![0xA5u8; len]).unwrap()
        }),
        ("a segment's postings damaged", &|| {
            let f = segment_file("idx");
            let len = std::fs::metadata(&f).unwrap().len() as usize;
            std::fs::write(&f, vec![0x5Au8; len]).unwrap()
        }),
        ("metadata garbage", &|| {
            std::fs::write(postings.join("meta.json"), b"{not json").unwrap()
        }),
        ("another generation", &|| {
            rusqlite::Connection::open(&db)
                .unwrap()
                .execute("UPDATE postings SET generation = generation + 7", [])
                .unwrap();
        }),
    ];
    for (what, damage) in damages {
        damage();
        rebuilt_after_damage(&home, &cache, &with, &without, what);
    }
}

/// After `what` damaged the index: the next call answers as a scan does, and the one after from
/// a rebuilt index.
fn rebuilt_after_damage(home: &Path, cache: &Path, with: &Client, without: &Client, what: &str) {
    let db = agent_mux_sessions::index::store::path_in(cache);
    agree(home, with, without);
    agree(home, with, without);
    let version: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, agent_mux_sessions::index::store::FORMAT, "{what}");
    let docs: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM doc", [], |r| r.get(0))
        .unwrap();
    assert!(docs > 0, "{what}");
    let (postings, orphans) = stored_postings(cache);
    assert!(!postings.is_empty(), "{what}");
    assert_eq!(orphans, 0, "{what}");
}

/// A session the postings find whose row the file lacks is damage, whether the search reads the
/// rows of what it found in one pass over them (a word in most sessions) or one by one (a rare
/// word): the call answers as a scan does, and the next one rebuilds the index.
#[test]
fn a_found_session_without_its_row_is_damage_to_a_broad_search_and_a_rare_one() {
    use agent_mux_sessions::index::{codec, lookup::ONE_PASS_SPARSEST, store};
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let db = store::path_in(&cache);
    let (with, without) = (indexed(&cache), scanning());
    let env = Env::with_home(&home);
    for (text, one_pass) in [("the", true), ("kubernetes", false)] {
        let q = json!({"text": text, "limit": 1000});
        let want = search(&without, &env, q.clone());
        assert_eq!(search(&with, &env, q.clone()), want, "{text}");
        // The rows of the sessions found (those the index holds: not Hermes', which its own
        // engine finds), dense or sparse among the rows they span.
        let found: BTreeSet<(String, String)> = want
            .iter()
            .map(|s| (s.agent.clone(), s.session_id.clone()))
            .collect();
        let conn = rusqlite::Connection::open(&db).unwrap();
        let mut st = conn.prepare("SELECT id, summary FROM doc").unwrap();
        let rows: Vec<i64> = st
            .query_map([], |r| {
                let s = codec::decode_summary(&r.get::<_, Vec<u8>>(1)?).unwrap();
                Ok((r.get(0)?, (s.agent, s.session_id)))
            })
            .unwrap()
            .map(Result::unwrap)
            .filter(|(_, key)| found.contains(key))
            .map(|(id, _)| id)
            .collect();
        drop(st);
        let (first, last) = (rows[0], rows[rows.len() - 1]);
        let span = (last - first + 1) as u64;
        assert_eq!(
            rows.len() as u64 * ONE_PASS_SPARSEST >= span,
            one_pass,
            "{text}"
        );
        // The last row found: a pass over the rows ends before it.
        conn.execute("DELETE FROM doc WHERE id = ?1", [last])
            .unwrap();
        drop(conn);
        assert_eq!(search(&with, &env, q.clone()), want, "{text}");
        // The damaged index was removed: no file, or one made afresh (a listing of Hermes'
        // hits opens it) that holds no session yet.
        let docs: i64 = match db.exists() {
            false => 0,
            true => rusqlite::Connection::open(&db)
                .unwrap()
                .query_row("SELECT count(*) FROM doc", [], |r| r.get(0))
                .unwrap(),
        };
        assert_eq!(docs, 0, "{text}");
        rebuilt_after_damage(&home, &cache, &with, &without, text);
    }
}

/// Every call reads each source's stamps from the index `source_fresh` alone, in path order:
/// an index file made before it existed gets it at the next call.
#[test]
fn the_stamps_are_read_from_their_own_index_which_an_older_file_gets() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    agree(&home, &with, &without);
    let db =
        || rusqlite::Connection::open(agent_mux_sessions::index::store::path_in(&cache)).unwrap();
    let has_it = || -> i64 {
        db().query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'source_fresh'",
            [],
            |r| r.get(0),
        )
        .unwrap()
    };
    for key in ["search_key", "list_key"] {
        let sql = format!(
            "EXPLAIN QUERY PLAN SELECT id, path, sessions, {key} FROM source \
             WHERE agent = 'claude' AND archived = 0 ORDER BY path"
        );
        let conn = db();
        let mut st = conn.prepare(&sql).unwrap();
        let plan: Vec<String> = st
            .query_map([], |r| r.get(3))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            plan,
            ["SEARCH source USING COVERING INDEX source_fresh (agent=? AND archived=?)"],
            "{key}"
        );
    }
    db().execute_batch("DROP INDEX source_fresh").unwrap();
    assert_eq!(has_it(), 0);
    agree(&home, &with, &without);
    assert_eq!(has_it(), 1);
}

/// An upgrade leaves the older format's file; clearing the index removes every format's files
/// and nothing else of the directory.
#[test]
fn clearing_removes_every_formats_files_and_only_those() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let with = indexed(&cache);
    search(&with, &Env::with_home(&home), json!({"text": "zebrafish"}));
    let current = agent_mux_sessions::index::store::path_in(&cache);
    assert!(current.is_file());
    let older = [
        "index-v3.sqlite",
        "index-v3.sqlite-wal",
        "index-v12.sqlite-shm",
        "index-v3.sqlite-journal",
    ];
    let others = [
        "notes.txt",
        "index-v.sqlite",
        "index-v3.sqlite.bak",
        "index-vx.sqlite",
    ];
    for name in older.iter().chain(&others) {
        std::fs::write(cache.join(name), b"x").unwrap();
    }
    assert!(with.index_clear(Env::with_home(&home)).unwrap());
    let mut left: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    let mut want: Vec<String> = others.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(left, want);
}

#[test]
fn an_upgrade_removes_older_formats_files_and_keeps_the_others() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let older = [
        "index-v3.sqlite",
        "index-v3.sqlite-wal",
        "index-v1.sqlite-shm",
        "index-v4.sqlite-journal",
    ];
    let kept = [
        "index-v99.sqlite",
        "index-v13.sqlite-shm",
        "notes.txt",
        "index-v3.sqlite.bak",
    ];
    for name in older.iter().chain(&kept) {
        std::fs::write(cache.join(name), b"x").unwrap();
    }
    let (with, without) = (indexed(&cache), scanning());
    agree(&home, &with, &without);
    let mut left: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| {
            !n.starts_with(&format!(
                "index-v{}.",
                agent_mux_sessions::index::store::FORMAT
            ))
        })
        .collect();
    left.sort();
    let mut want: Vec<String> = kept.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(left, want);
    assert!(agent_mux_sessions::index::store::path_in(&cache).is_file());
}

#[test]
fn an_unwritable_cache_dir_means_reading_the_stores() {
    let (tmp, home) = demo_copy();
    // A directory that cannot be made (a file is in the way: unwritable even for root), and,
    // where permissions hold, one inside a read-only directory.
    let blocker = tmp.path().join("a-file");
    std::fs::write(&blocker, b"not a directory").unwrap();
    let mut caches = vec![blocker.join("cache")];
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = tmp.path().join("locked");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o500)).unwrap();
        if std::fs::write(locked.join("probe"), b"").is_err() {
            caches.push(locked.join("cache"));
        }
    }
    let scanned = scan_answers(&home, &scanning());
    for cache in caches {
        assert!(assert_answers(&indexed(&cache), &scanned) > 100);
        assert_same_lists(&home, &indexed(&cache), &scanning());
        assert!(!cache.exists());
    }
}

#[cfg(unix)]
#[test]
fn the_index_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("a/b/cache");
    let with = indexed(&cache);
    agree(&home, &with, &scanning());
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&cache), 0o700);
    // A reader holds the WAL and its index open (the last connection to close removes them).
    let reader =
        rusqlite::Connection::open(agent_mux_sessions::index::store::path_in(&cache)).unwrap();
    let _: i64 = reader
        .query_row("SELECT count(*) FROM doc", [], |r| r.get(0))
        .unwrap();
    // Files owner-only, and so the postings' directory.
    let mut files = 0;
    let mut dirs = vec![cache.clone()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            match e.path().is_dir() {
                true => {
                    assert_eq!(mode(&e.path()), 0o700, "{:?}", e.path());
                    dirs.push(e.path());
                }
                false => assert_eq!(mode(&e.path()), 0o600, "{:?}", e.path()),
            }
            files += 1;
        }
    }
    assert!(
        files >= 8,
        "the database, its WAL and shared-memory index, the postings"
    );
}

/// A new index is built in rollback-journal mode (each page written once), and the call that
/// built it leaves it in WAL mode, where another process's reads never wait for a write.
#[test]
fn the_call_that_builds_the_index_leaves_it_in_wal_mode() {
    let (tmp, home) = demo_copy();
    let env = Env::with_home(&home);
    for what in ["search", "list"] {
        let cache = tmp.path().join(what);
        let client = indexed(&cache);
        let found = match what {
            "search" => search(&client, &env, json!({"text": "docker"})).len(),
            _ => {
                let o = list_options(&json!({})).unwrap();
                client.list(env.clone(), "claude", &o).unwrap().len()
            }
        };
        assert!(found > 0, "{what}");
        // The file format's bytes 18 and 19: 2 in WAL mode, 1 otherwise.
        let db = std::fs::read(agent_mux_sessions::index::store::path_in(&cache)).unwrap();
        assert_eq!(db[18..20], [2, 2], "{what}");
    }
}

#[test]
fn two_clients_updating_one_index_at_once_both_answer_right() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("home"), 120, 3);
    let cache = tmp.path().join("cache");
    let without = scanning();
    let env = Env::with_home(&home);
    let queries = ["test", "kubernetes OR borrow", "\"docker compose\""];
    let want: Vec<_> = queries
        .iter()
        .map(|q| search(&without, &env, json!({"text": q, "limit": 1000})))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let with = indexed(&cache);
                for (q, want) in queries.iter().zip(&want) {
                    assert_eq!(
                        &search(&with, &env, json!({"text": q, "limit": 1000})),
                        want
                    );
                }
            });
        }
    });
    let o = cost_options(&json!({})).unwrap();
    assert_eq!(
        indexed(&cache).total_cost(env.clone(), &o).unwrap(),
        without.total_cost(env, &o).unwrap()
    );
}

#[test]
fn an_up_to_date_index_is_read_while_another_process_writes() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    let env = Env::with_home(&home);
    let q = json!({"text": "docker compose", "limit": 1000});
    let want = search(&without, &env, q.clone());
    assert_eq!(search(&with, &env, q.clone()), want);
    // Another process holds the write lock: nothing changed, so the search takes no lock and
    // does not wait out the busy timeout (1.5 s per agent) before answering.
    let writer =
        rusqlite::Connection::open(agent_mux_sessions::index::store::path_in(&cache)).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let start = std::time::Instant::now();
    assert_eq!(search(&with, &env, q), want);
    let took = start.elapsed();
    writer.execute_batch("ROLLBACK").unwrap();
    assert!(took < std::time::Duration::from_millis(1400), "{took:?}");
}

/// While another process writes the index, a search neither waits for it nor writes: it answers
/// from what was committed, and scans the sources changed since, as they are now.
#[test]
fn a_process_that_cannot_write_answers_from_the_committed_index_and_scans_what_changed() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    let env = Env::with_home(&home);
    assert!(agree(&home, &with, &without)[0].is_empty());
    let (project, existing, sid) = shop_session(&home);
    let writer =
        rusqlite::Connection::open(agent_mux_sessions::index::store::path_in(&cache)).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    // Grown, new, and (another agent's) gone.
    append_message(&existing, &sid, "u2", "zebrafish seen");
    let new_sid = "0b5e7a57-0000-4000-8000-000000000003";
    std::fs::write(
        project.join(format!("{new_sid}.jsonl")),
        claude_line(new_sid, "u1", None, "a zebrafish tank"),
    )
    .unwrap();
    let start = std::time::Instant::now();
    let hits = agree(&home, &with, &without);
    assert!(start.elapsed() < std::time::Duration::from_millis(1400));
    assert_eq!(hits[0].len(), 2, "{hits:?}");
    // Nothing was written: the changed sources are still to index.
    assert!(with.index_status(env.clone()).stale >= 2);
    writer.execute_batch("ROLLBACK").unwrap();
    assert_eq!(agree(&home, &with, &without)[0].len(), 2);
    assert_eq!(with.index_status(env).stale, 0);
}

/// A client whose searches do not wait for the index to take in what changed, its index in
/// `cache`.
fn not_waiting(cache: &Path, updates: IndexUpdates) -> Client {
    Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.to_path_buf()),
        index_updates: updates,
        ..Default::default()
    })
}

/// A search that leaves the writing for later answers as the stores do while the index holds
/// nothing, and says so; `index_update` then writes exactly what a build that waited writes. A
/// session that grows is read by the next search itself until an update takes it in.
#[test]
fn a_search_that_leaves_the_writing_for_later_answers_as_the_stores_do() {
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let env = Env::with_home(&home);
    let (later, without) = (not_waiting(&cache, IndexUpdates::Deferred), scanning());
    assert!(!later.index_pending());
    let scanned = scan_answers(&home, &without);
    assert!(assert_answers(&later, &scanned) > 100);
    // Nothing was written, and the caller is told there is something to write; what was left
    // is kept with the environment and directory a process of our own would write it with.
    assert!(later.index_pending());
    let left = later.index_left();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].dir, cache);
    assert_eq!(left[0].env.home(), Some(home.clone()));
    let status = later.index_status(env.clone());
    assert_eq!(status.sessions, 0);
    assert!(status.stale > 20, "{status:?}");
    let status = later.index_update(env.clone(), false).unwrap();
    assert_eq!((status.stale, status.sessions), (0, 27));
    assert!(!later.index_pending());
    assert!(later.index_left().is_empty());
    same_as_rebuilt(&home, &cache);
    assert!(assert_answers(&later, &scanned) > 100);
    assert!(!later.index_pending());
    // Grown: the next search reads the grown session itself.
    let (_, existing, sid) = shop_session(&home);
    append_message(&existing, &sid, "u2", "zebrafish seen");
    assert_eq!(agree(&home, &later, &without)[0].len(), 1);
    assert!(later.index_pending());
    assert_eq!(later.index_status(env.clone()).stale, 1);
    later.index_update(env.clone(), false).unwrap();
    assert_eq!(later.index_status(env).stale, 0);
    same_as_rebuilt(&home, &cache);
}

/// The first search on a new home answers at once, from the stores; a thread of the process then
/// fills the index, while further searches answer as the stores do; once it is done the index
/// holds what a build that waited holds.
#[test]
fn a_search_answers_at_once_and_a_thread_fills_the_index_after_it() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("home"), 300, 5);
    let cache = tmp.path().join("cache");
    let env = Env::with_home(&home);
    let (now, without) = (not_waiting(&cache, IndexUpdates::Background), scanning());
    let q = json!({"text": "test OR kubernetes", "limit": 1000});
    let want = search(&without, &env, q.clone());
    assert!(want.len() > 10);
    assert_eq!(search(&now, &env, q.clone()), want);
    // The thread is started before the search returns, and what it writes is kept as left until
    // it is done.
    let left = now.index_left();
    assert!(now.index_writing(env.clone()));
    assert_eq!(left.len(), 1);
    let mut meanwhile = 0;
    while now.index_writing(env.clone()) {
        assert_eq!(search(&now, &env, q.clone()), want);
        meanwhile += 1;
    }
    assert!(meanwhile > 0);
    now.index_idle(env.clone(), false);
    assert!(now.index_left().is_empty());
    assert_eq!(now.index_status(env.clone()).stale, 0);
    #[cfg(target_os = "linux")]
    {
        let nice = niceness_of_threads("amux-index-");
        assert!(
            !nice.is_empty() && nice.iter().all(|&n| n == 10),
            "{nice:?}"
        );
    }
    same_as_rebuilt(&home, &cache);
    assert!(assert_same_search(&home, &now, &without) > 100);
}

/// The nice value of each thread of this process whose name starts with `prefix`: the threads
/// a background write runs on have a low priority, the process's others a normal one.
#[cfg(target_os = "linux")]
fn niceness_of_threads(prefix: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.starts_with(prefix) {
            continue;
        }
        // The fields after the name, which is in parentheses: nice is the 19th field of all.
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 2..];
        out.push(after_name.split(' ').nth(16).unwrap().parse().unwrap());
    }
    out
}

/// A long write commits as it goes: each commit is a consistent index, and the whole is what one
/// commit at the end would hold.
#[test]
fn a_long_write_commits_as_it_goes() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home_of(&tmp.path().join("home"), 400, 9, "claude");
    let cache = tmp.path().join("cache");
    let mut env = Env::with_home(&home);
    env.set("AGENT_MUX_INDEX_CHECKPOINT_MS", "0");
    let (with, without) = (indexed(&cache), scanning());
    let q = json!({"text": "test OR kubernetes", "limit": 1000});
    assert_eq!(search(&with, &env, q.clone()), search(&without, &env, q));
    // Four batches of sources, a commit after each of the first three and one at the end.
    let generation: i64 =
        rusqlite::Connection::open(agent_mux_sessions::index::store::path_in(&cache))
            .unwrap()
            .query_row("SELECT generation FROM postings", [], |r| r.get(0))
            .unwrap();
    assert_eq!(generation, 4);
    same_as_rebuilt(&home, &cache);
}

#[test]
fn an_update_cut_off_inside_its_commit_is_written_again_by_the_next() {
    // A process that exits while its update commits (a search's thread does, with the process)
    // leaves the files it wrote but no commit of them. The next update, which writes the same
    // change, must write over them.
    let (tmp, home) = demo_copy();
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    agree(&home, &with, &without);
    let before = tmp.path().join("before");
    copy_dir(&cache, &before);
    let postings = |dir: &Path| {
        use agent_mux_sessions::index::{postings, store};
        postings::path_in(dir, store::FORMAT)
    };
    let names = |dir: &Path| -> BTreeSet<String> {
        std::fs::read_dir(postings(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };

    // The update whose commit is cut off: a grown session replaces its document.
    let (_, existing, sid) = shop_session(&home);
    append_message(&existing, &sid, "cut-1", "a zebrafish in the cut update");
    assert_eq!(agree(&home, &with, &without)[0], std::slice::from_ref(&sid));
    let written: Vec<String> = names(&cache).difference(&names(&before)).cloned().collect();
    assert!(
        written.iter().any(|n| n.ends_with(".del")),
        "the update deleted the grown session's old document: {written:?}"
    );

    // Its files left beside the last commit, listed (as tantivy lists a file before it writes
    // it) among the files it manages.
    let after = tmp.path().join("after");
    copy_dir(&cache, &after);
    std::fs::remove_dir_all(&cache).unwrap();
    copy_dir(&before, &cache);
    let managed = postings(&cache).join(".managed.json");
    let mut listed: Vec<String> =
        serde_json::from_slice(&std::fs::read(&managed).unwrap()).unwrap();
    for n in &written {
        std::fs::copy(postings(&after).join(n), postings(&cache).join(n)).unwrap();
        listed.push(n.clone());
    }
    std::fs::write(&managed, serde_json::to_vec(&listed).unwrap()).unwrap();

    // The next process writes the change again.
    let env = Env::with_home(&home);
    let next = indexed(&cache);
    let status = next
        .index_update(env.clone(), false)
        .expect("the index is written");
    assert_eq!((status.stale, status.sessions), (0, 27));
    assert_eq!(agree(&home, &next, &without)[0], [sid]);
    same_as_rebuilt(&home, &cache);
}

/// The postings' segments: id and documents.
fn segments(cache: &Path) -> BTreeSet<(String, u32)> {
    use agent_mux_sessions::index::{postings, store};
    let p = postings::Postings::open(&postings::path_in(cache, store::FORMAT)).unwrap();
    let metas = p.index.searchable_segment_metas().unwrap();
    metas
        .iter()
        .map(|m| (m.id().uuid_string(), m.max_doc()))
        .collect()
}

/// Updates add small segments and merge those among themselves, never into the build's large
/// ones (rewriting them would cost seconds for a message appended).
#[test]
fn updates_leave_the_builds_large_segments_as_they_are() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home_of(&tmp.path().join("home"), 900, 13, "claude");
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    let mut env = Env::with_home(&home);
    // The build commits after every batch of sources, a segment or more each; then merges
    // them into one.
    env.set("AGENT_MUX_INDEX_CHECKPOINT_MS", "0");
    let q = json!({"text": "zebrafish", "limit": 1000});
    assert!(search(&with, &env, q.clone()).is_empty());
    assert_eq!(segments(&cache).len(), 1, "the build's segments merged");
    // Larger than an update merges (200 documents).
    let large: BTreeSet<_> = segments(&cache)
        .into_iter()
        .filter(|s| s.1 > 200)
        .map(|s| s.0)
        .collect();
    assert!(!large.is_empty());
    let files = jsonl_files(&home);
    for (i, (path, _)) in files.iter().take(12).enumerate() {
        let sid = path.file_stem().unwrap().to_str().unwrap();
        append_message(path, sid, &format!("z{i}"), "a zebrafish");
        assert_eq!(
            search(&with, &env, q.clone()),
            search(&without, &env, q.clone())
        );
    }
    let now: BTreeSet<_> = segments(&cache).into_iter().map(|s| s.0).collect();
    assert!(large.is_subset(&now), "a build's large segment was merged");
    // Twelve updates, twelve small segments, merged as they come.
    assert!(now.len() - large.len() < 12, "{now:?}");
    assert_eq!(search(&with, &env, q).len(), 12);
    same_as_rebuilt(&home, &cache);
}

const OPENCODE_DB: &str = ".local/share/opencode/opencode.db";
const OPENCLAW_DB: &str = ".openclaw/agents/main/agent/openclaw-agent.sqlite";

/// Run `sql` on a database of the home (as the agent would write it), with `?1` bound to `arg`.
fn write_db(home: &Path, db: &str, sql: &str, arg: &str) {
    let c = rusqlite::Connection::open(home.join(db)).unwrap();
    for statement in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        if statement.contains("?1") {
            c.execute(statement, [arg]).unwrap();
        } else {
            c.execute(statement, []).unwrap();
        }
    }
}

/// The session ids of a database of the home, in id order.
fn db_sessions(home: &Path, db: &str, sql: &str) -> Vec<String> {
    let c = rusqlite::Connection::open(home.join(db)).unwrap();
    let mut st = c.prepare(sql).unwrap();
    let ids = st.query_map([], |r| r.get(0)).unwrap();
    ids.map(Result::unwrap).collect()
}

/// An OpenClaw user message event after the session's last event, saying `text`.
fn openclaw_event(home: &Path, sid: &str, text: &str) {
    let c = rusqlite::Connection::open(home.join(OPENCLAW_DB)).unwrap();
    let (seq, last): (i64, String) = c
        .query_row(
            "SELECT seq, event_json FROM transcript_events WHERE session_id = ?1
             AND event_json IS NOT NULL ORDER BY seq DESC LIMIT 1",
            [sid],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let parent = serde_json::from_str::<Value>(&last).unwrap()["id"].clone();
    let event = json!({
        "type": "message", "id": format!("e{seq}x"), "parentId": parent,
        "timestamp": "2026-10-08T10:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1791540000000u64}
    })
    .to_string();
    c.execute(
        "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes)
         VALUES (?1, ?2, ?3, 1791540000000, ?4)",
        rusqlite::params![sid, seq + 1000, event, event.len() as i64],
    )
    .unwrap();
}

/// A change an agent makes to its database, and a session that query number `finds.0` of
/// `agree_on_databases` must find after it.
struct Change<'a> {
    what: &'a str,
    apply: Box<dyn Fn() + 'a>,
    finds: Option<(usize, String)>,
}

/// Index and scan agree on the database agents' searches, listings and costs.
fn agree_on_databases(home: &Path, with: &Client, without: &Client) -> Vec<Vec<String>> {
    let env = Env::with_home(home);
    let mut hits = Vec::new();
    for q in ["zebrafish", "okapi", "kubernetes", "test"] {
        for agent in [Value::Null, json!("opencode"), json!("openclaw")] {
            let q = json!({"text": q, "agent": agent, "limit": 1000});
            let want = search(without, &env, q.clone());
            assert_eq!(search(with, &env, q.clone()), want, "{q}");
            if agent.is_null() {
                hits.push(want.iter().map(|s| s.session_id.clone()).collect());
            }
        }
    }
    let o = list_options(&json!({"limit": 1000})).unwrap();
    for a in ["opencode", "openclaw"] {
        let want = without.list(env.clone(), a, &o).unwrap();
        assert!(!want.is_empty());
        assert_eq!(with.list(env.clone(), a, &o).unwrap(), want, "{a}");
    }
    let o = cost_options(&json!({"groupBy": "model"})).unwrap();
    assert_eq!(
        with.total_cost(env.clone(), &o).unwrap(),
        without.total_cost(env, &o).unwrap()
    );
    hits
}

#[test]
fn sessions_of_a_database_that_change_are_seen_and_stored_as_a_fresh_build_stores_them() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("home"), 60, 12);
    let cache = tmp.path().join("cache");
    let (with, without) = (indexed(&cache), scanning());
    let oc = db_sessions(&home, OPENCODE_DB, "SELECT id FROM session ORDER BY id");
    let ow = db_sessions(
        &home,
        OPENCLAW_DB,
        "SELECT session_id FROM session_windows ORDER BY session_id",
    );
    assert!(oc.len() >= 4 && ow.len() >= 4, "{} {}", oc.len(), ow.len());
    assert_eq!(
        common::assert_fingerprints_follow_reads(&home, "opencode"),
        oc.len()
    );
    assert_eq!(
        common::assert_fingerprints_follow_reads(&home, "openclaw"),
        ow.len()
    );
    assert!(agree_on_databases(&home, &with, &without)[0].is_empty());
    let changes = [
        Change {
            what: "a part added to an OpenCode message",
            apply: Box::new(|| {
                write_db(
                    &home,
                    OPENCODE_DB,
                    "INSERT INTO part SELECT 'prt_zz1', id, session_id, time_created, time_updated,
                     '{\"type\":\"text\",\"text\":\"a zebrafish tank\"}' FROM message
                     WHERE session_id = ?1 ORDER BY time_created DESC LIMIT 1",
                    &oc[0],
                )
            }),
            finds: Some((0, oc[0].clone())),
        },
        Change {
            what: "an OpenCode title",
            apply: Box::new(|| {
                write_db(
                    &home,
                    OPENCODE_DB,
                    "UPDATE session SET title = 'okapi notes' WHERE id = ?1",
                    &oc[1],
                )
            }),
            finds: Some((1, oc[1].clone())),
        },
        Change {
            what: "an OpenCode message's cost",
            apply: Box::new(|| {
                write_db(
                    &home,
                    OPENCODE_DB,
                    "UPDATE message SET data = json_set(data, '$.cost', 12.5)
                     WHERE session_id = ?1 AND json_extract(data, '$.role') = 'assistant'",
                    &oc[2],
                )
            }),
            finds: None,
        },
        Change {
            what: "an OpenCode session deleted",
            apply: Box::new(|| {
                write_db(
                    &home,
                    OPENCODE_DB,
                    "DELETE FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = ?1);
                     DELETE FROM message WHERE session_id = ?1; DELETE FROM session WHERE id = ?1",
                    &oc[3],
                )
            }),
            finds: None,
        },
        Change {
            what: "an OpenCode session added",
            apply: Box::new(|| {
                write_db(
                    &home,
                    OPENCODE_DB,
                    "CREATE TABLE copy AS SELECT * FROM session WHERE id = ?1;
                     UPDATE copy SET id = 'ses_zzz', title = 'zebrafish again';
                     INSERT INTO session SELECT * FROM copy; DROP TABLE copy",
                    &oc[0],
                )
            }),
            finds: Some((0, "ses_zzz".to_string())),
        },
        Change {
            what: "a row no read uses (an OpenCode project)",
            apply: Box::new(|| {
                write_db(
                    &home,
                    OPENCODE_DB,
                    "UPDATE project SET name = ?1",
                    "renamed",
                )
            }),
            finds: None,
        },
        Change {
            what: "an OpenClaw event",
            apply: Box::new(|| openclaw_event(&home, &ow[0], "a zebrafish in the chat")),
            finds: Some((0, ow[0].clone())),
        },
        Change {
            what: "an OpenClaw title",
            apply: Box::new(|| {
                write_db(
                    &home,
                    OPENCLAW_DB,
                    "UPDATE session_windows SET display_name = 'okapi chat' WHERE session_id = ?1;
                     UPDATE session_nodes SET display_name = 'okapi chat'
                     WHERE current_session_id = ?1",
                    &ow[1],
                )
            }),
            finds: Some((1, ow[1].clone())),
        },
        Change {
            what: "an OpenClaw session deleted",
            apply: Box::new(|| {
                write_db(
                    &home,
                    OPENCLAW_DB,
                    "DELETE FROM transcript_events WHERE session_id = ?1;
                     DELETE FROM session_windows WHERE session_id = ?1",
                    &ow[2],
                )
            }),
            finds: None,
        },
    ];
    for c in &changes {
        (c.apply)();
        let hits = agree_on_databases(&home, &with, &without);
        if let Some((query, sid)) = &c.finds {
            assert!(hits[*query].contains(sid), "{}: {hits:?}", c.what);
        }
        same_as_rebuilt(&home, &cache);
        // The listing an index kept up to date holds is the one it would build afresh.
        let env = Env::with_home(&home);
        let o = list_options(&json!({"limit": 1000})).unwrap();
        let fresh = tempfile::tempdir().unwrap();
        for a in ["opencode", "openclaw"] {
            assert_eq!(
                with.list(env.clone(), a, &o).unwrap(),
                indexed(fresh.path()).list(env.clone(), a, &o).unwrap(),
                "{}: {a}",
                c.what
            );
        }
    }
}

/// An agent that records what the index asks it to read.
struct Recording {
    inner: &'static dyn agent_mux_sessions::agents::Agent,
    reads: std::sync::Mutex<Vec<String>>,
}

impl Recording {
    fn new(name: &str) -> Recording {
        Recording {
            inner: agent_mux_sessions::agents::find(name).unwrap(),
            reads: Default::default(),
        }
    }

    fn note(&self, what: String) {
        self.reads.lock().unwrap().push(what);
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.reads.lock().unwrap())
    }
}

mod recording {
    use super::Recording;
    use agent_mux_sessions::agents::{Agent, Fingerprint, ManySessions, Mode, Source};
    use agent_mux_sessions::context::Context;
    use agent_mux_sessions::error::Result;
    use agent_mux_sessions::model::{Session, SessionSummary};

    impl Agent for Recording {
        fn name(&self) -> &'static str {
            self.inner.name()
        }
        fn sources(&self, ctx: &Context) -> Vec<Source> {
            self.inner.sources(ctx)
        }
        fn summaries(&self, ctx: &Context, source: &Source) -> Result<Vec<SessionSummary>> {
            self.note("every summary".into());
            self.inner.summaries(ctx, source)
        }
        fn load(&self, ctx: &Context, id: &str, mode: Mode) -> Result<Session> {
            self.inner.load(ctx, id, mode)
        }
        fn load_source(&self, ctx: &Context, source: &Source) -> Result<Vec<Session>> {
            self.note("every session".into());
            self.inner.load_source(ctx, source)
        }
        fn many_sessions(&self) -> Option<&dyn ManySessions> {
            Some(self)
        }
    }

    impl ManySessions for Recording {
        fn fingerprints(
            &self,
            ctx: &Context,
            source: &Source,
        ) -> Option<Result<Vec<(String, Fingerprint)>>> {
            self.inner.many_sessions()?.fingerprints(ctx, source)
        }
        fn summaries_of(
            &self,
            ctx: &Context,
            source: &Source,
            ids: &[&str],
        ) -> Result<Vec<SessionSummary>> {
            self.note(format!("summaries of {ids:?}"));
            self.inner
                .many_sessions()
                .unwrap()
                .summaries_of(ctx, source, ids)
        }
        fn sessions_of(
            &self,
            ctx: &Context,
            source: &Source,
            ids: &[&str],
        ) -> Result<Vec<Session>> {
            self.note(format!("sessions of {ids:?}"));
            self.inner
                .many_sessions()
                .unwrap()
                .sessions_of(ctx, source, ids)
        }
    }
}

#[test]
fn of_a_changed_database_only_the_sessions_that_changed_are_read() {
    use agent_mux_sessions::index::sync::{sync, Part};
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("home"), 30, 13);
    let cache = tmp.path().join("cache");
    let conn = agent_mux_sessions::index::store::open(&cache).unwrap();
    let ctx = agent_mux_sessions::context::Context::with_env(Env::with_home(&home));
    for (agent, db, ids, change) in [
        (
            "opencode",
            OPENCODE_DB,
            "SELECT id FROM session ORDER BY id",
            "UPDATE part SET data = json_set(data, '$.text', 'zebrafish') WHERE message_id =
             (SELECT id FROM message WHERE session_id = ?1 ORDER BY time_created LIMIT 1)",
        ),
        (
            "openclaw",
            OPENCLAW_DB,
            "SELECT session_id FROM session_windows ORDER BY session_id",
            "UPDATE session_windows SET display_name = 'zebrafish' WHERE session_id = ?1",
        ),
    ] {
        let a = Recording::new(agent);
        let sid = db_sessions(&home, db, ids)[1].clone();
        for part in [Part::Summaries, Part::Documents] {
            let whole = match part {
                Part::Summaries => "every summary",
                Part::Documents => "every session",
            };
            // New to the index: read whole, once.
            sync(&conn, &cache, &ctx, &a, part).unwrap();
            assert_eq!(a.take(), [whole], "{agent}");
            sync(&conn, &cache, &ctx, &a, part).unwrap();
            assert!(a.take().is_empty(), "{agent}");
        }
        write_db(&home, db, change, &sid);
        for (part, of) in [
            (Part::Summaries, "summaries of"),
            (Part::Documents, "sessions of"),
        ] {
            sync(&conn, &cache, &ctx, &a, part).unwrap();
            assert_eq!(a.take(), [format!("{of} [{sid:?}]")], "{agent}");
        }
        // A change to no session's rows: the store is looked at again, no session is read.
        write_db(
            &home,
            db,
            "CREATE TABLE unrelated(x); DROP TABLE unrelated",
            "",
        );
        for (part, of) in [
            (Part::Summaries, "summaries of"),
            (Part::Documents, "sessions of"),
        ] {
            sync(&conn, &cache, &ctx, &a, part).unwrap();
            assert_eq!(a.take(), [format!("{of} []")], "{agent}");
        }
    }
}
