//! `sync` against a real PostgreSQL: the server `AGENT_MUX_TEST_PG` names (a URL whose role may
//! create databases; `scripts/cargo-test.mjs` starts a throw-away one when PostgreSQL is
//! installed). Each test works in a database of its own. Without a server the tests return at
//! once, saying so, and fail under AGENT_MUX_REQUIRE_FIXTURES=1.
mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use agent_mux_sessions::error::ErrorCode;
use agent_mux_sessions::options::CostOptions;
use agent_mux_sessions::team::conn::Target;
use agent_mux_sessions::team::push::{SyncOptions, SyncResult};
use agent_mux_sessions::team::schema;
use agent_mux_sessions::{Client, ClientOptions, Env};

/// The server's URL, or `None` (the test is skipped) when there is none.
fn server() -> String {
    std::env::var("AGENT_MUX_TEST_PG")
        .ok()
        .filter(|url| !url.is_empty())
        .expect("no PostgreSQL: AGENT_MUX_TEST_PG names none (scripts/cargo-test.mjs starts one where initdb is found)")
}

/// `url` with its database replaced by `db`.
fn with_db(url: &str, db: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, ""), |(b, q)| (b, q));
    let slash = base.rfind('/').unwrap();
    let q = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    format!("{}/{db}{q}", &base[..slash])
}

static SEQ: AtomicU32 = AtomicU32::new(0);

/// A fresh database on the server; its URL.
fn fresh_db(url: &str, name: &str) -> String {
    let db = format!(
        "t_{name}_{}_{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::SeqCst)
    );
    let mut admin = Target::parse(url, &Env::default())
        .unwrap()
        .connect()
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {db}"))
        .unwrap();
    with_db(url, &db)
}

fn connect(url: &str) -> postgres::Client {
    Target::parse(url, &Env::default())
        .unwrap()
        .connect()
        .unwrap()
}

/// A copy of the demo home (each machine its own).
fn machine_home(dir: &Path, name: &str) -> PathBuf {
    let home = dir.join(name);
    common::copy_dir(&common::demo_home(), &home);
    home
}

fn env(home: &Path) -> Env {
    let mut env = Env::with_home(home);
    env.set("AGENT_MUX_NO_CACHE", "1");
    env.set("TZ", "UTC");
    env
}

fn opts(machine: &str) -> SyncOptions {
    SyncOptions {
        machine: machine.into(),
        user: format!("{machine}-user"),
        redact: true,
        prune: false,
        schema_version: schema::VERSION,
    }
}

fn sync(home: &Path, url: &str, o: &SyncOptions) -> SyncResult {
    Client::new(ClientOptions::default())
        .sync(env(home), url, o)
        .unwrap()
}

fn local_total(home: &Path) -> f64 {
    Client::new(ClientOptions::default())
        .total_cost(env(home), &CostOptions::default())
        .unwrap()
        .total_usd
}

fn local_sessions(home: &Path) -> usize {
    let client = Client::new(ClientOptions::default());
    let opts = agent_mux_sessions::options::ListOptions {
        limit: 100_000,
        ..Default::default()
    };
    client.list_all(env(home), &opts).unwrap().len()
}

fn one_f64(db: &mut postgres::Client, sql: &str) -> f64 {
    db.query_one(sql, &[])
        .unwrap()
        .get::<_, Option<f64>>(0)
        .unwrap_or(0.0)
}

fn one_i64(db: &mut postgres::Client, sql: &str) -> i64 {
    db.query_one(sql, &[]).unwrap().get(0)
}

/// Every session's stored rows agree with its stamp: as many message rows as pushed, numbered
/// 0..n, and nothing else (the primary keys already forbid duplicates).
fn assert_consistent(db: &mut postgres::Client) {
    let bad = one_i64(
        db,
        "SELECT count(*) FROM sessions s WHERE s.pushed_messages <> \
         (SELECT count(*) FROM messages m WHERE m.machine = s.machine AND m.unified_id = s.unified_id) \
         OR EXISTS (SELECT 1 FROM messages m WHERE m.machine = s.machine AND m.unified_id = s.unified_id \
                    AND m.idx >= s.pushed_messages)",
    );
    assert_eq!(
        bad, 0,
        "sessions whose message rows do not match their stamp"
    );
}

