//! The git branch a session ran on (`SessionSummary::git_branch`) and the `branch` filter, for
//! the agents that record one: Claude Code (`gitBranch` on each line), Codex (`session_meta.git`),
//! Copilot CLI (`workspace.yaml`, `session.start` context) and Hermes (`sessions.git_branch`).
use crate::common;
use crate::sqlite_fixtures;

use std::path::Path;

use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::options::{CostOptions, Filters, ListOptions, SearchQuery};
use agent_mux_sessions::{Client, ClientOptions, Env, SessionSummary};
use common::*;
use serde_json::json;
use sqlite_fixtures::*;

const CLAUDE_SWITCHED: &str = "11111111-1111-4111-8111-111111111111";
const CLAUDE_MAIN: &str = "22222222-2222-4222-8222-222222222222";
const CODEX_FEATURE: &str = "019a0000-0000-7000-8000-000000000001";
const COPILOT_FEATURE: &str = "33333333-3333-4333-8333-333333333333";

fn claude_line(sid: &str, uuid: &str, ts: &str, branch: &str, text: &str) -> String {
    json!({"type": "user", "uuid": uuid, "parentUuid": null, "timestamp": ts, "cwd": "/w/app",
           "sessionId": sid, "version": "2.1.197", "gitBranch": branch,
           "message": {"role": "user", "content": text}})
    .to_string()
}

/// A home where each agent has sessions on `main` and on `feature/login`, one Claude session
/// having switched from the first to the second.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path();
    let switched = [
        claude_line(
            CLAUDE_SWITCHED,
            "u1",
            "2026-03-01T10:00:00.000Z",
            "main",
            "start the login work",
        ),
        claude_line(
            CLAUDE_SWITCHED,
            "u2",
            "2026-03-01T10:05:00.000Z",
            "feature/login",
            "now on the branch",
        ),
    ];
    write(
        h,
        &format!(".claude/projects/-w-app/{CLAUDE_SWITCHED}.jsonl"),
        switched.join("\n") + "\n",
    );
    let on_main = claude_line(
        CLAUDE_MAIN,
        "u3",
        "2026-03-02T10:00:00.000Z",
        "main",
        "login page tweaks",
    );
    write(
        h,
        &format!(".claude/projects/-w-app/{CLAUDE_MAIN}.jsonl"),
        on_main + "\n",
    );
    let codex = [
        json!({"timestamp": "2026-03-03T10:00:00.000Z", "type": "session_meta", "payload": {
            "id": CODEX_FEATURE, "timestamp": "2026-03-03T10:00:00.000Z", "cwd": "/w/app",
            "originator": "codex_cli_rs", "cli_version": "0.146.0",
            "git": {"commit_hash": "abc123", "branch": "feature/login", "repository_url": "git@example.com:w/app.git"}}}),
        json!({"timestamp": "2026-03-03T10:00:01.000Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the login form"}]}}),
    ];
    let codex: Vec<String> = codex.iter().map(|v| v.to_string()).collect();
    write(
        h,
        &format!(".codex/sessions/2026/03/03/rollout-2026-03-03T10-00-00-{CODEX_FEATURE}.jsonl"),
        codex.join("\n") + "\n",
    );
    let copilot = [
        json!({"type": "session.start", "id": "e1", "timestamp": "2026-03-04T10:00:00.000Z", "parentId": null,
               "data": {"sessionId": COPILOT_FEATURE, "version": 1, "producer": "copilot-agent",
                        "startTime": "2026-03-04T10:00:00.000Z", "context": {"cwd": "/w/app", "branch": "main"}}}),
        json!({"type": "user.message", "id": "e2", "timestamp": "2026-03-04T10:00:01.000Z", "parentId": "e1",
               "data": {"content": "login button colour"}}),
    ];
    let copilot: Vec<String> = copilot.iter().map(|v| v.to_string()).collect();
    write(
        h,
        &format!(".copilot/session-state/{COPILOT_FEATURE}/events.jsonl"),
        copilot.join("\n") + "\n",
    );
    // The workspace file is rewritten as the session goes on: it names the branch it is on now.
    write(
        h,
        &format!(".copilot/session-state/{COPILOT_FEATURE}/workspace.yaml"),
        format!("id: {COPILOT_FEATURE}\ncwd: /w/app\nbranch: feature/login\n"),
    );
    dir
}

fn on(branch: &str) -> Filters {
    Filters {
        branch: Some(branch.into()),
        ..Filters::default()
    }
}

fn ids(v: &[SessionSummary]) -> Vec<String> {
    let mut ids: Vec<String> = v.iter().map(|s| s.unified_id.clone()).collect();
    ids.sort();
    ids
}

/// `list` of every agent, `search` and `totalCost` with a branch filter, by `client`.
fn filtered(client: &Client, home: &Path, branch: &str) -> (Vec<String>, Vec<String>, u64) {
    let env = || Env::with_home(home);
    let list = ListOptions {
        filters: on(branch),
        limit: 100,
        ..ListOptions::default()
    };
    let listed = client.list_all(env(), &list).unwrap();
    let query = SearchQuery {
        filters: on(branch),
        limit: 100,
        ..SearchQuery::new("login")
    };
    let found = client.search(env(), &query).unwrap();
    let cost = CostOptions {
        filters: on(branch),
        ..CostOptions::default()
    };
    let sessions = client.total_cost(env(), &cost).unwrap().session_count;
    (ids(&listed), ids(&found), sessions)
}

