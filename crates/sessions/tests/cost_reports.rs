//! The cost reports (`cost.daily|weekly|monthly|sessions|blocks`) over Claude homes written here
//! line by line, each read both through the stores and through the index: calendar periods in
//! several zones and week starts, billing blocks with their gaps and the active block, responses
//! that a resumed transcript or a subagent records twice, price overrides; then the demo home and
//! the real captures, where every report must add up to what `totalCost` and `list` say.
use crate::common;

use std::path::Path;

use agent_mux_sessions::context::CacheSetting;
use agent_mux_sessions::cost::blocks::Blocks;
use agent_mux_sessions::cost::report::Report;
use agent_mux_sessions::model::parse_time_str;
use agent_mux_sessions::options::{
    BlocksOptions, Bound, Direction, Grouping, Period, ReportOptions, TokenLimit,
};
use agent_mux_sessions::{Client, ClientOptions, Env};
use agent_mux_wire::cost_options;
use chrono::Weekday;
use serde_json::json;

/// One assistant response: time, message id, request id, model, (input, output, cache write,
/// cache read).
struct Response<'a> {
    at: &'a str,
    id: &'a str,
    model: &'a str,
    tokens: (u64, u64, u64, u64),
}

fn r<'a>(at: &'a str, id: &'a str, tokens: (u64, u64, u64, u64)) -> Response<'a> {
    Response {
        at,
        id,
        model: "m-test",
        tokens,
    }
}

/// A Claude transcript: a prompt, then each response as Claude Code writes it, under
/// `session_id` (a replay names its parent), as a subagent's sidechain when `agent` is given.
fn transcript(session_id: &str, responses: &[Response], agent: Option<&str>) -> String {
    let mut out = String::new();
    let first = responses.first().map_or("2026-01-01T00:00:00Z", |x| x.at);
    let side = agent.map_or(json!({}), |a| json!({"isSidechain": true, "agentId": a}));
    let mut line = |v: serde_json::Value| {
        let mut v = v;
        if let (Some(o), Some(s)) = (v.as_object_mut(), side.as_object()) {
            o.extend(s.clone());
        }
        out.push_str(&v.to_string());
        out.push('\n');
    };
    line(
        json!({"type": "user", "sessionId": session_id, "timestamp": first, "cwd": "/w/p",
        "uuid": format!("u-{session_id}"), "message": {"role": "user", "content": "do it"}}),
    );
    for x in responses {
        let (input, output, write, read) = x.tokens;
        line(
            json!({"type": "assistant", "sessionId": session_id, "timestamp": x.at, "cwd": "/w/p",
            "uuid": format!("a-{}", x.id), "requestId": format!("req-{}", x.id),
            "message": {"id": x.id, "model": x.model, "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": input, "output_tokens": output,
                    "cache_creation_input_tokens": write, "cache_read_input_tokens": read}}}),
        );
    }
    out
}

const PROJECT: &str = ".claude/projects/-w-p";

fn session(home: &Path, id: &str, responses: &[Response]) {
    common::write(
        home,
        &format!("{PROJECT}/{id}.jsonl"),
        transcript(id, responses, None),
    );
}

/// $1 per million of each kind of token, so costs read as token counts.
fn flat_pricing() -> serde_json::Value {
    json!({"m-test": {"input": 1.0, "output": 1.0, "cacheRead": 1.0, "cacheWrite": 1.0}})
}

/// A client over `home` with the flat prices, through the stores (`indexed` false) or the index.
fn client(indexed: bool, cache: &Path) -> Client {
    Client::new(ClientOptions {
        pricing: Some(flat_pricing()),
        cache: if indexed {
            CacheSetting::Dir(cache.to_path_buf())
        } else {
            CacheSetting::Off
        },
        ..Default::default()
    })
}

fn env(home: &Path, tz: &str, now: Option<&str>) -> Env {
    let env = Env::from_pairs([("HOME", home.to_str().unwrap()), ("TZ", tz)]);
    match now {
        Some(t) => env.at(parse_time_str(t).unwrap()),
        None => env,
    }
}

