//! Projects, sub-agents and the recap. A project is the main working directory of the git
//! repository a session's cwd is in, found by reading `.git` (a directory; a file naming a gitdir
//! whose `commondir` leads to the main repository; a submodule's), so worktrees and
//! subdirectories are one project; it is stored in the index, so a session whose directory is
//! gone keeps it. Sub-agent sessions fold into the session that started them in lists; the
//! recap groups a period's sessions by project.
use crate::common;

use std::path::Path;

use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::options::{
    CostOptions, Filters, GroupBy, Grouping, ListOptions, Period, ReportOptions, SearchQuery,
};
use agent_mux_sessions::read::project::{self, Wanted};
use agent_mux_sessions::recap::RecapOptions;
use agent_mux_sessions::{Client, ClientOptions, Env, SessionSummary};
use common::*;
use serde_json::json;

const IN_ROOT: &str = "11111111-1111-4111-8111-000000000001";
const IN_SUB: &str = "11111111-1111-4111-8111-000000000002";
const IN_WORKTREE: &str = "11111111-1111-4111-8111-000000000003";
const OUTSIDE: &str = "11111111-1111-4111-8111-000000000004";
const IN_SUBMODULE: &str = "11111111-1111-4111-8111-000000000005";
const GONE: &str = "11111111-1111-4111-8111-000000000006";
const PARENT: &str = "019a0000-0000-7000-8000-0000000000a1";
const CHILD: &str = "019a0000-0000-7000-8000-0000000000a2";

/// The repositories: `code/app` (a `.git` directory, with a linked worktree at `code/app-wt`
/// and a submodule at `code/app/vendor/lib`), `code/gone` (deleted after indexing), and `loose`,
/// in no repository.
fn tree(root: &Path) {
    let app = root.join("code/app");
    write(&app, ".git/HEAD", "ref: refs/heads/main\n");
    write(&app, ".git/config", "[core]\n\tbare = false\n");
    write(&app, "src/lib.rs", "");
    // `git worktree add ../app-wt`: a `.git` file, and the worktree's gitdir names the main
    // repository's git directory in `commondir`.
    write(
        &app,
        ".git/worktrees/app-wt/HEAD",
        "ref: refs/heads/feature\n",
    );
    write(&app, ".git/worktrees/app-wt/commondir", "../..\n");
    let wt_gitdir = app.join(".git/worktrees/app-wt");
    write(
        root,
        "code/app-wt/.git",
        format!("gitdir: {}\n", wt_gitdir.display()),
    );
    // A submodule: `.git` names its gitdir under the superproject's `.git/modules/`.
    write(&app, "vendor/lib/.git", "gitdir: ../../.git/modules/lib\n");
    write(&app, ".git/modules/lib/HEAD", "ref: refs/heads/main\n");
    write(
        &app,
        ".git/modules/lib/config",
        "[core]\n\tworktree = ../../../vendor/lib\n",
    );
    write(root, "code/gone/.git/HEAD", "ref: refs/heads/main\n");
    std::fs::create_dir_all(root.join("code/gone/web")).unwrap();
    std::fs::create_dir_all(root.join("loose")).unwrap();
}

fn claude(h: &Path, sid: &str, cwd: &Path, day: &str, text: &str) {
    let line = json!({"type": "user", "uuid": format!("u-{sid}"), "parentUuid": null,
        "timestamp": format!("{day}T10:00:00.000Z"), "cwd": cwd, "sessionId": sid,
        "version": "2.1.197", "message": {"role": "user", "content": text}});
    let answer = json!({"type": "assistant", "uuid": format!("a-{sid}"), "parentUuid": format!("u-{sid}"),
        "timestamp": format!("{day}T10:01:00.000Z"), "cwd": cwd, "sessionId": sid, "version": "2.1.197",
        "requestId": format!("req-{sid}"),
        "message": {"id": format!("msg-{sid}"), "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "done"}],
            "usage": {"input_tokens": 1000, "output_tokens": 100}}});
    write(
        h,
        &format!(".claude/projects/-p/{sid}.jsonl"),
        format!("{line}\n{answer}\n"),
    );
}