#[test]
fn each_agent_records_the_branch_it_ran_on_last() {
    let home = home();
    let client = common::client();
    let branch = |agent: &str, id: &str| {
        let all = list_all(&client, agent, Env::with_home(home.path()));
        let s = all.iter().find(|s| s.session_id == id).unwrap();
        s.git_branch.clone()
    };
    assert_eq!(
        branch("claude", CLAUDE_SWITCHED).as_deref(),
        Some("feature/login")
    );
    assert_eq!(branch("claude", CLAUDE_MAIN).as_deref(), Some("main"));
    assert_eq!(
        branch("codex", CODEX_FEATURE).as_deref(),
        Some("feature/login")
    );
    assert_eq!(
        branch("copilot", COPILOT_FEATURE).as_deref(),
        Some("feature/login")
    );
    // The summary carries it to JS as `gitBranch`.
    let all = list_all(&client, "codex", Env::with_home(home.path()));
    let json = serde_json::to_value(&all[0]).unwrap();
    assert_eq!(json["gitBranch"], "feature/login");
}

#[test]
fn list_search_and_cost_filter_by_branch_with_and_without_the_index() {
    let home = home();
    let cache = tempfile::tempdir().unwrap();
    let indexed = Client::new(ClientOptions {
        cache: CacheSetting::Dir(cache.path().to_path_buf()),
        ..ClientOptions::default()
    });
    let scanning = Client::new(ClientOptions {
        cache: CacheSetting::Off,
        ..ClientOptions::default()
    });
    let feature = vec![
        format!("claude:{CLAUDE_SWITCHED}"),
        format!("codex:{CODEX_FEATURE}"),
        format!("copilot:{COPILOT_FEATURE}"),
    ];
    let main = vec![format!("claude:{CLAUDE_MAIN}")];
    indexed
        .index_update(Env::with_home(home.path()), false)
        .unwrap();
    for client in [&scanning, &indexed] {
        assert_eq!(
            filtered(client, home.path(), "feature/login"),
            (feature.clone(), feature.clone(), 3)
        );
        assert_eq!(
            filtered(client, home.path(), "main"),
            (main.clone(), main.clone(), 1)
        );
        // Exactly the branch: no prefix, no other case.
        assert_eq!(
            filtered(client, home.path(), "feature"),
            (vec![], vec![], 0)
        );
        assert_eq!(filtered(client, home.path(), "Main"), (vec![], vec![], 0));
    }
}

/// Hermes keeps the branch in a column of its `sessions` table (schema v22 and later).
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn hermes_reads_the_branch_column() {
    let home = tempfile::tempdir().unwrap();
    let c = create_db(
        &home.path().join("state.db"),
        &research_file("research", "hermes-schema-v30.sql"),
        true,
    );
    for (id, branch) in [
        ("20260301_100000_aaaaaa", Some("feature/login")),
        ("20260302_100000_bbbbbb", None),
    ] {
        let mut row = vec![
            ("id", t(id)),
            ("source", t("cli")),
            ("started_at", r(1_772_359_200.0)),
        ];
        if let Some(b) = branch {
            row.push(("git_branch", t(b)));
        }
        insert(&c, "sessions", &row);
    }
    drop(c);
    let mut env = Env::with_home(Path::new("/nonexistent-home"));
    env.set("HERMES_HOME", home.path().to_str().unwrap());
    let client = common::client();
    let opts = ListOptions {
        filters: on("feature/login"),
        ..ListOptions::default()
    };
    let found = client.list(env.clone(), "hermes", &opts).unwrap();
    assert_eq!(
        ids(&found),
        vec!["hermes:20260301_100000_aaaaaa".to_string()]
    );
    assert_eq!(found[0].git_branch.as_deref(), Some("feature/login"));
    let all = list_all(&client, "hermes", env.clone());
    assert_eq!(all.len(), 2);
    // The row handed on as `raw` keeps the columns it had: the branch is read beside it.
    let got = client.get(env, "hermes", "20260301_100000_aaaaaa").unwrap();
    let raw = serde_json::to_value(&got.raw).unwrap();
    assert_eq!(raw["session"]["id"], "20260301_100000_aaaaaa");
    assert!(raw["session"].get("agg_git_branch").is_none(), "{raw}");
}

/// Real captures: Claude Code's lines name `main`, or `HEAD` on a detached checkout; Copilot
/// CLI's `session.start` names `main`.
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_captures_name_their_branch() {
    let real = real_fixtures();
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    place(
        h,
        ".claude/projects/-c/9c42ba52-3bf1-449f-a040-8ee33284a1c8.jsonl",
        &real.join("claude/margin-session-basic-2.1.233.jsonl"),
    );
    place(
        h,
        ".claude/projects/-p/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
        &real.join("claude/agent-sessions-subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl"),
    );
    place(
        h,
        ".copilot/session-state/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl",
        &real.join(
            "copilot/agent-sessions-subdir_v1/aaaabbbb-1111-2222-3333-ccccddddeeee/events.jsonl",
        ),
    );
    let client = common::client();
    let env = || Env::with_home(h);
    let head = ListOptions {
        filters: on("HEAD"),
        ..ListOptions::default()
    };
    let main = ListOptions {
        filters: on("main"),
        ..ListOptions::default()
    };
    assert_eq!(
        ids(&client.list_all(env(), &head).unwrap()),
        vec!["claude:9c42ba52-3bf1-449f-a040-8ee33284a1c8".to_string()]
    );
    assert_eq!(
        ids(&client.list_all(env(), &main).unwrap()),
        vec![
            "claude:0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f".to_string(),
            "copilot:aaaabbbb-1111-2222-3333-ccccddddeeee".to_string(),
        ]
    );
}