/// The report read through the stores and through the index, which must agree.
fn report(home: &Path, tz: &str, opts: &ReportOptions) -> Report {
    let cache = tempfile::tempdir().unwrap();
    let a = client(false, cache.path())
        .cost_report(env(home, tz, None), opts)
        .unwrap();
    let b = client(true, cache.path())
        .cost_report(env(home, tz, None), opts)
        .unwrap();
    assert_eq!(a, b, "stores and index disagree");
    a
}

fn blocks(home: &Path, now: &str, opts: &BlocksOptions) -> Blocks {
    let cache = tempfile::tempdir().unwrap();
    let a = client(false, cache.path())
        .cost_blocks(env(home, "UTC", Some(now)), opts)
        .unwrap();
    let b = client(true, cache.path())
        .cost_blocks(env(home, "UTC", Some(now)), opts)
        .unwrap();
    assert_eq!(a, b, "stores and index disagree");
    a
}

fn rows(r: &Report) -> Vec<(String, u64, f64)> {
    r.rows
        .iter()
        .map(|row| {
            let key = [&row.date, &row.week, &row.month, &row.session_id];
            let key = key.into_iter().flatten().next().unwrap().clone();
            (
                key,
                row.usage.total_tokens,
                (row.usage.total_cost * 1e6).round() / 1e6,
            )
        })
        .collect()
}

fn row(key: &str, tokens: u64) -> (String, u64, f64) {
    (key.to_string(), tokens, tokens as f64 / 1e6)
}

#[test]
fn days_weeks_and_months_follow_the_zone_and_the_first_day_of_the_week() {
    let home = tempfile::tempdir().unwrap();
    // Saturday 2026-01-31 23:30 UTC, then Sunday 2026-02-01 01:00 UTC.
    session(
        home.path(),
        "s1",
        &[
            r("2026-01-31T23:30:00.000Z", "m1", (100, 10, 0, 0)),
            r("2026-02-01T01:00:00.000Z", "m2", (200, 20, 0, 0)),
        ],
    );
    let by = |g| ReportOptions::new(g);
    let day = Grouping::Period(Period::Day);
    assert_eq!(
        rows(&report(home.path(), "UTC", &by(day))),
        vec![row("2026-01-31", 110), row("2026-02-01", 220)]
    );
    // Tokyo (+9): both on Sunday 1 February.
    assert_eq!(
        rows(&report(home.path(), "Asia/Tokyo", &by(day))),
        vec![row("2026-02-01", 330)]
    );
    // The option wins over TZ; New York (-5): both on Saturday 31 January.
    let mut ny = by(day);
    ny.timezone = Some("America/New_York".into());
    assert_eq!(
        rows(&report(home.path(), "Asia/Tokyo", &ny)),
        vec![row("2026-01-31", 330)]
    );
    let week = |d| Grouping::Period(Period::Week(d));
    assert_eq!(
        rows(&report(home.path(), "UTC", &by(week(Weekday::Sun)))),
        vec![row("2026-01-25", 110), row("2026-02-01", 220)]
    );
    assert_eq!(
        rows(&report(home.path(), "UTC", &by(week(Weekday::Mon)))),
        vec![row("2026-01-26", 330)]
    );
    let month = Grouping::Period(Period::Month);
    assert_eq!(
        rows(&report(home.path(), "UTC", &by(month))),
        vec![row("2026-01", 110), row("2026-02", 220)]
    );
    // A bare day is a whole local day; descending order; the last period only.
    let mut o = by(day);
    o.since = Some(Bound::Date(
        chrono::NaiveDate::from_ymd_opt(2026, 2, 1).unwrap(),
    ));
    assert_eq!(
        rows(&report(home.path(), "UTC", &o)),
        vec![row("2026-02-01", 220)]
    );
    o.timezone = Some("America/New_York".into());
    assert!(report(home.path(), "UTC", &o).rows.is_empty());
    let mut o = by(day);
    o.order = Some(Direction::Desc);
    assert_eq!(rows(&report(home.path(), "UTC", &o))[0].0, "2026-02-01");
    // `last` counts back from now: with the clock on 2 February, the last two days are 1-2 Feb.
    let mut o = by(day);
    o.last = Some(2);
    let cache = tempfile::tempdir().unwrap();
    let at = env(home.path(), "UTC", Some("2026-02-02T12:00:00Z"));
    let last = client(false, cache.path()).cost_report(at, &o).unwrap();
    assert_eq!(rows(&last), vec![row("2026-02-01", 220)]);
    // An unknown zone is the caller's mistake.
    let mut bad = by(day);
    bad.timezone = Some("Mars/Olympus".into());
    let e = client(false, cache.path())
        .cost_report(env(home.path(), "UTC", None), &bad)
        .unwrap_err();
    assert_eq!(e.code, agent_mux_sessions::ErrorCode::ValidationError);
}