/// A Codex thread in `cwd`; `spawned_by`: the thread that spawned it as a sub-agent.
fn codex(h: &Path, id: &str, cwd: &Path, spawned_by: Option<&str>, text: &str) {
    let source = match spawned_by {
        Some(p) => json!({"subagent": {"thread_spawn": {"parent_thread_id": p, "depth": 1}}}),
        None => json!("cli"),
    };
    let usage = |i: u64, o: u64| json!({"input_tokens": i, "cached_input_tokens": 0, "output_tokens": o, "reasoning_output_tokens": 0, "total_tokens": i + o});
    let lines = [
        json!({"timestamp": "2026-03-05T10:00:00.000Z", "type": "session_meta", "payload": {
            "id": id, "timestamp": "2026-03-05T10:00:00.000Z", "cwd": cwd,
            "originator": "codex_cli_rs", "cli_version": "0.169.0", "source": source}}),
        json!({"timestamp": "2026-03-05T10:00:00.100Z", "type": "turn_context", "payload": {"cwd": cwd, "model": "gpt-5"}}),
        json!({"timestamp": "2026-03-05T10:00:01.000Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}}),
        json!({"timestamp": "2026-03-05T10:00:02.000Z", "type": "event_msg", "payload": {"type": "token_count",
            "info": {"total_token_usage": usage(1000, 100), "last_token_usage": usage(1000, 100)}}}),
    ];
    let lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    write(
        h,
        &format!(".codex/sessions/2026/03/05/rollout-2026-03-05T10-00-00-{id}.jsonl"),
        lines.join("\n") + "\n",
    );
}

/// A home whose sessions ran in each place of `tree(root)`.
fn home(root: &Path) -> std::path::PathBuf {
    tree(root);
    let h = root.join("home");
    let app = root.join("code/app");
    claude(
        &h,
        IN_ROOT,
        &app,
        "2026-03-01",
        "tokenizer work at the root",
    );
    claude(
        &h,
        IN_SUB,
        &app.join("src"),
        "2026-03-02",
        "tokenizer work in src",
    );
    claude(
        &h,
        IN_WORKTREE,
        &root.join("code/app-wt"),
        "2026-03-03",
        "tokenizer work on a worktree",
    );
    claude(
        &h,
        OUTSIDE,
        &root.join("loose"),
        "2026-03-03",
        "tokenizer notes",
    );
    claude(
        &h,
        IN_SUBMODULE,
        &app.join("vendor/lib"),
        "2026-03-04",
        "tokenizer in the submodule",
    );
    claude(
        &h,
        GONE,
        &root.join("code/gone/web"),
        "2026-03-04",
        "tokenizer in a deleted repo",
    );
    codex(&h, PARENT, &app, None, "plan the parser");
    codex(&h, CHILD, &app, Some(PARENT), "scout the parser tests");
    h
}

fn indexed(cache: &Path) -> Client {
    Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.to_path_buf()),
        ..ClientOptions::default()
    })
}

fn scanning() -> Client {
    Client::new(ClientOptions {
        cache: CacheSetting::Off,
        ..ClientOptions::default()
    })
}

fn everything(client: &Client, h: &Path, filters: Filters, subagents: bool) -> Vec<SessionSummary> {
    let opts = ListOptions {
        filters,
        limit: 1000,
        subagents,
        ..ListOptions::default()
    };
    client.list_all(Env::with_home(h), &opts).unwrap()
}

fn project_of(v: &[SessionSummary], id: &str) -> Option<String> {
    let s = v
        .iter()
        .find(|s| s.session_id == id)
        .unwrap_or_else(|| panic!("{id} not listed"));
    s.project.clone()
}

fn ids(v: &[SessionSummary]) -> Vec<String> {
    let mut ids: Vec<String> = v.iter().map(|s| s.session_id.clone()).collect();
    ids.sort();
    ids
}

fn on(project: &str) -> Filters {
    Filters {
        project: Some(Wanted::parse(project).expect("a path or a name")),
        ..Filters::default()
    }
}

