//! Hermes: `state.db` fixtures built from the real DDL of schema v22 (PyPI 0.19) and v30 (main),
//! plus the v11 DDL of the spec's storage note; lineage, rewound and compacted rows, multimodal
//! content, tool calls, per-model usage, profiles, a live writer, a corrupt and a locked database.
use crate::common;
use crate::sqlite_fixtures;

use std::path::Path;

use agent_mux_sessions::model::{to_iso, Role};
use agent_mux_sessions::options::{ListOptions, SearchQuery};
use agent_mux_sessions::{Client, ClientOptions, Env, ErrorCode, SessionSummary};
use rusqlite::Connection;
use serde_json::json;
use sqlite_fixtures::*;

const ROOT: &str = "20250305_091523_a1b2c3";
const CHILD: &str = "20250305_092633_d4e5f6";
const DISCORD: &str = "20250309_192005_3a4b5c6d";
const ACP: &str = "7d2f6a1e-3c4b-4e8f-9a0b-1c2d3e4f5a6b";
const BRANCH: &str = "20250307_163000_b7a6c5";

fn v22() -> String {
    research_file("research", "hermes-schema-v22.sql")
}
fn v30() -> String {
    research_file("research", "hermes-schema-v30.sql")
}

/// The v11 layout as the spec's storage note gives it: its `sessions`, `messages` and FTS blocks.
fn v11() -> String {
    let md = research_file("spec", "hermes-session-storage.md");
    let blocks: Vec<&str> = md
        .split("```sql")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .filter(|b| b.contains("CREATE"))
        .collect();
    format!(
        "CREATE TABLE schema_version (version INTEGER NOT NULL);\n{}",
        blocks.join("\n")
    )
}

fn env_for(home: &Path) -> Env {
    let mut env = Env::with_home(Path::new("/nonexistent-home"));
    env.set("HERMES_HOME", home.to_str().unwrap());
    env
}

fn session(c: &Connection, id: &str, extra: &[(&str, rusqlite::types::Value)]) {
    let mut v = vec![("id", t(id)), ("source", t("cli"))];
    v.extend(extra.iter().cloned());
    insert(c, "sessions", &v);
}

fn msg(c: &Connection, sid: &str, role: &str, ts: f64, extra: &[(&str, rusqlite::types::Value)]) {
    let mut v = vec![
        ("session_id", t(sid)),
        ("role", t(role)),
        ("timestamp", r(ts)),
    ];
    v.extend(extra.iter().cloned());
    insert(c, "messages", &v);
}