#[test]
fn blocks_of_one_agent_claude_alone_has_them() {
    let home = tempfile::tempdir().unwrap();
    session(
        home.path(),
        "s1",
        &[r("2026-03-01T10:17:00.000Z", "a", (1, 0, 0, 0))],
    );
    let now = "2026-03-01T11:00:00Z";
    let every = blocks(home.path(), now, &BlocksOptions::default());
    assert_eq!(every.blocks.len(), 1);
    let of = |agent: &str| BlocksOptions {
        agent: Some(agent.to_string()),
        ..Default::default()
    };
    assert_eq!(blocks(home.path(), now, &of("claude")), every);
    let cache = tempfile::tempdir().unwrap();
    let asked = |agent: &str| {
        client(false, cache.path())
            .cost_blocks(env(home.path(), "UTC", Some(now)), &of(agent))
            .unwrap_err()
    };
    let none = asked("codex");
    assert_eq!(none.code, agent_mux_sessions::ErrorCode::ValidationError);
    assert!(
        none.message.contains("codex has no billing blocks"),
        "{}",
        none.message
    );
    assert_eq!(
        asked("clod").code,
        agent_mux_sessions::ErrorCode::AgentNotFound
    );
}

#[test]
fn blocks_start_on_the_hour_close_after_five_hours_and_leave_gaps() {
    let home = tempfile::tempdir().unwrap();
    session(
        home.path(),
        "s1",
        &[
            r("2026-03-01T10:17:00.000Z", "a", (1, 0, 0, 0)),
            r("2026-03-01T11:00:00.000Z", "b", (2, 0, 0, 0)),
            // 4h59m after the block's start (10:00): still in it.
            r("2026-03-01T14:59:00.000Z", "c", (4, 0, 0, 0)),
            // 5h30m after the start: a new block, from 15:00.
            r("2026-03-01T15:30:00.000Z", "d", (8, 0, 0, 0)),
        ],
    );
    // More than 5 hours after the last request: a gap, then a block from 22:00.
    session(
        home.path(),
        "s2",
        &[
            r("2026-03-01T22:10:00.000Z", "e", (16, 0, 0, 0)),
            r("2026-03-01T22:40:00.000Z", "f", (32, 60, 0, 0)),
        ],
    );
    let found = blocks(
        home.path(),
        "2026-03-01T23:10:00Z",
        &BlocksOptions::default(),
    );
    let shape: Vec<(String, u64, u64, bool)> = (found.blocks.iter())
        .map(|b| (b.id.clone(), b.entries, b.total_tokens, b.is_active))
        .collect();
    assert_eq!(
        shape,
        vec![
            ("2026-03-01T10:00:00.000Z".into(), 3, 7, false),
            ("2026-03-01T15:00:00.000Z".into(), 1, 8, false),
            ("gap-2026-03-01T20:30:00.000Z".into(), 0, 0, false),
            ("2026-03-01T22:00:00.000Z".into(), 2, 108, true),
        ]
    );
    let gap = &found.blocks[2];
    assert_eq!(
        (gap.end_time.as_str(), gap.actual_end_time.as_deref()),
        ("2026-03-01T22:10:00.000Z", None)
    );
    // The active block: 108 tokens over the 30 minutes between its requests; it ends at 03:00.
    let active = &found.blocks[3];
    let rate = active.burn_rate.unwrap();
    assert!((rate.tokens_per_minute - 108.0 / 30.0).abs() < 1e-9);
    assert!((rate.tokens_per_minute_for_indicator - 108.0 / 30.0).abs() < 1e-9);
    let p = active.projection.unwrap();
    assert_eq!(p.remaining_minutes, 230);
    assert_eq!(
        p.total_tokens,
        (108.0 + 108.0 / 30.0 * 230.0_f64).round() as u64
    );
    assert_eq!(active.session_count, 1);
    // Not active once five hours have passed since its last request.
    let later = blocks(
        home.path(),
        "2026-03-02T03:41:00Z",
        &BlocksOptions::default(),
    );
    assert!(later.blocks.iter().all(|b| !b.is_active));
    // Newest first, the active one alone, a shorter block length.
    let desc = BlocksOptions {
        order: Some(Direction::Desc),
        ..Default::default()
    };
    assert_eq!(
        blocks(home.path(), "2026-03-01T23:10:00Z", &desc).blocks[0].id,
        "2026-03-01T22:00:00.000Z"
    );
    let active_only = BlocksOptions {
        active: true,
        ..Default::default()
    };
    assert_eq!(
        blocks(home.path(), "2026-03-01T23:10:00Z", &active_only)
            .blocks
            .len(),
        1
    );
    // 'max' is the most a past block used (8, from 15:00), even when only the active one is shown.
    let against_max = BlocksOptions {
        active: true,
        token_limit: Some(TokenLimit::Max),
        ..Default::default()
    };
    let found = blocks(home.path(), "2026-03-01T23:10:00Z", &against_max);
    let status = found.blocks[0].token_limit_status.as_ref().unwrap();
    assert_eq!((status.limit, status.status), (8, "exceeds"));
    // One-hour blocks: a request exactly one hour after the start is still in the block.
    let short = BlocksOptions {
        session_length_hours: 1.0,
        ..Default::default()
    };
    let ids: Vec<String> = (blocks(home.path(), "2026-03-09T00:00:00Z", &short)
        .blocks
        .iter())
    .map(|b| b.id.clone())
    .collect();
    assert_eq!(
        ids[..3],
        [
            "2026-03-01T10:00:00.000Z",
            "gap-2026-03-01T12:00:00.000Z",
            "2026-03-01T14:00:00.000Z"
        ]
    );
}