#[test]
fn a_repository_its_worktrees_and_subdirectories_are_one_project() {
    let root = tempfile::tempdir().unwrap();
    tree(root.path());
    let r = root.path();
    let app = r.join("code/app").to_string_lossy().into_owned();
    assert_eq!(project::of(&app), app);
    assert_eq!(project::of(&format!("{app}/src")), app);
    assert_eq!(project::of(&format!("{app}/src/")), app);
    assert_eq!(project::of(&r.join("code/app-wt").to_string_lossy()), app);
    // A submodule is a repository of its own.
    let lib = r.join("code/app/vendor/lib").to_string_lossy().into_owned();
    assert_eq!(project::of(&lib), lib);
    // Outside any repository: the directory itself.
    let loose = r.join("loose").to_string_lossy().into_owned();
    assert_eq!(project::of(&loose), loose);
    // A directory that is gone, inside a repository that is still there: that repository.
    assert_eq!(project::of(&format!("{app}/removed/deeper")), app);
}

#[test]
fn sessions_carry_their_project_and_the_index_keeps_it_after_the_directory_is_gone() {
    let root = tempfile::tempdir().unwrap();
    let h = home(root.path());
    let cache = tempfile::tempdir().unwrap();
    let r = root.path();
    let app = r.join("code/app").to_string_lossy().into_owned();
    let gone = r.join("code/gone").to_string_lossy().into_owned();
    let client = indexed(cache.path());
    client.index_update(Env::with_home(&h), false).unwrap();
    for c in [&client, &scanning()] {
        let v = everything(c, &h, Filters::default(), true);
        for id in [IN_ROOT, IN_SUB, IN_WORKTREE, PARENT, CHILD] {
            assert_eq!(project_of(&v, id).as_deref(), Some(app.as_str()), "{id}");
        }
        assert_eq!(project_of(&v, GONE).as_deref(), Some(gone.as_str()));
        let json = serde_json::to_value(&v[0]).unwrap();
        assert!(json["project"].is_string(), "{json}");
    }
    std::fs::remove_dir_all(r.join("code/gone")).unwrap();
    // The index read the session when its repository was there: it keeps that project.
    let v = everything(&indexed(cache.path()), &h, Filters::default(), true);
    assert_eq!(project_of(&v, GONE).as_deref(), Some(gone.as_str()));
    // Read afresh, nothing says it was a repository: the directory is its own project.
    let v = everything(&scanning(), &h, Filters::default(), true);
    let web = r.join("code/gone/web").to_string_lossy().into_owned();
    assert_eq!(project_of(&v, GONE).as_deref(), Some(web.as_str()));
}

#[test]
fn list_search_and_cost_filter_by_project_path_or_name() {
    let root = tempfile::tempdir().unwrap();
    let h = home(root.path());
    let cache = tempfile::tempdir().unwrap();
    let r = root.path();
    let client = indexed(cache.path());
    client.index_update(Env::with_home(&h), false).unwrap();
    let mut app_ids = vec![IN_ROOT, IN_SUB, IN_WORKTREE, PARENT, CHILD];
    app_ids.sort();
    for c in [&client, &scanning()] {
        // A subdirectory of the repository names its project, as does a worktree, or its name.
        for wanted in [
            r.join("code/app/src").to_string_lossy().into_owned(),
            r.join("code/app-wt").to_string_lossy().into_owned(),
            "app".to_string(),
        ] {
            let listed = everything(c, &h, on(&wanted), true);
            assert_eq!(ids(&listed), app_ids, "{wanted}");
            let found = c
                .search(
                    Env::with_home(&h),
                    &SearchQuery {
                        filters: on(&wanted),
                        limit: 100,
                        ..SearchQuery::new("tokenizer")
                    },
                )
                .unwrap();
            assert_eq!(ids(&found), [IN_ROOT, IN_SUB, IN_WORKTREE], "{wanted}");
            let cost = CostOptions {
                filters: on(&wanted),
                ..CostOptions::default()
            };
            let total = c.total_cost(Env::with_home(&h), &cost).unwrap();
            assert_eq!(total.session_count, 5, "{wanted}");
        }
        // A name matches the project's directory name exactly.
        assert!(everything(c, &h, on("ap"), true).is_empty());
        let lib = everything(c, &h, on("lib"), true);
        assert_eq!(ids(&lib), [IN_SUBMODULE]);
    }
}

