//! The files sessions touched. On the real captures (`../shared/fixtures/real`), each capture's
//! expected touches are listed here as read by hand from its transcript (the tool calls, their
//! inputs and the session's cwd), not from this code's output; the demo home's likewise. The
//! index and a read of the stores give the same touches on a generated home.
use crate::common;

use std::collections::HashSet;
use std::path::Path;

use agent_mux_sessions::agents::{self, Source};
use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::model::FileAction::{self, *};
use agent_mux_sessions::options::{SearchQuery, TouchedOptions};
use agent_mux_sessions::storage::touched::SessionTouches;
use agent_mux_sessions::{Client, ClientOptions, Env, ErrorCode, Session};

/// One expected touch: the path, the action, the id of the call that made it (its message must
/// hold that call; `""` where the agent records no call ids), and the lines added and removed.
type Expected = (
    &'static str,
    FileAction,
    &'static str,
    Option<u64>,
    Option<u64>,
);

/// One touch as a capture's expected list names it.
type Seen = (String, FileAction, String, Option<u64>, Option<u64>);

/// The touches of every session of one capture file, as `(path, action, call id, added,
/// removed)`, each checked against the message it names.
fn touches_of(agent: &str, path: &Path) -> Vec<Seen> {
    let a = agents::find(agent).unwrap();
    let home = tempfile::tempdir().unwrap();
    let ctx = common::ctx(home.path());
    let src = Source::new(path.to_path_buf(), &[]).unwrap();
    let sessions = a.load_source(&ctx, &src).unwrap();
    let mut out = Vec::new();
    for s in &sessions {
        let t = SessionTouches::of(a.file_tools(), s);
        for touch in &t.touches {
            let id = call_of(s, touch.message_index as usize, &touch.path);
            out.push((
                touch.path.clone(),
                touch.action,
                id,
                touch.added,
                touch.removed,
            ));
        }
    }
    out
}

/// The id of the call in message `i` (which must hold one) that could have named `path`.
fn call_of(s: &Session, i: usize, path: &str) -> String {
    let m = &s.messages[i];
    assert!(
        !m.tool_calls.is_empty(),
        "message {i} holds no call for {path}"
    );
    let last = path.rsplit('/').next().unwrap();
    let names = |c: &&agent_mux_sessions::model::ToolCall| {
        c.input.to_string().replace("\\\\", "/").contains(last)
    };
    // The call whose input names the file, else (a command's directory) the one that runs a
    // command.
    let call = (m.tool_calls.iter().find(names))
        .or_else(|| {
            m.tool_calls
                .iter()
                .find(|c| c.input.to_string().contains("command"))
        })
        .unwrap_or(&m.tool_calls[0]);
    call.tool_call_id.clone()
}