/// Five sessions covering what Hermes writes (see hermes.md §3).
fn fill(c: &Connection, version: i64) {
    insert(c, "schema_version", &[("version", i(version))]);
    session(
        c,
        ROOT,
        &[
            ("title", t("Fix auth refresh")),
            ("model", t("anthropic/claude-sonnet-4")),
            ("cwd", t("/home/u/app")),
            ("started_at", r(1741166123.5)),
            ("ended_at", r(1741166400.25)),
            ("end_reason", t("compression")),
            ("input_tokens", i(1000)),
            ("output_tokens", i(200)),
            ("cache_read_tokens", i(300)),
            ("cache_write_tokens", i(50)),
            ("reasoning_tokens", i(20)),
            ("estimated_cost_usd", r(0.0123)),
            ("cost_status", t("estimated")),
        ],
    );
    msg(
        c,
        ROOT,
        "user",
        1741166124.0,
        &[("content", t("Fix the auth refresh bug"))],
    );
    let call = json!([{"id": "call_1", "call_id": "call_1", "type": "function",
        "function": {"name": "read_file", "arguments": "{\"path\": \"src/auth.ts\"}"}}]);
    msg(
        c,
        ROOT,
        "assistant",
        1741166130.25,
        &[
            ("tool_calls", t(&call.to_string())),
            ("reasoning", t("Look at the file first")),
            ("finish_reason", t("tool_calls")),
        ],
    );
    msg(
        c,
        ROOT,
        "tool",
        1741166131.0,
        &[
            ("tool_call_id", t("call_1")),
            ("tool_name", t("read_file")),
            ("content", t("export function refresh() {}")),
        ],
    );
    msg(
        c,
        ROOT,
        "assistant",
        1741166140.0,
        &[("content", t("Fixed it."))],
    );

    // Compression child: per-model main-loop rows and an auxiliary title row.
    session(
        c,
        CHILD,
        &[
            ("title", t("Fix auth refresh #2")),
            ("model", t("model-a")),
            ("parent_session_id", t(ROOT)),
            ("started_at", r(1741166500.0)),
            ("input_tokens", i(500)),
            ("output_tokens", i(150)),
            ("estimated_cost_usd", r(0.006)),
        ],
    );
    msg(
        c,
        CHILD,
        "user",
        1741166501.0,
        &[(
            "content",
            t("[CONTEXT COMPACTION — REFERENCE ONLY] fixed refresh"),
        )],
    );
    msg(
        c,
        CHILD,
        "assistant",
        1741166502.0,
        &[("content", t("Continuing."))],
    );
    if version >= 22 {
        for (model, task, inp, out, cost) in [
            ("model-a", "", 400, 100, 0.004),
            ("model-b", "", 100, 50, 0.002),
            ("model-c", "title_generation", 30, 5, 0.0001),
        ] {
            insert(
                c,
                "session_model_usage",
                &[
                    ("session_id", t(CHILD)),
                    ("model", t(model)),
                    ("task", t(task)),
                    ("input_tokens", i(inp)),
                    ("output_tokens", i(out)),
                    ("estimated_cost_usd", r(cost)),
                ],
            );
        }
    }

    // Discord: untitled, multimodal first message, in-place compaction and a rewind.
    session(
        c,
        DISCORD,
        &[
            ("source", t("discord")),
            ("model", t("gpt-4o")),
            ("started_at", r(1741512005.0)),
            ("input_tokens", i(10)),
            ("output_tokens", i(5)),
            ("cost_status", t("unknown")),
            ("rewind_count", i(1)),
        ],
    );
    let mm = "\u{0}json:[{\"type\":\"text\",\"text\":\"what is in this picture?\"},{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AAAA\"}}]";
    let compacted = [("active", i(0)), ("compacted", i(1))];
    let rewound = [("active", i(0)), ("compacted", i(0))];
    let with = |base: &[(&'static str, rusqlite::types::Value)], content: &str| {
        let mut v = base.to_vec();
        v.push(("content", t(content)));
        v
    };
    msg(c, DISCORD, "user", 1741512010.0, &with(&compacted, mm));
    msg(
        c,
        DISCORD,
        "assistant",
        1741512020.0,
        &with(&compacted, "A cat."),
    );
    msg(
        c,
        DISCORD,
        "user",
        1741512030.0,
        &[("content", t("[CONTEXT SUMMARY]: asked about a cat picture"))],
    );
    msg(
        c,
        DISCORD,
        "user",
        1741512040.0,
        &with(&rewound, "drop the database volume"),
    );
    msg(
        c,
        DISCORD,
        "assistant",
        1741512050.0,
        &with(&rewound, "Dropping."),
    );
    msg(
        c,
        DISCORD,
        "user",
        1741512060.0,
        &[("content", t("never mind, list volumes"))],
    );
    msg(
        c,
        DISCORD,
        "assistant",
        1741512070.0,
        &[("content", t("Volumes: data"))],
    );

    // ACP: cwd only in model_config, actual cost beside the estimate.
    session(
        c,
        ACP,
        &[
            ("source", t("acp")),
            ("title", t("日本語のセッション")),
            ("model", t("claude-opus")),
            (
                "model_config",
                t(r#"{"cwd": "/home/u/jp", "provider": "anthropic", "api_mode": "chat"}"#),
            ),
            ("started_at", r(1741600000.0)),
            ("input_tokens", i(7)),
            ("output_tokens", i(3)),
            ("estimated_cost_usd", r(0.4)),
            ("actual_cost_usd", r(0.5)),
        ],
    );
    msg(
        c,
        ACP,
        "user",
        1741600005.0,
        &[("content", t("こんにちは"))],
    );
    msg(c, ACP, "assistant", 1741600010.0, &[("content", t("はい"))]);

    // /branch child whose only lineage marker is model_config._branched_from.
    session(
        c,
        BRANCH,
        &[
            ("title", t("Branch of auth")),
            (
                "model_config",
                t(&json!({"_branched_from": ROOT}).to_string()),
            ),
            ("started_at", r(1741700000.0)),
            ("ended_at", r(1741700100.0)),
        ],
    );
}

/// `state.db` at `home` built from `ddl`, closed (all content in the main file).
fn build(home: &Path, ddl: &str, version: i64) {
    let c = create_db(&home.join("state.db"), ddl, true);
    fill(&c, version);
}

fn list(home: &Path) -> Vec<SessionSummary> {
    let client = common::client();
    let mut v = client
        .list(env_for(home), "hermes", &ListOptions::default())
        .unwrap();
    v.sort_by(|a, b| a.session_id.cmp(&b.session_id));
    v
}

fn by_id<'a>(v: &'a [SessionSummary], id: &str) -> &'a SessionSummary {
    v.iter().find(|s| s.session_id == id).unwrap()
}