#[test]
fn cost_groups_by_project_and_the_reports_filter_by_it() {
    let root = tempfile::tempdir().unwrap();
    let h = home(root.path());
    let r = root.path();
    let app = r.join("code/app").to_string_lossy().into_owned();
    let client = scanning();
    let cost = CostOptions {
        group_by: Some(GroupBy::Project),
        ..CostOptions::default()
    };
    let by = client.total_cost(Env::with_home(&h), &cost).unwrap();
    let groups = by.breakdowns.unwrap();
    let sessions = |key: &str| groups.get(key).map(|g| g.session_count);
    assert_eq!(sessions(&app), Some(5));
    assert_eq!(sessions(&r.join("loose").to_string_lossy()), Some(1));
    assert_eq!(
        sessions(&format!("{app}/src")),
        None,
        "a subdirectory is its project"
    );
    let mut daily = ReportOptions::new(Grouping::Period(Period::Day));
    daily.project = Wanted::parse("app");
    let report = client.cost_report(Env::with_home(&h), &daily).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    let days: Vec<&str> = json["daily"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["date"].as_str().unwrap())
        .collect();
    // The root on the 1st, src on the 2nd, the worktree on the 3rd, Codex on the 5th; not the
    // submodule's or the loose sessions' days alone (the 4th).
    assert_eq!(
        days,
        ["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-05"]
    );
}

#[test]
fn a_sub_agent_folds_into_its_parent_unless_every_session_is_asked_for() {
    let root = tempfile::tempdir().unwrap();
    let h = home(root.path());
    let cache = tempfile::tempdir().unwrap();
    let client = indexed(cache.path());
    client.index_update(Env::with_home(&h), false).unwrap();
    for c in [&client, &scanning()] {
        let every = everything(c, &h, Filters::default(), true);
        let child = every.iter().find(|s| s.session_id == CHILD).unwrap();
        assert_eq!(
            child.parent_id.as_deref(),
            Some(format!("codex:{PARENT}").as_str())
        );
        let parent_alone = every.iter().find(|s| s.session_id == PARENT).unwrap();
        assert_eq!(parent_alone.children, None);
        let alone_usd = parent_alone.cost.as_ref().unwrap().total_usd;
        let child_usd = child.cost.as_ref().unwrap().total_usd;
        assert!(alone_usd > 0.0 && child_usd > 0.0);

        let folded = everything(c, &h, Filters::default(), false);
        assert_eq!(folded.len(), every.len() - 1);
        assert!(folded.iter().all(|s| s.session_id != CHILD));
        let parent = folded.iter().find(|s| s.session_id == PARENT).unwrap();
        assert_eq!(parent.children, Some(1));
        let usd = parent.cost.as_ref().unwrap().total_usd;
        assert!((usd - (alone_usd + child_usd)).abs() < 1e-9, "{usd}");
        let tokens = parent.cost.as_ref().unwrap().input_tokens;
        assert_eq!(tokens, 2 * parent_alone.cost.as_ref().unwrap().input_tokens);
        // The totals count each session once either way.
        let total = c
            .total_cost(Env::with_home(&h), &CostOptions::default())
            .unwrap();
        assert_eq!(total.session_count as usize, every.len());

        // A hit in the child points to it and names its parent.
        let found = c
            .search(Env::with_home(&h), &SearchQuery::new("scout"))
            .unwrap();
        assert_eq!(ids(&found), [CHILD]);
        assert_eq!(
            found[0].parent_id.as_deref(),
            Some(format!("codex:{PARENT}").as_str())
        );
    }
}