fn check(agent: &str, file: &str, expected: &[Expected]) {
    let path = common::real_fixtures().join(agent).join(file);
    let got = touches_of(agent, &path);
    let want: Vec<_> = expected
        .iter()
        .map(|(p, a, id, add, rm)| (p.to_string(), *a, id.to_string(), *add, *rm))
        .collect();
    assert_eq!(got, want, "{agent}/{file}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn every_real_capture_gives_the_files_its_tool_calls_touched() {
    // Claude: a Bash call in /tmp (a lowercase `bash` of a sidechain line and a trimmed tool
    // name are not Claude Code's tools); an Edit writing 14 lines into an empty string, then a
    // `python` run (which names no file by the rule), both in /tmp; a real Bash on Windows.
    check(
        "claude",
        "agent-sessions-stage0-small.jsonl",
        &[("/tmp", Command, "toolu_stage0_1", None, None)],
    );
    check(
        "claude",
        "claude-code-log-representative_messages.jsonl",
        &[
            (
                "/tmp/decorator_example.py",
                Edit,
                "tool_001",
                Some(14),
                Some(0),
            ),
            ("/tmp", Command, "tool_002", None, None),
        ],
    );
    check(
        "claude",
        "margin-session-basic-2.1.233.jsonl",
        &[(
            "C:/Users/<user>/CLEANROOM",
            Command,
            "toolu_01CAFZGHQyrx8WTjhhDvCQMm",
            None,
            None,
        )],
    );
    check(
        "claude",
        "agent-sessions-subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
        &[],
    );
    // Codex: code mode's `exec` calls `tools.shell_command` with a workdir the capture redacted
    // to a relative `<home>\…`, placed under the session's cwd; the other two ran no tool.
    check(
        "codex",
        "margin-session-basic-0.146.0.jsonl",
        &[(
            "C:/Users/<user>/CLEANROOM/work/fixture-gen/<home>/CLEANROOM/work/fixture-gen",
            Command,
            "call_CEDrC607Pk4hXucXu6nZPFbF",
            None,
            None,
        )],
    );
    check("codex", "margin-session-reasoning.jsonl", &[]);
    check("codex", "agent-sessions-codex_053_rate_limit.jsonl", &[]);
    // Gemini: `ls -F` in a session whose file records no directory; `printf` and `ls
    // /non-existent-directory`, each with its `cwd` argument, /tmp.
    check("gemini", "agent-sessions-jsonl_v040.jsonl", &[]);
    check(
        "gemini",
        "agent-sessions-large.json",
        &[
            ("/tmp", Command, "run_shell_command-1", None, None),
            ("/tmp", Command, "run_shell_command-2", None, None),
            (
                "/non-existent-directory",
                Command,
                "run_shell_command-2",
                None,
                None,
            ),
        ],
    );
    check("gemini", "agent-sessions-small.json", &[]);
    // Copilot: `ls` in /tmp/repo and /tmp/project; the large capture records no cwd.
    check(
        "copilot",
        "agent-sessions-stage0-small.jsonl",
        &[("/tmp/repo", Command, "call-1", None, None)],
    );
    check("copilot", "agent-sessions-stage0-large.jsonl", &[]);
    check(
        "copilot",
        "agent-sessions-subdir_v1/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl",
        &[("/tmp/project", Command, "call_1", None, None)],
    );
    // Cursor's transcripts record no cwd and no call ids: only `ls -la /tmp` names a place.
    check(
        "cursor",
        "agent-sessions-agent-transcript-test-session.jsonl",
        &[("/tmp", Command, "", None, None)],
    );
    check(
        "cursor",
        "agent-sessions-agent-transcript-subagent-session.jsonl",
        &[("/tmp", Command, "", None, None)],
    );
    check(
        "cursor",
        "agent-sessions-stage0-small-with-turn_ended.jsonl",
        &[],
    );
    // Pi: reads, absolute and relative to /Users/badlogic/workspaces/pi-mono, and a `find`.
    check(
        "pi",
        "pi-mono-before-compaction-v1-head3.jsonl",
        &[
            (
                "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/main.ts",
                Read,
                "toolu_012yuiPP1VAfh196GXaAmT8D",
                None,
                None,
            ),
            (
                "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/tui/tui-renderer.ts",
                Read,
                "toolu_018AGG1WjGWVfUR2Sibzkh2Q",
                None,
                None,
            ),
        ],
    );
    let pi = "/Users/badlogic/workspaces/pi-mono/packages/coding-agent";
    let large: Vec<(String, FileAction, &str)> = vec![
        (
            format!("{pi}/docs/theme.md"),
            Read,
            "toolu_017qEkVzzPb7b7o4FkgJLF23",
        ),
        (
            format!("{pi}/src/theme/theme.ts"),
            Read,
            "toolu_01FnVNKzWWm2s2SFJmJttiWh",
        ),
        (
            "/Users/badlogic/workspaces/pi-mono".into(),
            Command,
            "toolu_016aKHTkjrTJcMds3wsEou2R",
        ),
        (
            format!("{pi}/src/tui/oauth-selector.ts"),
            Read,
            "toolu_01G6wBLUY7g5eyk4TJEcTUiT",
        ),
        (
            format!("{pi}/src/tui/theme-selector.ts"),
            Read,
            "toolu_012U6SQ4AGg5JrNK6s715ATw",
        ),
        (
            format!("{pi}/src/tui/model-selector.ts"),
            Read,
            "toolu_01TSY14a4g85DGSpjo9ao8Eu",
        ),
        (
            format!("{pi}/src/tui/user-message-selector.ts"),
            Read,
            "toolu_01Fo2ghr79kbj5bRxyVyFoQQ",
        ),
    ];
    let got = touches_of(
        "pi",
        &common::real_fixtures().join("pi/pi-mono-large-session-v1-head12.jsonl"),
    );
    let got: Vec<(String, FileAction, &str)> = got
        .iter()
        .map(|t| (t.0.clone(), t.1, t.2.as_str()))
        .collect();
    assert_eq!(got, large);
    check("pi", "agent-sessions-pi-0.74-capture-small.jsonl", &[]);
    // OpenClaw: `git status` run in /tmp/large, then an edit of notes.md given whole (no lines
    // to count); `ls` in /tmp/repo; a real `write` of two lines; an unknown diagnostic tool.
    check(
        "openclaw",
        "agent-sessions-stage0-large.jsonl",
        &[
            ("/tmp/large", Command, "tc-status", None, None),
            ("/tmp/large/notes.md", Edit, "tc-write", None, None),
        ],
    );
    check(
        "openclaw",
        "agent-sessions-stage0-small.jsonl",
        &[("/tmp/repo", Command, "tc1", None, None)],
    );
    check(
        "openclaw",
        "toolpath-convo-EXCERPT.jsonl",
        &[(
            "/home/node/.openclaw/workspace/notes.md",
            Write,
            "toolu_01Dya2A2bLj6AoZye3TYXEns",
            Some(2),
            None,
        )],
    );
    check("openclaw", "agent-sessions-stage0-schema_drift.jsonl", &[]);
}

fn opencode_client(dir: &Path) -> Client {
    let mut o = ClientOptions::default();
    o.session_dirs.insert("opencode".into(), dir.to_path_buf());
    Client::new(o)
}

fn nobody() -> Env {
    Env::with_home(Path::new("/nonexistent-home"))
}

fn every(agent: &str) -> TouchedOptions {
    TouchedOptions {
        agent: Some(agent.into()),
        limit: 1000,
        ..TouchedOptions::default()
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn opencode_storage_trees_give_their_bash_calls() {
    let real = common::real_fixtures().join("opencode");
    let paths = |dir: &str| {
        let c = opencode_client(&real.join(dir));
        let v = c.touched(nobody(), "**", &every("opencode")).unwrap();
        let mut out: Vec<(String, String, FileAction)> = v
            .iter()
            .flat_map(|s| {
                s.touches
                    .iter()
                    .map(|t| (s.session_id.clone(), t.touch.path.clone(), t.touch.action))
            })
            .collect();
        out.sort();
        out
    };
    // `ls` in /tmp/repo; `ls /non-existent-directory` in /tmp/large; `cat README.md` in /tmp/drift.
    assert_eq!(
        paths("agent-sessions-storage_v2"),
        [
            (
                "s_stage0_large".into(),
                "/non-existent-directory".into(),
                Command
            ),
            ("s_stage0_large".into(), "/tmp/large".into(), Command),
            ("s_stage0_small".into(), "/tmp/repo".into(), Command),
        ]
    );
    assert_eq!(
        paths("agent-sessions-storage_legacy"),
        [
            ("s_stage0_drift".into(), "/tmp/drift".into(), Command),
            (
                "s_stage0_drift".into(),
                "/tmp/drift/README.md".into(),
                Command
            ),
        ]
    );
}

/// The demo home's shell calls, read from its files: each session runs its topic's command in its
/// cwd, and two of the commands name a file: `cat src/styles/dashboard.css` (Gemini in
/// /home/dev/src/infra, OpenCode in /home/dev/src/docs, Hermes in /home/dev/src/api) and `cat
/// notes/hiking.md` (Gemini and Pi in /home/dev/src/agent-mux, Hermes in /home/dev/src/infra).
#[test]
fn the_demo_home_gives_each_command_its_directory_and_the_files_cat_names() {
    let home = common::demo_home();
    let env = Env::with_home(&home);
    let c = Client::new(ClientOptions::default());
    let opts = TouchedOptions {
        limit: 1000,
        ..TouchedOptions::default()
    };
    let all = c.touched(env.clone(), "**", &opts).unwrap();
    // Every touch but the commands' directories.
    let files: HashSet<(String, String)> = all
        .iter()
        .flat_map(|s| {
            (s.touches.iter())
                .filter(|t| Some(&t.touch.path) != s.cwd.as_ref())
                .map(|t| (s.agent.clone(), t.touch.path.clone()))
        })
        .collect();
    let expected: HashSet<(String, String)> = [
        ("gemini", "/home/dev/src/infra/src/styles/dashboard.css"),
        ("opencode", "/home/dev/src/docs/src/styles/dashboard.css"),
        ("hermes", "/home/dev/src/api/src/styles/dashboard.css"),
        ("gemini", "/home/dev/src/agent-mux/notes/hiking.md"),
        ("pi", "/home/dev/src/agent-mux/notes/hiking.md"),
        ("hermes", "/home/dev/src/infra/notes/hiking.md"),
    ]
    .iter()
    .map(|(a, p)| (a.to_string(), p.to_string()))
    .collect();
    assert_eq!(files, expected);
    // Every session of the ten agents ran its command in its own directory (Cursor's store
    // records it, Hermes' database too).
    let agents: HashSet<&str> = all.iter().map(|s| s.agent.as_str()).collect();
    assert_eq!(agents.len(), 10, "{agents:?}");
    for s in &all {
        let cwd = s.cwd.clone().unwrap();
        assert!(
            s.touches
                .iter()
                .any(|t| t.touch.path == cwd && t.touch.action == Command),
            "{}",
            s.unified_id
        );
        assert!(
            s.touches.iter().all(|t| t.request.is_some()),
            "{}",
            s.unified_id
        );
    }
    // One file, as a person asks for it, from the directory it sits in.
    let one = c
        .touched(
            env.clone().in_dir("/home/dev/src/docs"),
            "src/styles/dashboard.css",
            &opts,
        )
        .unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(
        one[0].touches[0].request.as_deref(),
        Some("The dashboard cards overflow on mobile, make the css grid responsive.")
    );
    // No session touched it: an empty list. A glob that does not parse: VALIDATION_ERROR.
    assert!(c
        .touched(env.clone(), "/nowhere/at/all.rs", &opts)
        .unwrap()
        .is_empty());
    let bad = c.touched(env.clone(), "src/[oops", &opts).unwrap_err();
    assert_eq!(bad.code, ErrorCode::ValidationError);
    // `file:` in a search: alone, the sessions that touched it; with a word, both.
    let q = |text: &str| c.search(env.clone(), &SearchQuery::new(text)).unwrap();
    let hits = q("file:/home/dev/src/docs/src/styles/dashboard.css");
    assert_eq!(
        hits.iter()
            .map(|h| h.unified_id.as_str())
            .collect::<Vec<_>>(),
        [one[0].unified_id.as_str()]
    );
    assert_eq!(
        q("file:/home/dev/src/docs/src/styles/dashboard.css grid").len(),
        1
    );
    assert!(q("file:/home/dev/src/docs/src/styles/dashboard.css kubernetes").is_empty());
    // A glob of every session's directory, and a word only some sessions hold.
    let kube = q("file:/home/dev/src/** kubernetes");
    assert!(!kube.is_empty());
    assert_eq!(kube.len(), q("kubernetes").len());
}

/// Every touch of every session under `home`, through the index in `cache` or (None) the stores.
fn everything(
    home: &Path,
    cache: Option<&Path>,
    pattern: &str,
) -> Vec<agent_mux_sessions::touched::TouchedSession> {
    let c = Client::new(ClientOptions {
        cache: match cache {
            Some(dir) => CacheSetting::Dir(dir.to_path_buf()),
            None => CacheSetting::Off,
        },
        ..Default::default()
    });
    let opts = TouchedOptions {
        limit: 100_000,
        ..TouchedOptions::default()
    };
    c.touched(Env::with_home(home), pattern, &opts).unwrap()
}

#[test]
fn the_index_and_the_stores_give_the_same_touches() {
    let cache = tempfile::tempdir().unwrap();
    let home = common::demo_home();
    for pattern in [
        "**",
        "/home/dev/src/docs/src/styles/dashboard.css",
        "/home/dev/src/*/notes/*.md",
    ] {
        let read = everything(&home, None, pattern);
        assert!(!read.is_empty(), "{pattern}");
        // Built by the first call, then answered from it.
        assert_eq!(
            everything(&home, Some(cache.path()), pattern),
            read,
            "{pattern}"
        );
        assert_eq!(
            everything(&home, Some(cache.path()), pattern),
            read,
            "{pattern}"
        );
    }
    let files = std::fs::read_dir(cache.path()).unwrap().count();
    assert!(files > 0, "the index was written");
}

fn client_in(cache: Option<&Path>) -> Client {
    Client::new(ClientOptions {
        cache: match cache {
            Some(dir) => CacheSetting::Dir(dir.to_path_buf()),
            None => CacheSetting::Off,
        },
        ..Default::default()
    })
}

/// Hermes is searched by its own engine, yet its sessions' touches are in the index: once it is
/// built, `touched` answers without reading Hermes' database. Here the database's bytes are
/// replaced by zeros of the same size, in the same file, at the same time (the stamps the index
/// compares hold): read, it holds no session at all.
#[test]
fn hermes_touches_are_answered_from_the_index_without_reading_its_database() {
    let home = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    common::copy_dir(
        &common::demo_home().join(".hermes"),
        &home.path().join(".hermes"),
    );
    let env = Env::with_home(home.path());
    let opts = every("hermes");
    let built = client_in(Some(cache.path()))
        .touched(env.clone(), "**", &opts)
        .unwrap();
    let paths: HashSet<&str> = (built.iter())
        .flat_map(|s| s.touches.iter().map(|t| t.touch.path.as_str()))
        .collect();
    assert!(
        paths.contains("/home/dev/src/api/src/styles/dashboard.css"),
        "{paths:?}"
    );
    assert_eq!(
        built,
        client_in(None).touched(env.clone(), "**", &opts).unwrap()
    );

    let db = home.path().join(".hermes/state.db");
    let meta = std::fs::metadata(&db).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
    std::io::Write::write_all(&mut &f, &vec![0u8; meta.len() as usize]).unwrap();
    f.set_modified(meta.modified().unwrap()).unwrap();
    drop(f);
    // The store itself now gives nothing.
    assert!(client_in(None)
        .touched(env.clone(), "**", &opts)
        .unwrap()
        .is_empty());
    // A new client on the same index, as a new process: the same sessions and touches.
    let warm = client_in(Some(cache.path()));
    assert_eq!(warm.touched(env.clone(), "**", &opts).unwrap(), built);
    let one = warm
        .touched(env, "/home/dev/src/api/src/styles/dashboard.css", &opts)
        .unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].agent, "hermes");
}

/// `project` keeps the sessions of one project, named by its directory or its directory's
/// name, from the index and from the stores alike (the demo home's directories do not exist
/// here: each session's project is its cwd).
#[test]
fn touched_keeps_the_sessions_of_the_project_asked_for() {
    let cache = tempfile::tempdir().unwrap();
    let env = Env::with_home(&common::demo_home());
    for c in [client_in(None), client_in(Some(cache.path()))] {
        let agents = |project: Option<&str>| {
            let opts = TouchedOptions {
                project: project.and_then(agent_mux_sessions::read::project::Wanted::parse),
                limit: 1000,
                ..TouchedOptions::default()
            };
            let v = c.touched(env.clone(), "**/dashboard.css", &opts).unwrap();
            let mut a: Vec<String> = v.into_iter().map(|s| s.agent).collect();
            a.sort();
            a
        };
        assert_eq!(agents(None), ["gemini", "hermes", "opencode"]);
        assert_eq!(agents(Some("docs")), ["opencode"]);
        assert_eq!(agents(Some("/home/dev/src/api")), ["hermes"]);
        assert!(agents(Some("shop")).is_empty());
    }
}

/// A generated home of every agent, whose sessions edit files (scripts/gen_home.py
/// --file-edits). Python 3 is a stated prerequisite, so a generator that does not run fails.
fn generated_home(out: &Path, sessions: u32, seed: u32) -> std::path::PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let status = std::process::Command::new("python3")
        .arg(root.join("scripts/gen_home.py"))
        .args(["--out", out.to_str().unwrap()])
        .args([
            "--sessions",
            &sessions.to_string(),
            "--seed",
            &seed.to_string(),
        ])
        .args(["--scale", "1", "--file-edits"])
        .status()
        .expect("python3 runs scripts/gen_home.py (a prerequisite, see the README)");
    assert!(status.success(), "scripts/gen_home.py failed: {status}");
    out.to_path_buf()
}