const APPENDED: &str = r#"{"parentUuid":"e647cb8f-74e6-4a5d-8dd2-7a65bd628881","isSidechain":false,"userType":"external","cwd":"/home/dev/src/api","sessionId":"90c192cf-d3ac-44af-8f21-ddb66cad4a26","version":"2.1.197","gitBranch":"main","type":"user","uuid":"0b9d7f7e-0000-4000-8000-000000000001","timestamp":"2026-10-07T00:20:00.000Z","message":{"role":"user","content":"zanzibar quokka appended later, with key AKIAQWERTYUIOPASDFGH"}}"#;

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn two_machines_add_up_to_their_local_totals_and_an_append_arrives_next_time() {
    let server = server();
    let url = fresh_db(&server, "two");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (machine_home(dir.path(), "a"), machine_home(dir.path(), "b"));
    let before = common::snapshot(&a);

    let ra = sync(&a, &url, &opts("alpha"));
    let rb = sync(&b, &url, &opts("beta"));
    assert_eq!(ra.schema_from, 0);
    assert_eq!(ra.schema_to, schema::VERSION);
    assert_eq!(rb.schema_from, schema::VERSION);
    let n = local_sessions(&a);
    assert!(n > 10, "the demo home has sessions");
    assert_eq!(ra.sessions as usize, n);
    assert_eq!(ra.skipped, 0);

    let mut db = connect(&url);
    let team = one_f64(&mut db, "SELECT sum(cost_usd) FROM usage");
    let (ta, tb) = (local_total(&a), local_total(&b));
    assert!(ta > 0.0);
    assert!(
        (team - (ta + tb)).abs() < 1e-6,
        "team {team} vs {ta} + {tb}"
    );
    let alpha = one_f64(
        &mut db,
        "SELECT sum(cost_usd) FROM usage WHERE machine = 'alpha'",
    );
    assert!((alpha - ta).abs() < 1e-6, "alpha {alpha} vs local {ta}");
    let view = one_f64(&mut db, "SELECT sum(cost_usd) FROM daily_cost");
    assert!((view - team).abs() < 1e-6);
    assert_eq!(
        one_i64(&mut db, "SELECT count(*) FROM sessions") as usize,
        2 * n
    );
    // Every message of the home is there: as many rows as `get` gives messages.
    let client = Client::new(ClientOptions::default());
    let s = client
        .get(env(&a), "claude", "90c192cf-d3ac-44af-8f21-ddb66cad4a26")
        .unwrap();
    let rows = one_i64(
        &mut db,
        "SELECT count(*) FROM messages WHERE machine = 'alpha' AND unified_id = 'claude:90c192cf-d3ac-44af-8f21-ddb66cad4a26'",
    );
    assert_eq!(rows as usize, s.messages.len());
    assert_consistent(&mut db);
    // Both machines' copies are found by the same search.
    let found = one_i64(
        &mut db,
        "SELECT count(DISTINCT machine) FROM messages WHERE tsv @@ to_tsquery('simple', 'checkout & flow')",
    );
    assert_eq!(found, 2);
    assert_eq!(
        common::snapshot(&a),
        before,
        "a sync writes nothing in the home"
    );

    // Nothing changed: nothing written.
    let again = sync(&a, &url, &opts("alpha"));
    assert_eq!(again.sessions, 0, "{again:?}");
    assert_eq!(again.unchanged as usize, n);

    // One message appended: only it is pushed, redacted.
    let file =
        a.join(".claude/projects/-home-dev-src-api/90c192cf-d3ac-44af-8f21-ddb66cad4a26.jsonl");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(APPENDED);
    text.push('\n');
    std::fs::write(&file, text).unwrap();
    let r = sync(&a, &url, &opts("alpha"));
    assert_eq!((r.sessions, r.appended), (1, 1), "{r:?}");
    assert!(r.messages >= 1 && r.messages <= 2, "{r:?}");
    let row = db
        .query_one(
            "SELECT tsv::text, message::text FROM messages WHERE machine = 'alpha' \
             AND tsv @@ 'zanzibar <-> quokka'::tsquery",
            &[],
        )
        .unwrap();
    let (words, json): (String, String) = (row.get(0), row.get(1));
    assert!(
        !words.contains("akiaqwertyuiopasdfgh") && words.contains("'redacted'"),
        "{words}"
    );
    assert!(
        !json.contains("AKIAQWERTYUIOPASDFGH") && json.contains("[REDACTED:"),
        "{json}"
    );
    assert_consistent(&mut db);
    let alpha = one_f64(
        &mut db,
        "SELECT sum(cost_usd) FROM usage WHERE machine = 'alpha'",
    );
    assert!((alpha - local_total(&a)).abs() < 1e-6);
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn an_upgrade_from_v1_keeps_the_data() {
    upgrade_from(1);
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn an_upgrade_from_v2_keeps_the_data() {
    upgrade_from(2);
}

/// A database an older amux (schema `from`) filled, synced by this one.
fn upgrade_from(from: i32) {
    let server = server();
    let url = fresh_db(&server, "upgrade");
    let dir = tempfile::tempdir().unwrap();
    let a = machine_home(dir.path(), "a");
    let old = SyncOptions {
        schema_version: from,
        ..opts("alpha")
    };
    let r1 = sync(&a, &url, &old);
    let mut db = connect(&url);
    assert_eq!(
        one_i64(&mut db, "SELECT max(version)::bigint FROM amux_schema"),
        from as i64
    );
    let messages = one_i64(&mut db, "SELECT count(*) FROM messages");
    let cost = one_f64(&mut db, "SELECT sum(cost_usd) FROM usage");
    assert!(messages > 0);
    let found = "SELECT count(*) FROM messages WHERE tsv @@ 'checkout & flow'::tsquery";
    let found_before = one_i64(&mut db, found);
    assert!(found_before > 0);

    // This amux: the schema goes to the last version and the rows stay, searchable. Version 3
    // stores the text once and makes the words itself: every session's messages are written
    // again by the machine's next sync (this one), to the same count.
    let r2 = sync(&a, &url, &opts("alpha"));
    assert_eq!((r2.schema_from, r2.schema_to), (from, schema::VERSION));
    assert_eq!(r2.sessions, r1.sessions, "{r2:?}");
    assert_eq!(r2.skipped, 0, "{r2:?}");
    assert_eq!(one_i64(&mut db, "SELECT count(*) FROM messages"), messages);
    assert_eq!(one_i64(&mut db, found), found_before);
    assert_consistent(&mut db);
    let text_column = one_i64(
        &mut db,
        "SELECT count(*) FROM information_schema.columns WHERE table_name = 'messages' AND column_name = 'text'",
    );
    assert_eq!(text_column, 0, "the text is stored once, in the message");
    assert!((one_f64(&mut db, "SELECT sum(cost_usd) FROM usage") - cost).abs() < 1e-9);
    let versions: Vec<i32> = db
        .query("SELECT version FROM amux_schema ORDER BY version", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, (1..=schema::VERSION).collect::<Vec<_>>());
    let again = sync(&a, &url, &opts("alpha"));
    assert_eq!(
        (again.sessions, again.unchanged),
        (0, r1.sessions),
        "{again:?}"
    );

    // v2's column works: a session gone from the home is marked, not removed.
    let file =
        a.join(".claude/projects/-home-dev-src-api/90c192cf-d3ac-44af-8f21-ddb66cad4a26.jsonl");
    std::fs::remove_file(&file).unwrap();
    let r3 = sync(&a, &url, &opts("alpha"));
    assert_eq!(r3.gone, 1, "{r3:?}");
    let marked = one_i64(
        &mut db,
        "SELECT count(*) FROM sessions WHERE deleted_at IS NOT NULL AND unified_id = 'claude:90c192cf-d3ac-44af-8f21-ddb66cad4a26'",
    );
    assert_eq!(marked, 1);
    // --prune removes it and its rows.
    let pruned = sync(
        &a,
        &url,
        &SyncOptions {
            prune: true,
            ..opts("alpha")
        },
    );
    assert_eq!(pruned.gone, 1);
    assert_eq!(
        one_i64(&mut db, "SELECT count(*) FROM messages WHERE unified_id = 'claude:90c192cf-d3ac-44af-8f21-ddb66cad4a26'"),
        0
    );
    assert!((one_f64(&mut db, "SELECT sum(cost_usd) FROM usage") - local_total(&a)).abs() < 1e-6);
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn a_newer_schema_is_refused() {
    let server = server();
    let url = fresh_db(&server, "newer");
    let dir = tempfile::tempdir().unwrap();
    let a = machine_home(dir.path(), "a");
    sync(&a, &url, &opts("alpha"));
    let mut db = connect(&url);
    db.execute("INSERT INTO amux_schema (version) VALUES (99)", &[])
        .unwrap();
    let e = Client::new(ClientOptions::default())
        .sync(env(&a), &url, &opts("alpha"))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ConfigError, "{e}");
    assert!(e.message.contains("99"), "{e}");
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn machines_syncing_at_once_and_one_machine_twice() {
    let server = server();
    let url = fresh_db(&server, "together");
    let dir = tempfile::tempdir().unwrap();
    let homes: Vec<PathBuf> = (0..3)
        .map(|i| machine_home(dir.path(), &format!("h{i}")))
        .collect();
    // Three machines into a database without a schema yet, and the first machine twice more.
    let names = ["m0", "m1", "m2", "m0", "m0"];
    std::thread::scope(|s| {
        for (i, name) in names.iter().enumerate() {
            let home = &homes[if *name == "m0" { 0 } else { i }];
            let url = &url;
            s.spawn(move || sync(home, url, &opts(name)));
        }
    });
    let mut db = connect(&url);
    assert_eq!(one_i64(&mut db, "SELECT count(*) FROM machines"), 3);
    let n = local_sessions(&homes[0]) as i64;
    assert_eq!(one_i64(&mut db, "SELECT count(*) FROM sessions"), 3 * n);
    let team = one_f64(&mut db, "SELECT sum(cost_usd) FROM usage");
    let locals: f64 = homes.iter().map(|h| local_total(h)).sum();
    assert!((team - locals).abs() < 1e-6, "{team} vs {locals}");
    assert_consistent(&mut db);
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn refused_credentials_and_a_server_gone_are_typed_and_never_show_the_password() {
    let server = server();
    let dir = tempfile::tempdir().unwrap();
    let a = machine_home(dir.path(), "a");
    let before = common::snapshot(&a);
    let client = Client::new(ClientOptions::default());

    let wrong = server.replacen("://amux:", "://amux:Wr0ngPassw0rd-", 1);
    assert_ne!(wrong, server, "the test server's URL names the role amux");
    let e = client.sync(env(&a), &wrong, &opts("alpha")).unwrap_err();
    assert_eq!(e.code, ErrorCode::AuthError, "{e}");
    assert!(!e.message.contains("Wr0ngPassw0rd"), "{e}");
    assert!(e.message.contains("amux@127.0.0.1"), "{e}");

    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let gone = format!("postgres://amux:S3cretGone@127.0.0.1:{port}/amux");
    let e = client.sync(env(&a), &gone, &opts("alpha")).unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert!(!e.message.contains("S3cretGone"), "{e}");
    assert!(e.message.contains(&format!("127.0.0.1:{port}")), "{e}");

    let e = client
        .sync(env(&a), &with_db(&server, "no_such_db"), &opts("alpha"))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ConfigError, "{e}");
    assert_eq!(common::snapshot(&a), before, "nothing local changed");
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn a_connection_dropped_mid_sync_leaves_whole_sessions_and_the_next_sync_completes() {
    let server = server();
    let url = fresh_db(&server, "dropped");
    let dir = tempfile::tempdir().unwrap();
    // A home large enough that the sync is still writing when its connection is cut.
    let home = dir.path().join("big");
    let gen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/gen_home.py");
    let ok = std::process::Command::new("python3")
        .arg(gen)
        .args([
            "--out",
            home.to_str().unwrap(),
            "--sessions",
            "300",
            "--seed",
            "3",
            "--scale",
            "3",
        ])
        .status()
        .unwrap();
    assert!(ok.success());
    let before = common::snapshot(&home);
    let tagged = format!("{url}?application_name=amux-drop-test");
    let cut = std::thread::scope(|s| {
        let killer = s.spawn(|| {
            let mut admin = connect(&url);
            for _ in 0..4000 {
                let n: i64 = admin
                    .query_one(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
                         WHERE application_name = 'amux-drop-test' AND query LIKE 'COPY messages%'",
                        &[],
                    )
                    .unwrap()
                    .get(0);
                if n > 0 {
                    return true;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            false
        });
        let r = Client::new(ClientOptions::default()).sync(env(&home), &tagged, &opts("alpha"));
        (r, killer.join().unwrap())
    });
    let (result, killed) = cut;
    assert!(killed, "the sync's connection was never seen writing");
    let e = result.unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert!(e.message.contains("lost"), "{e}");
    assert_eq!(common::snapshot(&home), before, "nothing local changed");
    let mut db = connect(&url);
    assert_consistent(&mut db);
    let partial = one_i64(&mut db, "SELECT count(*) FROM sessions");

    let r = sync(&home, &url, &opts("alpha"));
    assert_eq!(
        r.unchanged as i64, partial,
        "what was committed is not written again"
    );
    assert_consistent(&mut db);
    assert_eq!(
        one_i64(&mut db, "SELECT count(*) FROM sessions") as usize,
        local_sessions(&home)
    );
    let team = one_f64(&mut db, "SELECT sum(cost_usd) FROM usage");
    assert!((team - local_total(&home)).abs() < 1e-6 * team.max(1.0));
}