#[test]
fn the_recap_groups_the_period_by_project() {
    let root = tempfile::tempdir().unwrap();
    let h = home(root.path());
    let r = root.path();
    let app = r.join("code/app").to_string_lossy().into_owned();
    let since = chrono::DateTime::parse_from_rfc3339("2026-03-02T00:00:00Z")
        .unwrap()
        .to_utc();
    let opts = RecapOptions {
        since: Some(since),
        ..RecapOptions::default()
    };
    let recap = scanning().recap(Env::with_home(&h), &opts).unwrap();
    let projects: Vec<&str> = recap.projects.iter().map(|p| p.name.as_str()).collect();
    // The most recently active first: the Codex threads on the 5th, then the 4th's two.
    assert_eq!(projects[0], "app");
    let mut rest = projects[1..].to_vec();
    rest.sort();
    assert_eq!(rest, ["gone", "lib", "loose"]);
    let a = &recap.projects[0];
    assert_eq!(a.project, app);
    assert_eq!(a.agents, ["claude", "codex"]);
    let sessions: Vec<&str> = a.sessions.iter().map(|s| s.unified_id.as_str()).collect();
    // The root's session is older than `since`; the child is folded into its parent.
    let parent = format!("codex:{PARENT}");
    assert_eq!(
        sessions,
        [
            parent.as_str(),
            &format!("claude:{IN_WORKTREE}"),
            &format!("claude:{IN_SUB}")
        ]
    );
    assert_eq!(a.sessions[0].children, Some(1));
    assert!(a.total_usd > 0.0);
    assert_eq!(recap.session_count, 6);
    let json = serde_json::to_value(&recap).unwrap();
    assert_eq!(
        json["projects"][0]["sessions"][0]["unifiedId"],
        parent.as_str()
    );
    assert!(json["projects"][0]["files"].is_array());
    // One project only, by name.
    let only = RecapOptions {
        since: Some(since),
        project: Wanted::parse("lib"),
        ..RecapOptions::default()
    };
    let recap = scanning().recap(Env::with_home(&h), &only).unwrap();
    assert_eq!(recap.projects.len(), 1);
    assert_eq!(
        recap.projects[0].sessions[0].unified_id,
        format!("claude:{IN_SUBMODULE}")
    );
}

/// From the index, the recap reads only the sources active in its period: the stored summaries
/// of a source whose sessions are all older are damaged here (a whole listing would find them
/// broken and remove the index), and the recap is still the one a read of the stores gives,
/// the index left in place.
#[test]
fn the_recap_from_the_index_reads_only_the_sources_of_its_period() {
    let root = tempfile::tempdir().unwrap();
    let h = home(root.path());
    let cache = tempfile::tempdir().unwrap();
    let since = chrono::DateTime::parse_from_rfc3339("2026-03-02T00:00:00Z")
        .unwrap()
        .to_utc();
    let opts = RecapOptions {
        since: Some(since),
        ..RecapOptions::default()
    };
    let scanned = scanning().recap(Env::with_home(&h), &opts).unwrap();
    assert_eq!(
        indexed(cache.path())
            .recap(Env::with_home(&h), &opts)
            .unwrap(),
        scanned
    );
    let file = agent_mux_sessions::index::store::path_in(cache.path());
    let damaged = || {
        let conn = rusqlite::Connection::open(&file).unwrap();
        conn.query_row(
            "SELECT count(*) FROM source WHERE summaries = x'ff'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .unwrap()
    };
    let conn = rusqlite::Connection::open(&file).unwrap();
    let older = conn
        .execute(
            "UPDATE source SET summaries = x'ff' WHERE active < ?1",
            [since.timestamp_millis()],
        )
        .unwrap();
    drop(conn);
    // The root's session, of the 1st.
    assert_eq!(older, 1);
    assert_eq!(
        indexed(cache.path())
            .recap(Env::with_home(&h), &opts)
            .unwrap(),
        scanned
    );
    assert_eq!(damaged(), 1, "the index was not read whole, nor removed");
}

/// The real Claude capture whose session started a subagent: the parent counts it as a child.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn a_real_claude_session_counts_its_subagent() {
    let dir = real_fixtures().join("claude/agent-sessions-subagent");
    let home = tempfile::tempdir().unwrap();
    let projects = home.path().join(".claude/projects/-real");
    copy_dir(&dir, &projects);
    let v = everything(&scanning(), home.path(), Filters::default(), false);
    let parent = v
        .iter()
        .find(|s| s.session_id == "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f")
        .unwrap();
    assert_eq!(parent.children, Some(1));
    // `get` still reads the subagent's messages into the session, as it always has.
    let s = scanning()
        .get(Env::with_home(home.path()), "claude", &parent.session_id)
        .unwrap();
    assert!(s.messages.iter().any(|m| m.subagent.is_some()));
}
