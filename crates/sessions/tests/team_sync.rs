//! `sync` against a real PostgreSQL: the server `AGENT_MUX_TEST_PG` names (a URL whose role may
//! create databases; `scripts/cargo-test.mjs` starts a throw-away one when PostgreSQL is
//! installed). Each test works in a database of its own. Without a server the tests return at
//! once, saying so, and fail under AGENT_MUX_REQUIRE_FIXTURES=1.
use crate::common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use agent_mux_sessions::cost::report::{Report, Row, Totals};
use agent_mux_sessions::cost::CostSummary;
use agent_mux_sessions::error::ErrorCode;
use agent_mux_sessions::options::{
    Archived, Bound, CostOptions, Direction, Filters, GroupBy, Grouping, Period, ReportOptions,
};
use agent_mux_sessions::team::conn::Target;
use agent_mux_sessions::team::push::{SyncOptions, SyncResult};
use agent_mux_sessions::team::read::cost::report_rebuilt;
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
    assert_summarised(db);
}

/// The summary (from version 4) holds exactly what its definition makes of the usage and session
/// rows: no row missing, none left over, none with other sums or flags.
fn assert_summarised(db: &mut postgres::Client) {
    if one_i64(
        db,
        "SELECT count(*) FROM pg_class WHERE relname = 'usage_days'",
    ) == 0
    {
        return;
    }
    let drift = one_i64(
        db,
        "SELECT count(*) FROM ((TABLE usage_days EXCEPT ALL TABLE usage_days_of) \
         UNION ALL (TABLE usage_days_of EXCEPT ALL TABLE usage_days)) d",
    );
    assert_eq!(drift, 0, "summary rows that differ from the usage rows");
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

/// `env` with the machine's time zone.
fn env_in(home: &Path, tz: &str) -> Env {
    let mut e = env(home);
    e.set("TZ", tz);
    e
}

/// Two cost totals agree: the same sums (to rounding: the pieces are added in another order),
/// sessions, runs and groups.
fn assert_same_cost(a: &CostSummary, b: &CostSummary, what: &str) {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(1.0);
    assert!(
        close(a.total_usd, b.total_usd),
        "{what}: {} vs {}",
        a.total_usd,
        b.total_usd
    );
    let counts = |c: &CostSummary| {
        (
            c.input_tokens,
            c.output_tokens,
            c.thinking_tokens,
            c.cached_tokens,
            c.cache_write_tokens,
        )
    };
    assert_eq!(counts(a), counts(b), "{what}");
    assert_eq!(
        (a.session_count, a.run_count),
        (b.session_count, b.run_count),
        "{what}"
    );
    let (ga, gb) = (
        a.breakdowns.clone().unwrap_or_default(),
        b.breakdowns.clone().unwrap_or_default(),
    );
    assert_eq!(
        ga.keys().collect::<Vec<_>>(),
        gb.keys().collect::<Vec<_>>(),
        "{what}"
    );
    for (k, x) in &ga {
        let y = &gb[k];
        assert!(
            close(x.total_usd, y.total_usd),
            "{what} {k}: {} vs {}",
            x.total_usd,
            y.total_usd
        );
        assert_eq!(
            (
                x.input_tokens,
                x.output_tokens,
                x.thinking_tokens,
                x.cached_tokens,
                x.session_count
            ),
            (
                y.input_tokens,
                y.output_tokens,
                y.thinking_tokens,
                y.cached_tokens,
                y.session_count
            ),
            "{what} {k}"
        );
    }
}

/// The totals of several machines added up as the team's are: sums, sessions and each group's.
fn added(all: &[CostSummary]) -> CostSummary {
    let mut out = CostSummary::default();
    for c in all {
        out.total_usd += c.total_usd;
        out.input_tokens += c.input_tokens;
        out.output_tokens += c.output_tokens;
        out.thinking_tokens += c.thinking_tokens;
        out.cached_tokens += c.cached_tokens;
        out.cache_write_tokens += c.cache_write_tokens;
        out.session_count += c.session_count;
        out.run_count += c.run_count;
        if let Some(groups) = &c.breakdowns {
            let mine = out.breakdowns.get_or_insert_with(Default::default);
            for (k, g) in groups {
                let m = mine.entry(k.clone()).or_insert_with(|| {
                    agent_mux_sessions::cost::CostBreakdown {
                        key: k.clone(),
                        ..Default::default()
                    }
                });
                m.total_usd += g.total_usd;
                m.input_tokens += g.input_tokens;
                m.output_tokens += g.output_tokens;
                m.thinking_tokens += g.thinking_tokens;
                m.cached_tokens += g.cached_tokens;
                m.cache_write_tokens += g.cache_write_tokens;
                m.session_count += g.session_count;
            }
        }
    }
    out
}

/// Whole-hour, half-hour and quarter-hour offsets: each machine's days are its own.
const ZONES: [(&str, &str); 3] = [
    ("alpha", "Asia/Kolkata"),
    ("beta", "America/New_York"),
    ("gamma", "Asia/Kathmandu"),
];

/// A copy of the demo home per machine of `ZONES`, each synced into `url` in its zone.
fn sync_zoned_machines(dir: &Path, url: &str) -> Vec<PathBuf> {
    let homes: Vec<PathBuf> = ZONES.iter().map(|(m, _)| machine_home(dir, m)).collect();
    for ((machine, tz), home) in ZONES.iter().zip(&homes) {
        Client::new(ClientOptions::default())
            .sync(env_in(home, tz), url, &opts(machine))
            .unwrap();
    }
    homes
}

const GROUPINGS: [Option<GroupBy>; 9] = [
    None,
    Some(GroupBy::Day),
    Some(GroupBy::Week),
    Some(GroupBy::Month),
    Some(GroupBy::Model),
    Some(GroupBy::Agent),
    Some(GroupBy::Project),
    Some(GroupBy::Session),
    Some(GroupBy::Tag),
];

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn the_team_cost_from_the_summary_is_the_exact_one_and_each_machines_own_in_its_zone() {
    let server = server();
    let url = fresh_db(&server, "summary");
    let dir = tempfile::tempdir().unwrap();

    let homes = sync_zoned_machines(dir.path(), &url);
    let mut db = connect(&url);
    assert_consistent(&mut db);
    let team = Client::new(ClientOptions {
        source: Some(url.clone()),
        ..Default::default()
    });
    let exact_team = agent_mux_sessions::team::read::Team::new(&url);
    let team_env = env(&homes[0]);
    let summary = |o: &CostOptions| team.total_cost(team_env.clone(), o).unwrap();
    let exact = |o: &CostOptions| {
        agent_mux_sessions::team::read::cost::total_cost_exact(&exact_team, &team_env, o).unwrap()
    };
    let local = |i: usize, o: &CostOptions| {
        Client::new(ClientOptions::default())
            .total_cost(env_in(&homes[i], ZONES[i].1), o)
            .unwrap()
    };

    // A day the sessions were created on, for since/until.
    let middle: chrono::DateTime<chrono::Utc> = db
        .query_one(
            "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY created_at) FROM sessions",
            &[],
        )
        .unwrap()
        .get(0);
    let filters = [
        ("none", Filters::default()),
        (
            "machine",
            Filters {
                machine: Some("beta".into()),
                ..Default::default()
            },
        ),
        (
            "user",
            Filters {
                user: Some("gamma-user".into()),
                ..Default::default()
            },
        ),
        (
            "since",
            Filters {
                since: Some(middle),
                ..Default::default()
            },
        ),
        (
            "until",
            Filters {
                until: Some(middle),
                ..Default::default()
            },
        ),
        // What the summary does not hold: the exact path answers.
        (
            "model",
            Filters {
                model: Some("claude-sonnet-4-5".into()),
                ..Default::default()
            },
        ),
        (
            "cwd",
            Filters {
                cwd: Some("/home/dev/src/api".into()),
                ..Default::default()
            },
        ),
        (
            "archived",
            Filters {
                archived: Archived::Exclude,
                ..Default::default()
            },
        ),
        (
            "tags",
            Filters {
                tags: Some(vec!["release".into()]),
                ..Default::default()
            },
        ),
    ];
    let mut nonzero = 0;
    for (name, f) in &filters {
        for agent in [None, Some("claude".to_string())] {
            for group_by in GROUPINGS {
                let o = CostOptions {
                    agent: agent.clone(),
                    filters: f.clone(),
                    group_by,
                    start_of_week: Some(chrono::Weekday::Mon),
                };
                let what = format!("{name} {agent:?} {group_by:?}");
                let s = summary(&o);
                assert_same_cost(&s, &exact(&o), &what);
                nonzero += (s.total_usd > 0.0) as usize;
            }
        }
    }
    assert!(
        nonzero > 100,
        "the filters leave costs to compare ({nonzero})"
    );

    // Each machine's share is what `amux cost` says there, on its own calendar; the team's is
    // the three added up.
    for group_by in GROUPINGS {
        let mut locals = Vec::new();
        for (i, (machine, _)) in ZONES.iter().enumerate() {
            let o = CostOptions {
                group_by,
                ..Default::default()
            };
            let mine = local(i, &o);
            let theirs = summary(&CostOptions {
                filters: Filters {
                    machine: Some(machine.to_string()),
                    ..Default::default()
                },
                ..o.clone()
            });
            assert_same_cost(&theirs, &mine, &format!("{machine} {group_by:?}"));
            locals.push(mine);
        }
        let o = CostOptions {
            group_by,
            ..Default::default()
        };
        assert_same_cost(&summary(&o), &added(&locals), &format!("team {group_by:?}"));
    }
    // The zones moved some usage to other days: the machines' days are not all the same.
    let by_day = |i: usize| {
        local(
            i,
            &CostOptions {
                group_by: Some(GroupBy::Day),
                ..Default::default()
            },
        )
        .breakdowns
        .unwrap()
    };
    let days: Vec<_> = (0..3)
        .map(|i| by_day(i).into_keys().collect::<Vec<_>>())
        .collect();
    assert!(days[0] != days[1] || days[1] != days[2], "{days:?}");

    // The dashboards' view reads the summary: the same as the usage rows grouped.
    let drift = one_i64(
        &mut db,
        "SELECT count(*) FROM (SELECT day, os_user, machine, project, agent, model, \
           round(sum(cost_usd)::numeric, 9), sum(input_tokens)::bigint, count(DISTINCT unified_id) \
           FROM usage GROUP BY 1, 2, 3, 4, 5, 6 \
         EXCEPT SELECT day, os_user, machine, project, agent, model, round(cost_usd::numeric, 9), \
           input_tokens, session_count FROM daily_cost) d",
    );
    assert_eq!(
        drift, 0,
        "daily_cost rows that are not the usage rows' sums"
    );
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn an_upgrade_from_v3_summarises_every_machines_rows_and_writes_only_sessions_without_usage() {
    let server = server();
    let url = fresh_db(&server, "upgrade3");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (machine_home(dir.path(), "a"), machine_home(dir.path(), "b"));
    let v3 = |m: &str| SyncOptions {
        schema_version: 3,
        ..opts(m)
    };
    let tz = "Asia/Kolkata";
    let sync_in = |home: &Path, o: &SyncOptions| {
        Client::new(ClientOptions::default())
            .sync(env_in(home, tz), &url, o)
            .unwrap()
    };
    let first = sync_in(&a, &v3("alpha"));
    sync_in(&b, &v3("beta"));
    let mut db = connect(&url);
    let usage = one_i64(&mut db, "SELECT count(*) FROM usage");
    let cost = one_f64(&mut db, "SELECT sum(cost_usd) FROM usage");
    let without_usage = one_i64(
        &mut db,
        "SELECT count(*) FROM sessions s WHERE machine = 'alpha' AND NOT EXISTS \
         (SELECT 1 FROM usage u WHERE u.machine = s.machine AND u.unified_id = s.unified_id)",
    );
    assert!(
        without_usage > 0,
        "the demo home has sessions without usage"
    );

    // This amux upgrades the schema: the summary is made from both machines' rows at once.
    let r = sync_in(&a, &opts("alpha"));
    assert_eq!((r.schema_from, r.schema_to), (3, schema::VERSION));
    assert_eq!(one_i64(&mut db, "SELECT count(*) FROM usage"), usage);
    assert!((one_f64(&mut db, "SELECT sum(cost_usd) FROM usage_days") - cost).abs() < 1e-6);
    assert_summarised(&mut db);
    // Only the sessions without usage are written again (for the local day they count on), and
    // none of their messages.
    assert_eq!((r.sessions as i64, r.messages), (without_usage, 0), "{r:?}");
    assert_eq!(
        one_i64(&mut db, "SELECT count(*) FROM sessions WHERE machine = 'alpha' AND created_day IS NULL \
             AND NOT EXISTS (SELECT 1 FROM usage u WHERE u.machine = sessions.machine AND u.unified_id = sessions.unified_id)"),
        0
    );
    assert!(first.sessions > r.sessions);
    // The machine synced since counts as it does locally; beta (not synced since) from its rows.
    let team = Client::new(ClientOptions {
        source: Some(url.clone()),
        ..Default::default()
    });
    let exact_team = agent_mux_sessions::team::read::Team::new(&url);
    for group_by in GROUPINGS {
        let o = CostOptions {
            filters: Filters {
                machine: Some("alpha".into()),
                ..Default::default()
            },
            group_by,
            ..Default::default()
        };
        let s = team.total_cost(env(&a), &o).unwrap();
        let local = Client::new(ClientOptions::default())
            .total_cost(
                env_in(&a, tz),
                &CostOptions {
                    group_by,
                    ..Default::default()
                },
            )
            .unwrap();
        assert_same_cost(&s, &local, &format!("alpha {group_by:?}"));
        let all = CostOptions {
            group_by,
            ..Default::default()
        };
        let exact =
            agent_mux_sessions::team::read::cost::total_cost_exact(&exact_team, &env(&a), &all)
                .unwrap();
        assert_same_cost(
            &team.total_cost(env(&a), &all).unwrap(),
            &exact,
            &format!("all {group_by:?}"),
        );
    }
    let again = sync_in(&a, &opts("alpha"));
    assert_eq!(again.sessions, 0, "{again:?}");
    assert_summarised(&mut db);
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn a_reader_granted_an_older_versions_tables_gets_the_same_cost_from_the_usage_rows() {
    let server = server();
    let url = fresh_db(&server, "grants");
    let dir = tempfile::tempdir().unwrap();
    let a = machine_home(dir.path(), "a");
    sync(&a, &url, &opts("alpha"));
    let mut db = connect(&url);
    // The reading role of version 3's docs: no grant on the summary.
    let role = format!("old_reader_{}", std::process::id());
    db.batch_execute(&format!(
        "CREATE ROLE {role} LOGIN PASSWORD 'pw'; \
         GRANT SELECT ON amux_schema, machines, sessions, messages, usage, daily_cost TO {role}"
    ))
    .unwrap();
    let (scheme, rest) = url.split_once("://").unwrap();
    let reader_url = format!("{scheme}://{role}:pw@{}", rest.split_once('@').unwrap().1);
    let read = |u: &str, group_by| {
        Client::new(ClientOptions {
            source: Some(u.to_string()),
            ..Default::default()
        })
        .total_cost(
            env(&a),
            &CostOptions {
                group_by,
                ..Default::default()
            },
        )
        .unwrap()
    };
    for group_by in [None, Some(GroupBy::Day), Some(GroupBy::Model)] {
        let owner = read(&url, group_by);
        assert!(owner.total_usd > 0.0);
        assert_same_cost(
            &read(&reader_url, group_by),
            &owner,
            &format!("{group_by:?}"),
        );
    }
    db.batch_execute(&format!(
        "REASSIGN OWNED BY {role} TO CURRENT_USER; DROP OWNED BY {role}"
    ))
    .unwrap();
    // Roles are the server's: leave none behind.
    connect(&server)
        .batch_execute(&format!("DROP ROLE {role}"))
        .unwrap();
}

/// The team search's hits, as `machine unified_id` in their order.
fn team_hits(url: &str, home: &Path, text: &str, limit: usize) -> Vec<String> {
    let team = Client::new(ClientOptions {
        source: Some(url.to_string()),
        ..Default::default()
    });
    let mut q = agent_mux_sessions::options::SearchQuery::new(text);
    q.limit = limit;
    (team.search(env(home), &q).unwrap().iter())
        .map(|h| format!("{} {}", h.machine.as_deref().unwrap_or(""), h.unified_id))
        .collect()
}

/// The local search's sessions (unified ids, sorted).
fn local_hits(home: &Path, text: &str) -> Vec<String> {
    let mut q = agent_mux_sessions::options::SearchQuery::new(text);
    q.limit = 1000;
    let mut ids: Vec<String> = (Client::new(ClientOptions::default())
        .search(env(home), &q)
        .unwrap()
        .into_iter())
    .map(|h| h.unified_id)
    .collect();
    ids.sort();
    ids
}

/// CJK texts (one character, a pair, longer ones, one whose pairs are all in a session that
/// does not hold it, one with a space) and phrases (one whose words are in a session but not
/// together), alone and combined.
const CJK_AND_PHRASES: &[&str] = &[
    "大别山",
    "大别",
    "山",
    "大别山徒步",
    "的注意天",
    "\"大别山 主峰\"",
    "\"flaky test\"",
    "\"test flaky\"",
    "大别山 NOT 徒步",
    "\"flaky test\" OR 大别山徒步",
    "kubernetes NOT \"flaky test\"",
];

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn an_upgrade_from_v4_gives_each_session_its_cjk_grams_and_search_finds_what_it_found() {
    let server = server();
    let url = fresh_db(&server, "upgrade4");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (machine_home(dir.path(), "a"), machine_home(dir.path(), "b"));
    let v4 = SyncOptions {
        schema_version: 4,
        ..opts("alpha")
    };
    let first = sync(&a, &url, &v4);
    let before: Vec<Vec<String>> = (CJK_AND_PHRASES.iter())
        .map(|t| team_hits(&url, &a, t, 1000))
        .collect();
    for (text, hits) in CJK_AND_PHRASES.iter().zip(&before) {
        let mut ids: Vec<String> = hits.iter().map(|h| h[6..].to_string()).collect();
        ids.sort();
        // (A NOT of CJK text is left out: the local search finds a session holding both.)
        if !text.contains("NOT 徒步") {
            assert_eq!(ids, local_hits(&a, text), "{text} on version 4");
        }
    }
    assert!(before[0].len() > 1 && before[6].len() > 1, "{before:?}");
    assert!(before[4].is_empty(), "no session holds 的注意天");

    // The upgrade makes the grams from the stored rows: nothing is written again.
    let r = sync(&a, &url, &opts("alpha"));
    assert_eq!((r.schema_from, r.schema_to), (4, schema::VERSION));
    assert_eq!((r.sessions, r.messages), (0, 0), "{r:?}");
    assert_eq!(r.unchanged, first.sessions, "{r:?}");
    let mut db = connect(&url);
    assert_eq!(
        one_i64(
            &mut db,
            "SELECT count(*) FROM pg_class WHERE relname = 'messages_cjk_trgm'"
        ),
        0
    );
    // 的注意天's pairs are all in a session that does not hold it: it is a candidate, checked.
    assert!(
        one_i64(
            &mut db,
            "SELECT count(*) FROM sessions WHERE words @@ '的注 & 注意 & 意天'::tsquery"
        ) > 0
    );
    // The grams the upgrade made are the ones a sync of this version makes.
    sync(&b, &url, &opts("beta"));
    let pairs = one_i64(
        &mut db,
        "SELECT count(*) FROM sessions x JOIN sessions y USING (unified_id) \
         WHERE x.machine = 'alpha' AND y.machine = 'beta' AND x.words = y.words",
    );
    assert_eq!(pairs as usize, first.sessions as usize);
    assert!(
        one_i64(
            &mut db,
            "SELECT count(*) FROM sessions WHERE machine = 'beta' AND words @@ '大别 & 别山'::tsquery"
        ) > 0
    );

    // The same hits in the same order, on each machine; every cut is the first hits.
    for (text, was) in CJK_AND_PHRASES.iter().zip(&before) {
        let all = team_hits(&url, &a, text, 1000);
        let on = |m: &str| -> Vec<String> {
            (all.iter())
                .filter(|h| h.starts_with(m))
                .map(|h| h[m.len() + 1..].to_string())
                .collect()
        };
        let was: Vec<String> = was.iter().map(|h| h[6..].to_string()).collect();
        assert_eq!(on("alpha"), was, "{text}");
        assert_eq!(on("beta"), was, "{text}");
        for limit in 1..all.len().min(6) {
            assert_eq!(
                team_hits(&url, &a, text, limit),
                all[..limit],
                "{text} cut to {limit}"
            );
        }
    }
}

/// Two period reports agree: the same rows (keys, token counts, sessions, agents, models), their
/// costs to rounding (the database adds the pieces in another order), the same totals and the
/// same sessions without usage.
fn assert_same_report(a: &Report, b: &Report, what: &str) {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(1.0);
    let key = |r: &Row| (r.date.clone(), r.week.clone(), r.month.clone());
    assert_eq!(
        a.rows.iter().map(key).collect::<Vec<_>>(),
        b.rows.iter().map(key).collect::<Vec<_>>(),
        "{what}: the periods"
    );
    let counted = |t: &Totals| {
        (
            t.input_tokens,
            t.output_tokens,
            t.cache_creation_tokens,
            t.cache_read_tokens,
            t.total_tokens,
            t.thinking_tokens,
        )
    };
    for (x, y) in a.rows.iter().zip(&b.rows) {
        let at = format!("{what} {:?}", key(x));
        assert_eq!(counted(&x.usage), counted(&y.usage), "{at}");
        assert!(
            close(x.usage.total_cost, y.usage.total_cost),
            "{at}: {} vs {}",
            x.usage.total_cost,
            y.usage.total_cost
        );
        assert_eq!(
            (&x.models_used, &x.agents, x.session_count),
            (&y.models_used, &y.agents, y.session_count),
            "{at}"
        );
        let models = |r: &Row| {
            let mut m: Vec<_> = (r.model_breakdowns.iter())
                .map(|b| {
                    (
                        b.model_name.clone(),
                        b.agent.clone(),
                        b.input_tokens,
                        b.output_tokens,
                        b.cache_read_tokens,
                        b.cache_creation_tokens,
                        b.thinking_tokens,
                        b.cost,
                    )
                })
                .collect();
            m.sort_by(|p, q| (&p.0, &p.1).cmp(&(&q.0, &q.1)));
            m
        };
        let (mx, my) = (models(x), models(y));
        assert_eq!(mx.len(), my.len(), "{at}");
        for (p, q) in mx.iter().zip(&my) {
            assert_eq!(
                (&p.0, &p.1, p.2, p.3, p.4, p.5, p.6),
                (&q.0, &q.1, q.2, q.3, q.4, q.5, q.6),
                "{at}"
            );
            assert!(close(p.7, q.7), "{at} {}: {} vs {}", p.0, p.7, q.7);
        }
    }
    assert_eq!(counted(&a.totals), counted(&b.totals), "{what}: totals");
    assert!(
        close(a.totals.total_cost, b.totals.total_cost),
        "{what}: totals"
    );
    assert_eq!(a.unpriced_models, b.unpriced_models, "{what}");
    assert_eq!(a.sessions_without_usage, b.sessions_without_usage, "{what}");
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
#[cfg_attr(all(no_shared, not(no_pg)), ignore = "needs ../shared/fixtures/real")]
fn the_team_period_reports_summed_in_the_database_are_the_rebuilt_ones_in_every_zone() {
    let server = server();
    let url = fresh_db(&server, "periods");
    let dir = tempfile::tempdir().unwrap();
    let homes = sync_zoned_machines(dir.path(), &url);
    // A fourth machine holds the real captures of Claude Code and Codex, read in place.
    let mut real = ClientOptions::default();
    for agent in ["claude", "codex"] {
        let at = common::real_fixtures().join(agent);
        real.session_dirs.insert(agent.into(), at);
    }
    let empty = dir.path().join("real");
    std::fs::create_dir_all(&empty).unwrap();
    Client::new(real.clone())
        .sync(env(&empty), &url, &opts("real"))
        .unwrap();

    let mut db = connect(&url);
    assert_consistent(&mut db);
    assert!(one_i64(&mut db, "SELECT count(*) FROM usage WHERE machine = 'real'") > 0);
    // Sessions that went on past midnight: the first usage row of some of alpha's sessions is
    // moved 11 hours on (the summary made again, as a sync would). Their summary rows span two
    // UTC days: the reports sort their usage rows one by one, where the others are added whole.
    db.batch_execute(
        "UPDATE usage SET at = at + interval '11 hours' WHERE machine = 'alpha' AND n = 0 \
           AND at IS NOT NULL AND unified_id IN (SELECT unified_id FROM sessions \
             WHERE machine = 'alpha' ORDER BY unified_id LIMIT 12); \
         DELETE FROM usage_days; INSERT INTO usage_days SELECT * FROM usage_days_of",
    )
    .unwrap();
    assert_summarised(&mut db);
    let spanning = one_i64(
        &mut db,
        "SELECT count(*) FROM usage_days WHERE (to_timestamp(first_at_ms / 1000.0) AT TIME ZONE 'UTC')::date \
         <> (to_timestamp(last_at_ms / 1000.0) AT TIME ZONE 'UTC')::date",
    );
    assert!(spanning > 0, "summary rows across a UTC midnight");
    let (middle, model): (chrono::DateTime<chrono::Utc>, String) = {
        let r = db
            .query_one(
                "SELECT (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY at) FROM usage), \
                 (SELECT btrim(model) FROM usage GROUP BY 1 ORDER BY count(*) DESC LIMIT 1)",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    // A session without usage, and one archived, so that both counts are compared.
    let archived = db
        .execute(
            "UPDATE sessions SET archived = true WHERE unified_id IN \
             (SELECT unified_id FROM sessions WHERE machine = 'beta' ORDER BY unified_id LIMIT 3) \
             AND machine = 'beta'",
            &[],
        )
        .unwrap();
    assert_eq!(archived, 3);
    let without = one_i64(
        &mut db,
        "SELECT count(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM usage u \
         WHERE u.machine = s.machine AND u.unified_id = s.unified_id)",
    );
    assert!(without > 0, "sessions without usage to count");

    let team = Client::new(ClientOptions {
        source: Some(url.clone()),
        ..Default::default()
    });
    let rebuilt_team = agent_mux_sessions::team::read::Team::new(&url);
    let periods = [
        Period::Day,
        Period::Week(chrono::Weekday::Mon),
        Period::Week(chrono::Weekday::Sun),
        Period::Month,
    ];
    // Whole-hour zones, half- and quarter-hour offsets, and summer time on a half hour.
    let calendars = [
        "UTC",
        "Asia/Kathmandu",
        "America/St_Johns",
        "Australia/Lord_Howe",
        "Pacific/Chatham",
        "America/Los_Angeles",
    ];
    let day = middle.date_naive();
    type Shape<'a> = Box<dyn Fn(&mut ReportOptions) + 'a>;
    let shapes: Vec<(&str, Shape)> = vec![
        ("all", Box::new(|_: &mut ReportOptions| {})),
        (
            "machine",
            Box::new(|o: &mut ReportOptions| o.machine = Some("beta".into())),
        ),
        (
            "user",
            Box::new(|o: &mut ReportOptions| o.user = Some("gamma-user".into())),
        ),
        (
            "agent",
            Box::new(|o: &mut ReportOptions| o.agent = Some("claude".into())),
        ),
        (
            "since",
            Box::new(|o: &mut ReportOptions| o.since = Some(Bound::At(middle))),
        ),
        (
            "until a day",
            Box::new(|o: &mut ReportOptions| o.until = Some(Bound::Date(day))),
        ),
        (
            "a window",
            Box::new(|o: &mut ReportOptions| {
                o.since = Some(Bound::Date(day - chrono::Days::new(20)));
                o.until = Some(Bound::At(middle));
            }),
        ),
        ("last 3", Box::new(|o: &mut ReportOptions| o.last = Some(3))),
        (
            "archived only",
            Box::new(|o: &mut ReportOptions| o.archived = Archived::Only),
        ),
        (
            "archived left out",
            Box::new(|o: &mut ReportOptions| o.archived = Archived::Exclude),
        ),
        (
            "newest 2",
            Box::new(|o: &mut ReportOptions| {
                o.order = Some(Direction::Desc);
                o.limit = Some(2);
            }),
        ),
    ];
    let mut rows = 0;
    for zone in calendars {
        for p in periods {
            for (name, shape) in &shapes {
                let mut o = ReportOptions::new(Grouping::Period(p));
                shape(&mut o);
                o.timezone = Some(zone.into());
                let mut by_model = o.clone();
                by_model.model = Some(model.clone());
                for o in [o, by_model] {
                    let what = format!("{zone} {p:?} {name} model {:?}", o.model);
                    let env = env(&homes[0]);
                    let summed = team.cost_report(env.clone(), &o).unwrap();
                    let who = Filters {
                        machine: o.machine.clone(),
                        user: o.user.clone(),
                        ..Default::default()
                    };
                    let rebuilt = report_rebuilt(&rebuilt_team, &team.context(env), &o, &who)
                        .unwrap()
                        .into_report();
                    assert_same_report(&summed, &rebuilt, &what);
                    rows += summed.rows.len();
                }
            }
        }
    }
    assert!(rows > 1000, "the reports have rows to compare ({rows})");
    // The real captures' sessions count on their own days, as on their machine.
    let real_only = ReportOptions {
        machine: Some("real".into()),
        timezone: Some("UTC".into()),
        ..ReportOptions::new(Grouping::Period(Period::Day))
    };
    let theirs = team.cost_report(env(&empty), &real_only).unwrap();
    let local_only = ReportOptions {
        timezone: Some("UTC".into()),
        ..ReportOptions::new(Grouping::Period(Period::Day))
    };
    let mut mine = Client::new(real)
        .cost_report(env(&empty), &local_only)
        .unwrap();
    assert!(!mine.rows.is_empty());
    // A model without a price syncs at $0: the team database does not know it as unpriced.
    mine.unpriced_models.clear();
    assert_same_report(&theirs, &mine, "the real captures");
}

#[test]
#[cfg_attr(
    no_pg,
    ignore = "no PostgreSQL: run through scripts/cargo-test.mjs, which starts one where initdb is found"
)]
fn an_upgrade_from_v5_gives_each_summary_row_its_moments_and_the_period_reports_stay_the_same() {
    let server = server();
    let url = fresh_db(&server, "upgrade5");
    let dir = tempfile::tempdir().unwrap();
    let a = machine_home(dir.path(), "a");
    let b = machine_home(dir.path(), "b");
    for (home, machine, tz) in [
        (&a, "alpha", "Asia/Kolkata"),
        (&b, "beta", "America/New_York"),
    ] {
        let old = SyncOptions {
            schema_version: 5,
            ..opts(machine)
        };
        Client::new(ClientOptions::default())
            .sync(env_in(home, tz), &url, &old)
            .unwrap();
    }
    let mut db = connect(&url);
    let spans = "SELECT count(*) FROM information_schema.columns WHERE table_name = 'usage_days' \
                 AND column_name IN ('first_at_ms', 'last_at_ms')";
    assert_eq!(one_i64(&mut db, spans), 0);
    let team = Client::new(ClientOptions {
        source: Some(url.clone()),
        ..Default::default()
    });
    let report = |p: Period, zone: &str| {
        let o = ReportOptions {
            timezone: Some(zone.into()),
            ..ReportOptions::new(Grouping::Period(p))
        };
        team.cost_report(env(&a), &o).unwrap()
    };
    let shapes = [
        (Period::Day, "Asia/Kathmandu"),
        (Period::Week(chrono::Weekday::Mon), "UTC"),
        (Period::Month, "Pacific/Chatham"),
    ];
    // Before: a version 5 database has no moments, and the reports are rebuilt.
    let before: Vec<Report> = shapes.iter().map(|(p, z)| report(*p, z)).collect();
    assert!(before.iter().all(|r| !r.rows.is_empty()));

    // This amux upgrades it: every summary row has its moments, as the summary's definition
    // makes them, though no session changed and none is written again.
    let r = Client::new(ClientOptions::default())
        .sync(env_in(&a, "Asia/Kolkata"), &url, &opts("alpha"))
        .unwrap();
    assert_eq!((r.schema_from, r.schema_to), (5, schema::VERSION));
    assert_eq!(r.sessions, 0, "{r:?}");
    assert_eq!(one_i64(&mut db, spans), 2);
    assert_summarised(&mut db);
    assert_eq!(
        one_i64(
            &mut db,
            "SELECT count(*) FROM usage_days WHERE pieces > 0 AND (first_at_ms IS NULL \
             OR last_at_ms < first_at_ms)"
        ),
        0
    );
    assert!(one_i64(&mut db, "SELECT count(*) FROM usage_days WHERE pieces > 0") > 0);
    // After: summed in the database, the same reports.
    for ((p, z), was) in shapes.iter().zip(&before) {
        assert_same_report(&report(*p, z), was, &format!("{p:?} {z}"));
    }
}