fn check_common_versions(home: &Path, version: i64) {
    let client = common::client();
    let v = list(home);
    assert_eq!(v.len(), 5);

    let root = by_id(&v, ROOT);
    assert_eq!(root.title, "Fix auth refresh");
    assert_eq!(to_iso(&root.created_at), "2025-03-05T09:15:23.500Z");
    assert_eq!(to_iso(&root.updated_at), "2025-03-05T09:20:00.250Z");
    assert_eq!((root.message_count, root.turn_count), (4, 1));
    assert_eq!(root.model.as_deref(), Some("anthropic/claude-sonnet-4"));
    assert_eq!(root.forked_from, None);
    let cost = root.cost.as_ref().unwrap();
    assert_eq!(cost.total_usd, 0.0123);
    assert_eq!((cost.input_tokens, cost.output_tokens), (1000, 200));
    assert_eq!(cost.cached_tokens, Some(300));
    assert_eq!(cost.cache_write_tokens, Some(50));
    assert_eq!(cost.thinking_tokens, Some(20));

    let child = by_id(&v, CHILD);
    assert_eq!(child.forked_from.as_deref(), Some(ROOT));
    assert_eq!((child.message_count, child.turn_count), (2, 1));
    let cc = child.cost.as_ref().unwrap();
    if version >= 22 {
        // task='' rows per model (they sum to the session columns) plus the auxiliary row.
        assert_eq!((cc.input_tokens, cc.output_tokens), (530, 155));
        assert!((cc.total_usd - 0.0061).abs() < 1e-12, "{}", cc.total_usd);
        let models: Vec<&str> = child.usage.iter().map(|u| u.model.as_str()).collect();
        assert_eq!(models, ["model-a", "model-b", "model-c"]);
    } else {
        assert_eq!((cc.input_tokens, cc.output_tokens), (500, 150));
        assert_eq!(cc.total_usd, 0.006);
    }

    let acp = by_id(&v, ACP);
    assert_eq!(acp.title, "日本語のセッション");
    assert_eq!(acp.cost.as_ref().unwrap().total_usd, 0.5);
    assert_eq!(to_iso(&acp.updated_at), "2025-03-10T09:46:50.000Z");

    let branch = by_id(&v, BRANCH);
    assert_eq!(branch.forked_from.as_deref(), Some(ROOT));
    assert_eq!((branch.message_count, branch.turn_count), (0, 0));
    assert_eq!(
        branch.cost, None,
        "no tokens and no cost: cost unknown, not zero"
    );
    assert_eq!(to_iso(&branch.updated_at), "2025-03-11T13:35:00.000Z");

    // get: tool call with its parsed arguments and paired output, reasoning as thinking.
    let s = client.get(env_for(home), "hermes", ROOT).unwrap();
    assert_eq!(s.summary.unified_id, format!("hermes:{ROOT}"));
    let roles: Vec<Role> = s.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    let call = &s.messages[1].tool_calls[0];
    assert_eq!(call.tool_call_id, "call_1");
    assert_eq!(call.tool_name, "read_file");
    assert_eq!(call.input, json!({"path": "src/auth.ts"}));
    assert_eq!(call.output, Some(json!("export function refresh() {}")));
    assert_eq!(
        s.messages[1].thinking.as_deref(),
        Some("Look at the file first")
    );
    assert_eq!(s.messages[1].content, "");
    let res = s.messages[2].tool_result.as_ref().unwrap();
    assert_eq!(
        (res.tool_call_id.as_str(), res.tool_name.as_str()),
        ("call_1", "read_file")
    );
    assert_eq!(
        to_iso(s.messages[2].timestamp.as_ref().unwrap()),
        "2025-03-05T09:15:31.000Z"
    );
    assert_eq!(s.summary.message_count, 4);
    assert_eq!(s.summary.cost.as_ref().unwrap().total_usd, 0.0123);
    assert_eq!(
        s.raw.as_ref().unwrap().to_value()["session"]["source"],
        "cli"
    );

    let e = client.get(env_for(home), "hermes", "nope").unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionNotFound);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn reads_schema_v22_written_by_hermes_0_19() {
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &ddl, 22);
    let before = common::snapshot(dir.path());
    check_common_versions(dir.path(), 22);

    let v = list(dir.path());
    let d = by_id(&v, DISCORD);
    // Rewound rows hidden, compacted rows kept: 5 of 7 rows.
    assert_eq!((d.message_count, d.turn_count), (5, 2));
    assert_eq!(d.title, "what is in this picture?");
    assert_eq!(d.cwd, None);
    let dc = d.cost.as_ref().unwrap();
    assert_eq!((dc.input_tokens, dc.output_tokens), (10, 5));
    assert_eq!(
        d.usage[0].native_cost_usd, None,
        "cost_status unknown: no native cost"
    );
    assert_eq!(by_id(&v, ACP).cwd.as_deref(), Some("/home/u/jp"));
    assert_eq!(by_id(&v, ROOT).cwd.as_deref(), Some("/home/u/app"));

    let s = common::client()
        .get(env_for(dir.path()), "hermes", DISCORD)
        .unwrap();
    let texts: Vec<&str> = s.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        [
            "what is in this picture?",
            "A cat.",
            "[CONTEXT SUMMARY]: asked about a cat picture",
            "never mind, list volumes",
            "Volumes: data"
        ]
    );
    assert_eq!(common::snapshot(dir.path()), before);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn reads_schema_v30_of_hermes_main() {
    let ddl = v30();
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &ddl, 30);
    {
        // v30 only: a display-hidden row, and a heartbeat later than every message.
        let c = Connection::open(dir.path().join("state.db")).unwrap();
        msg(
            &c,
            ACP,
            "user",
            1741600011.0,
            &[
                ("content", t("steer: be brief")),
                ("display_kind", t("hidden")),
            ],
        );
        c.execute(
            "UPDATE sessions SET last_activity_at = 1741700200.0 WHERE id = ?1",
            [ACP],
        )
        .unwrap();
    }
    let before = common::snapshot(dir.path());
    check_common_versions_v30(dir.path());
    assert_eq!(common::snapshot(dir.path()), before);
}