#[test]
fn a_replayed_response_and_a_subagent_count_once_each() {
    let home = tempfile::tempdir().unwrap();
    let parent = "11111111-1111-4111-8111-111111111111";
    let resumed = "22222222-2222-4222-8222-222222222222";
    // The parent session, and its subagent (whose transcript also replays the parent's first
    // response with more tokens, as a side question does: the main chain's copy still counts).
    session(
        home.path(),
        parent,
        &[r("2026-04-01T10:00:00.000Z", "m1", (100, 0, 0, 0))],
    );
    common::write(
        home.path(),
        &format!("{PROJECT}/{parent}/subagents/agent-x.jsonl"),
        transcript(
            parent,
            &[
                r("2026-04-01T10:00:00.000Z", "m1", (100, 0, 0, 5000)),
                r("2026-04-01T10:05:00.000Z", "m2", (10, 0, 0, 0)),
            ],
            Some("x"),
        ),
    );
    // A resumed session the next day: the parent's response replayed (under the parent's
    // sessionId, as older versions wrote it), then its own.
    let mut text = transcript(
        parent,
        &[r("2026-04-01T10:00:00.000Z", "m1", (100, 0, 0, 0))],
        None,
    );
    text.push_str(&transcript(
        resumed,
        &[r("2026-04-02T09:00:00.000Z", "m3", (1000, 0, 0, 0))],
        None,
    ));
    common::write(home.path(), &format!("{PROJECT}/{resumed}.jsonl"), text);

    let daily = report(
        home.path(),
        "UTC",
        &ReportOptions::new(Grouping::Period(Period::Day)),
    );
    assert_eq!(
        rows(&daily),
        vec![row("2026-04-01", 110), row("2026-04-02", 1000)]
    );
    let sessions = report(home.path(), "UTC", &ReportOptions::new(Grouping::Session));
    assert_eq!(
        rows(&sessions),
        vec![row(resumed, 1000), row(parent, 110)],
        "the replay counts in the session that made it, the subagent in its parent"
    );
    let found = blocks(
        home.path(),
        "2026-05-01T00:00:00Z",
        &BlocksOptions::default(),
    );
    let entries: u64 = found.blocks.iter().map(|b| b.entries).sum();
    assert_eq!(entries, 3);
    // totalCost counts each once too, by day as the report does.
    let cache = tempfile::tempdir().unwrap();
    let total = client(false, cache.path())
        .total_cost(
            env(home.path(), "UTC", None),
            &cost_options(&json!({"groupBy": "day"})).unwrap(),
        )
        .unwrap();
    assert_eq!(total.input_tokens, 1110);
    assert_eq!(total.breakdowns.unwrap()["2026-04-01"].input_tokens, 110);
}