/// `file:` with words: through the index only the documents of the sessions that touched a
/// matching file are scored as hits, against the statistics of every session as a scan ranks
/// them. The results (scores, snippets, order) are those a scan of the stores gives, with a
/// client that built the index in the call and with one answering from it, and fewer than the
/// words alone find.
#[test]
fn file_with_words_through_the_index_answers_as_the_stores_do() {
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("home"), 300, 5);
    let cache = tmp.path().join("cache");
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-28T12:00:00Z").unwrap();
    let env = Env::with_home(&home).at(now.with_timezone(&chrono::Utc));
    let (with, without) = (client_in(Some(&cache)), client_in(None));
    let opts = TouchedOptions {
        action: Some(Edit),
        limit: 100_000,
        ..TouchedOptions::default()
    };
    let edited = without.touched(env.clone(), "**", &opts).unwrap();
    let mut files: Vec<&str> = (edited.iter())
        .flat_map(|s| s.touches.iter().map(|t| t.touch.path.as_str()))
        .collect();
    files.sort_unstable();
    let first = files.first().expect("the generated sessions edit files");
    let dir = &first[..first.rfind('/').unwrap()];
    let ext = &first[first.rfind('.').unwrap() + 1..];
    let search = |c: &Client, text: &str| {
        let mut q = SearchQuery::new(text);
        q.limit = 1000;
        c.search(env.clone(), &q).unwrap()
    };
    let (mut compared, mut narrowed) = (0, 0);
    for round in 0..2 {
        for words in [
            "the",
            "error",
            "kubernetes",
            "docker compose",
            "\"docker compose\"",
            "test NOT kubernetes",
            "kube*",
        ] {
            let alone = search(&without, words).len();
            for text in [
                format!("file:{dir}/* {words}"),
                format!("file:**/*.{ext} {words}"),
                format!("file:{dir}/* file:**/*.{ext} {words}"),
            ] {
                let want = search(&without, &text);
                assert_eq!(search(&with, &text), want, "round {round}: {text}");
                assert!(want.len() <= alone, "{text}");
                compared += want.len();
                narrowed += (!want.is_empty() && want.len() < alone) as usize;
            }
        }
    }
    assert!(compared > 50, "{compared} results compared");
    assert!(narrowed > 4, "{narrowed} queries narrowed by their files");
}