fn check_common_versions_v30(home: &Path) {
    // The heartbeat moves ACP's updatedAt; everything else is as in v22.
    let v = list(home);
    let acp = by_id(&v, ACP);
    assert_eq!(to_iso(&acp.updated_at), "2025-03-11T13:36:40.000Z");
    assert_eq!(
        (acp.message_count, acp.turn_count),
        (2, 1),
        "hidden row left out"
    );
    let d = by_id(&v, DISCORD);
    assert_eq!((d.message_count, d.turn_count), (5, 2));
    assert_eq!(d.title, "what is in this picture?");
    let root = by_id(&v, ROOT);
    assert_eq!((root.message_count, root.turn_count), (4, 1));
    assert_eq!(by_id(&v, CHILD).usage.len(), 3);
    let s = common::client().get(env_for(home), "hermes", ACP).unwrap();
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.messages[0].content, "こんにちは");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/spec")]
fn reads_schema_v11_without_activity_columns() {
    let ddl = v11();
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &ddl, 11);
    let v = list(dir.path());
    let root = by_id(&v, ROOT);
    // v11 has no cwd column and no active/compacted: every row is live.
    assert_eq!(root.cwd, None);
    assert_eq!((root.message_count, root.turn_count), (4, 1));
    assert_eq!(by_id(&v, DISCORD).message_count, 7);
    check_v11_costs(&v);
}