#[test]
fn price_overrides_apply_in_every_report_and_in_total_cost_alike() {
    let home = tempfile::tempdir().unwrap();
    session(
        home.path(),
        "s1",
        &[r(
            "2026-05-01T10:00:00.000Z",
            "m1",
            (1000, 2000, 3000, 4000),
        )],
    );
    let want = 10_000.0 / 1e6; // $1 per million of every kind
    let daily = report(
        home.path(),
        "UTC",
        &ReportOptions::new(Grouping::Period(Period::Day)),
    );
    let sessions = report(home.path(), "UTC", &ReportOptions::new(Grouping::Session));
    let found = blocks(
        home.path(),
        "2026-06-01T00:00:00Z",
        &BlocksOptions::default(),
    );
    let cache = tempfile::tempdir().unwrap();
    let total = client(false, cache.path())
        .total_cost(env(home.path(), "UTC", None), &Default::default())
        .unwrap();
    for got in [
        daily.totals.total_cost,
        sessions.totals.total_cost,
        found.blocks[0].cost_usd,
        total.total_usd,
    ] {
        assert!((got - want).abs() < 1e-12, "{got} != {want}");
    }
    // Without the override the model has no price: $0, and the report names it.
    let plain = Client::new(ClientOptions::default())
        .cost_report(
            env(home.path(), "UTC", None),
            &ReportOptions::new(Grouping::Period(Period::Day)),
        )
        .unwrap();
    assert_eq!(plain.totals.total_cost, 0.0);
    assert_eq!(plain.unpriced_models.len(), 1);
    assert_eq!(plain.unpriced_models[0].model, "m-test");
}