/// `touched` cut (a limit, an action, a date) gives from the index what a read of the stores
/// gives: the index decodes only the sessions it returns, chosen as the stores' are.
#[test]
fn the_index_cuts_touched_as_the_stores_do() {
    let tmp = tempfile::tempdir().unwrap();
    let generated = generated_home(&tmp.path().join("home"), 200, 7);
    let since = chrono::DateTime::parse_from_rfc3339("2026-11-10T00:00:00Z")
        .unwrap()
        .to_utc();
    let mut compared = 0;
    for home in [common::demo_home(), generated] {
        let cache = tempfile::tempdir().unwrap();
        let env = Env::with_home(&home);
        let (with, without) = (client_in(Some(cache.path())), client_in(None));
        for pattern in ["**", "/home/dev/src/*", "**/*.css"] {
            let cuts = [
                (None, None, 1),
                (None, None, 3),
                (Some(Command), None, 2),
                (Some(Edit), None, 4),
                (None, Some(since), 2),
                (Some(Read), Some(since), 5),
            ];
            for (action, since, limit) in cuts {
                let opts = TouchedOptions {
                    action,
                    since,
                    limit,
                    ..TouchedOptions::default()
                };
                let want = without.touched(env.clone(), pattern, &opts).unwrap();
                assert!(want.len() <= limit);
                let got = with.touched(env.clone(), pattern, &opts).unwrap();
                assert_eq!(got, want, "{pattern} {opts:?}");
                compared += want.len();
            }
        }
    }
    assert!(compared > 40, "{compared} sessions compared");
}