fn check_v11_costs(v: &[SessionSummary]) {
    let child = by_id(v, CHILD);
    assert_eq!(child.usage.len(), 1);
    assert_eq!(child.usage[0].model, "model-a");
    assert_eq!(child.cost.as_ref().unwrap().input_tokens, 500);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn profiles_each_have_their_own_database() {
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &ddl, 22);
    let c = create_db(&dir.path().join("profiles/work/state.db"), &ddl, true);
    session(
        &c,
        "20250401_100000_abcdef",
        &[("started_at", r(1743501600.0)), ("profile_name", t("work"))],
    );
    msg(
        &c,
        "20250401_100000_abcdef",
        "user",
        1743501601.0,
        &[("content", t("work item"))],
    );
    drop(c);
    let v = list(dir.path());
    assert_eq!(v.len(), 6);
    assert_eq!(by_id(&v, "20250401_100000_abcdef").title, "work item");
    let s = common::client()
        .get(env_for(dir.path()), "hermes", "20250401_100000_abcdef")
        .unwrap();
    assert_eq!(s.messages.len(), 1);
    // Search asks every database list reads: a session only in a profile's is found, with the
    // snippet its FTS5 row makes.
    let mut q = SearchQuery::new("item");
    q.agent = Some("hermes".into());
    let found = common::client().search(env_for(dir.path()), &q).unwrap();
    let ids: Vec<&str> = found.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, ["20250401_100000_abcdef"]);
    assert!(found[0].snippet.as_deref().unwrap().contains("item"));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn session_dirs_override_replaces_hermes_home() {
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    build(&dir.path().join("elsewhere"), &ddl, 22);
    let mut opts = ClientOptions::default();
    opts.session_dirs
        .insert("hermes".into(), dir.path().join("elsewhere"));
    let client = Client::new(opts);
    // HERMES_HOME points at an empty directory; the override wins.
    let v = client
        .list(env_for(dir.path()), "hermes", &ListOptions::default())
        .unwrap();
    assert_eq!(v.len(), 5);
    // Search reads the same databases as list, not HERMES_HOME's.
    let mut q = SearchQuery::new("refresh");
    q.agent = Some("hermes".into());
    let found = client.search(env_for(dir.path()), &q).unwrap();
    assert!(found.iter().any(|s| s.session_id == ROOT), "{found:?}");
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn broken_fts_tables_do_not_affect_reading() {
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &ddl, 22);
    {
        let c = Connection::open(dir.path().join("state.db")).unwrap();
        // Garbage in the segment leaves of both inverted indexes (the structure record kept), so a
        // MATCH reports a malformed index, as SQLite 3.54 does on a 3.40 trigram index.
        c.execute_batch(
            "UPDATE messages_fts_data SET block = x'deadbeefdeadbeefdeadbeefdeadbeef' WHERE id > 10;
             UPDATE messages_fts_trigram_data SET block = x'deadbeefdeadbeefdeadbeefdeadbeef' WHERE id > 10;",
        )
        .unwrap();
        let err = c
            .query_row(
                "SELECT count(*) FROM messages_fts_trigram WHERE messages_fts_trigram MATCH 'cat'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .is_err();
        assert!(err, "the fixture's trigram index must really be broken");
    }
    let v = list(dir.path());
    assert_eq!(v.len(), 5);
    let s = common::client()
        .get(env_for(dir.path()), "hermes", DISCORD)
        .unwrap();
    assert_eq!(s.messages.len(), 5);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn sees_committed_rows_of_a_live_writer_and_creates_nothing() {
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    let w = create_db(&dir.path().join("state.db"), &ddl, true);
    w.execute_batch("PRAGMA wal_autocheckpoint=0;").unwrap();
    session(&w, "s1", &[("started_at", r(1741166123.0))]);
    msg(&w, "s1", "user", 1741166124.0, &[("content", t("first"))]);
    assert_eq!(
        sidecars(dir.path()).len(),
        2,
        "the writer keeps -wal and -shm"
    );

    let client = common::client();
    let env = env_for(dir.path());
    let before = snapshot_without_shm(dir.path());
    let v = client
        .list(env.clone(), "hermes", &ListOptions::default())
        .unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(snapshot_without_shm(dir.path()), before);

    // Committed while the reader's client exists: seen by the next read (the -wal stamp changed).
    session(
        &w,
        "s2",
        &[("started_at", r(1741166200.0)), ("title", t("second"))],
    );
    msg(&w, "s2", "user", 1741166201.0, &[("content", t("hello"))]);
    msg(&w, "s2", "assistant", 1741166202.0, &[("content", t("hi"))]);
    let before = snapshot_without_shm(dir.path());
    let v = client
        .list(env.clone(), "hermes", &ListOptions::default())
        .unwrap();
    assert_eq!(v.len(), 2);
    let s = client.get(env, "hermes", "s2").unwrap();
    assert_eq!(s.messages.len(), 2);
    assert_eq!(s.summary.title, "second");
    assert_eq!(snapshot_without_shm(dir.path()), before);
}

#[cfg(unix)]
#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn read_only_directory_gets_no_new_files() {
    use std::os::unix::fs::PermissionsExt;
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("h");
    build(&home, &ddl, 22);
    assert!(sidecars(&home).is_empty());
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = common::snapshot(&home);
    let v = list(&home);
    assert_eq!(v.len(), 5);
    let s = common::client()
        .get(env_for(&home), "hermes", ROOT)
        .unwrap();
    assert_eq!(s.messages.len(), 4);
    // Root could still write here, so the proof is that nothing was created or changed.
    assert_eq!(common::snapshot(&home), before);
    std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn corrupt_database_is_skipped_by_list_and_a_parse_error_for_get() {
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &ddl, 22);
    // A second profile whose database is damaged past its header.
    let bad = dir.path().join("profiles/broken/state.db");
    build(bad.parent().unwrap(), &ddl, 22);
    corrupt_pages(&bad);
    let client = common::client();
    let before = common::snapshot(dir.path());
    let v = client
        .list(env_for(dir.path()), "hermes", &ListOptions::default())
        .unwrap();
    assert_eq!(v.len(), 5, "the good database is still listed");
    let skipped = client.cache().skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].0, bad);
    assert!(skipped[0].1.contains("state.db"), "{}", skipped[0].1);

    // A session only the broken database could hold: PARSE_ERROR naming it.
    let e = client
        .get(env_for(dir.path()), "hermes", "not-in-the-good-one")
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ParseError);
    assert!(e.message.contains(bad.to_str().unwrap()), "{}", e.message);
    // The good database still answers.
    assert!(client.get(env_for(dir.path()), "hermes", ROOT).is_ok());
    assert_eq!(common::snapshot(dir.path()), before);
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/research")]
fn locked_database_is_skipped_by_list_and_a_parse_error_for_get() {
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("state.db");
    let w = create_db(&db, &ddl, false); // rollback journal: a writer can lock readers out
    fill(&w, 22);
    w.execute_batch("BEGIN EXCLUSIVE; UPDATE sessions SET title = 'x' WHERE id = 'nope';")
        .unwrap();
    let client = common::client();
    let began = std::time::Instant::now();
    let v = client
        .list(env_for(dir.path()), "hermes", &ListOptions::default())
        .unwrap();
    assert!(v.is_empty());
    // SQLite's busy wait (2 s) once, not once per attempt at opening.
    let waited = began.elapsed();
    assert!(waited < std::time::Duration::from_secs(6), "{waited:?}");
    let skipped = client.cache().skipped();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].1.contains("locked"), "{}", skipped[0].1);
    let e = client.get(env_for(dir.path()), "hermes", ROOT).unwrap_err();
    assert_eq!(e.code, ErrorCode::ParseError);
    assert!(e.message.contains(db.to_str().unwrap()));
    w.execute_batch("ROLLBACK;").unwrap();
    assert_eq!(list(dir.path()).len(), 5);
}