/// Every report over `home` adds up to `totalCost` by day: the same usage, each request on the
/// day of its own time, each response once.
fn reports_agree_with_total_cost(home: &Path, client: &Client) {
    let env = Env::from_pairs([("HOME", home.to_str().unwrap()), ("TZ", "UTC")]);
    let daily = client
        .cost_report(
            env.clone(),
            &ReportOptions::new(Grouping::Period(Period::Day)),
        )
        .unwrap();
    let total = client
        .total_cost(
            env.clone(),
            &cost_options(&json!({"groupBy": "day"})).unwrap(),
        )
        .unwrap();
    let by_day = total.breakdowns.unwrap();
    let with_usage: Vec<_> = by_day
        .values()
        .filter(|b| b.total_usd > 0.0 || b.input_tokens + b.output_tokens + b.cached_tokens > 0)
        .collect();
    assert_eq!(daily.rows.len(), with_usage.len());
    for row in &daily.rows {
        let b = &by_day[row.date.as_ref().unwrap()];
        assert!(
            (row.usage.total_cost - b.total_usd).abs() < 1e-9,
            "{row:?} {b:?}"
        );
        assert_eq!(row.usage.input_tokens, b.input_tokens);
        assert_eq!(row.usage.output_tokens, b.output_tokens + b.thinking_tokens);
        assert_eq!(row.usage.cache_read_tokens, b.cached_tokens);
        assert_eq!(row.usage.cache_creation_tokens, b.cache_write_tokens);
    }
    assert!((daily.totals.total_cost - total.total_usd).abs() < 1e-9);
    for grouping in [
        Grouping::Period(Period::Week(Weekday::Sun)),
        Grouping::Period(Period::Month),
        Grouping::Session,
    ] {
        let r = client
            .cost_report(env.clone(), &ReportOptions::new(grouping))
            .unwrap();
        assert!(
            (r.totals.total_cost - total.total_usd).abs() < 1e-9,
            "{grouping:?}"
        );
        assert_eq!(
            r.totals.total_tokens, daily.totals.total_tokens,
            "{grouping:?}"
        );
    }
}

#[test]
fn on_the_demo_home_every_report_adds_up_to_total_cost() {
    let home = common::demo_home();
    reports_agree_with_total_cost(&home, &Client::new(ClientOptions::default()));
    // Sessions each agent recorded no usage for (Cursor's) are named, not shown as $0.
    let r = Client::new(ClientOptions::default())
        .cost_report(
            common::env(&home),
            &ReportOptions::new(Grouping::Period(Period::Day)),
        )
        .unwrap();
    assert_eq!(r.sessions_without_usage.get("cursor"), Some(&3));
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn real_claude_captures_report_what_their_sessions_hold() {
    let dir = common::real_fixtures().join("claude");
    let client = common::client_over("claude", &dir);
    let home = tempfile::tempdir().unwrap();
    reports_agree_with_total_cost(home.path(), &client);
    // Each session's row holds what `list` prices it at (no capture replays another).
    let env = Env::from_pairs([("HOME", home.path().to_str().unwrap()), ("TZ", "UTC")]);
    let sessions = client
        .cost_report(env.clone(), &ReportOptions::new(Grouping::Session))
        .unwrap();
    let listed = common::list_all(&client, "claude", env);
    assert!(!sessions.rows.is_empty());
    for row in &sessions.rows {
        let s = listed
            .iter()
            .find(|s| Some(&s.session_id) == row.session_id.as_ref())
            .unwrap();
        let c = s.cost.as_ref().unwrap();
        assert!(
            (row.usage.total_cost - c.total_usd).abs() < 1e-12,
            "{}",
            s.session_id
        );
        assert_eq!(row.usage.input_tokens, c.input_tokens);
    }
}

#[test]
fn a_reports_sums_serialise_as_the_report_they_make() {
    // The JSON the CLI prints is written from the sums, each row made as it is written; the API's
    // objects come from the report made whole. Both must hold the same text, in every grouping
    // and order, with a limit cutting the rows.
    let home = common::demo_home();
    let client = Client::new(ClientOptions::default());
    for grouping in [
        Grouping::Period(Period::Day),
        Grouping::Period(Period::Week(Weekday::Mon)),
        Grouping::Period(Period::Month),
        Grouping::Session,
    ] {
        for (order, limit) in [(None, None), (Some(Direction::Asc), Some(2))] {
            let mut opts = ReportOptions::new(grouping);
            opts.order = order;
            opts.limit = limit;
            let sums = client.cost_report_sums(common::env(&home), &opts).unwrap();
            let text = serde_json::to_string_pretty(&sums).unwrap();
            let report = sums.into_report();
            assert!(!report.rows.is_empty(), "{grouping:?}");
            assert_eq!(text, serde_json::to_string_pretty(&report).unwrap());
            assert_eq!(
                report,
                client.cost_report(common::env(&home), &opts).unwrap()
            );
        }
    }
}