/// The recap through the index (built by its first call, then answered from it) counts the files
/// edited exactly as a read of the stores does: the same files, edits, lines and sessions, for a
/// day, a week, a month and the whole of a generated home.
#[test]
fn the_recap_from_the_index_counts_the_files_as_the_stores_do() {
    use agent_mux_sessions::options::ListOptions;
    use agent_mux_sessions::recap::RecapOptions;
    let tmp = tempfile::tempdir().unwrap();
    let home = generated_home(&tmp.path().join("home"), 300, 9);
    let cache = tmp.path().join("cache");
    let env = Env::with_home(&home);
    let (with, without) = (client_in(Some(&cache)), client_in(None));
    let all = ListOptions {
        limit: 1,
        ..ListOptions::default()
    };
    let newest = without.list_all(env.clone(), &all).unwrap()[0].updated_at;
    // The files edited and the sessions of each period, as a read of this home's stores
    // (seed 9) gives them.
    for (days, files, sessions) in [(1, 1, 4), (7, 33, 37), (30, 159, 170), (400, 270, 300)] {
        let opts = RecapOptions {
            since: Some(newest - chrono::Duration::days(days)),
            sessions_per_file: Some(1000),
            ..RecapOptions::default()
        };
        let want = without.recap(env.clone(), &opts).unwrap();
        let edited: Vec<_> = (want.projects.iter()).flat_map(|p| &p.files).collect();
        assert_eq!(
            (edited.len(), want.session_count),
            (files, sessions),
            "{days} days"
        );
        assert!(edited.iter().all(|f| f.edits > 0 && !f.sessions.is_empty()));
        assert!(
            edited.iter().any(|f| f.added + f.removed > 0),
            "{days} days"
        );
        for round in 0..2 {
            let got = with.recap(env.clone(), &opts).unwrap();
            assert_eq!(got, want, "{days} days, round {round}");
        }
    }
}