/// Timing on a larger v22 store (run with `--ignored --nocapture`): 5,000 sessions × 40 messages.
#[test]
#[ignore]
fn bench_large_v22_store() {
    let ddl = v22();
    let dir = tempfile::tempdir().unwrap();
    let c = create_db(&dir.path().join("state.db"), &ddl, true);
    c.execute_batch("BEGIN").unwrap();
    for s in 0..5000 {
        let id = format!("20250101_000000_{s:06x}");
        session(
            &c,
            &id,
            &[
                ("started_at", r(1735689600.0 + s as f64)),
                ("input_tokens", i(100)),
            ],
        );
        for m in 0..40 {
            let role = if m % 2 == 0 { "user" } else { "assistant" };
            msg(
                &c,
                &id,
                role,
                1735689600.0 + s as f64 + m as f64,
                &[("content", t("some words of a message body here"))],
            );
        }
    }
    c.execute_batch("COMMIT").unwrap();
    drop(c);
    let client = common::client();
    let t0 = std::time::Instant::now();
    let v = client
        .list(env_for(dir.path()), "hermes", &ListOptions::default())
        .unwrap();
    let cold = t0.elapsed();
    let t1 = std::time::Instant::now();
    client
        .list(env_for(dir.path()), "hermes", &ListOptions::default())
        .unwrap();
    let warm = t1.elapsed();
    let t2 = std::time::Instant::now();
    let s = client
        .get(env_for(dir.path()), "hermes", "20250101_000000_000abc")
        .unwrap();
    let get = t2.elapsed();
    assert_eq!((v.len(), s.messages.len()), (100, 40));
    eprintln!("hermes 5000x40: list cold {cold:?}, list cached {warm:?}, get {get:?}");
}
