//! totalCost and per-session cost on hand-built sessions and a hand-written run index. Expected
//! figures are worked out in the comments; prices come from `pricing` overrides so that a refresh
//! of the LiteLLM snapshot cannot change them (one test uses the snapshot's Claude prices).
use crate::common;

use std::path::Path;
use std::sync::Arc;

use agent_mux_sessions::cost::{self, CostSummary};
use agent_mux_sessions::model::{
    add_total, add_usage, add_usage_at, merge_usage, parse_time_str, Message, ModelUsage, Role,
    Session, Tokens,
};
use agent_mux_sessions::options::{CostOptions, Filters, GroupBy};
use agent_mux_sessions::{ClientOptions, Context, Env, ErrorCode, SessionSummary};
use agent_mux_wire as options;
use serde_json::json;

fn tok(input: u64, output: u64, cache_read: u64, cache_write: u64, reasoning: u64) -> Tokens {
    Tokens {
        input,
        output,
        cache_read,
        cache_write,
        reasoning,
        cache_write_1h: 0,
    }
}

/// $/MTok: m-a input 1, output 2, cache read 0.5, cache write 1.5; m-b input 10, output 20
/// (reasoning bills at output); m-x has no price.
fn pricing() -> serde_json::Value {
    json!({
        "m-a": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 1.5},
        "m-b": {"input": 10, "output": 20}
    })
}

fn ctx(dir: &Path, tz: &str) -> Context {
    let env = Env::from_pairs([("HOME", dir.to_str().unwrap()), ("TZ", tz)]);
    let opts = options::client_options(&json!({
        "configDir": dir.join("cfg").to_str().unwrap(),
        "pricing": pricing(),
    }))
    .unwrap();
    Context::new(env, Arc::new(opts))
}

fn summary(agent: &str, id: &str, created: &str, model: &str) -> SessionSummary {
    let t = parse_time_str(created).unwrap();
    let mut s = SessionSummary::new(agent, id, t, t);
    s.model = Some(model.to_string());
    s
}

/// The run index, with a duplicate run, an unknown version, an orphan run and a torn last line.
fn run_index(dir: &Path) {
    let lines = [
        // R1 first written without cost (run start) ...
        r#"{"v":1,"runId":"01R1","agent":"claude","sessionId":"s4","timestamp":"2025-03-04T00:00:00Z","tags":["team-a"]}"#,
        r#"{"v":1,"runId":"01R2","agent":"claude","sessionId":"s4","model":"m-b","timestamp":"2025-03-04T00:10:00Z","cost":{"totalUsd":0.1,"inputTokens":100,"outputTokens":1},"tags":["team-b"]}"#,
        // ... then again with its cost (completion): one run, cost 0.4, tags kept.
        r#"{"v":1,"runId":"01R1","agent":"claude","sessionId":"s4","timestamp":"2025-03-04T00:00:00Z","cost":{"totalUsd":0.4,"inputTokens":900,"outputTokens":9},"tags":[]}"#,
        // Orphan: no session; counts by itself.
        r#"{"v":1,"runId":"01R3","agent":"codex","model":"m-b","timestamp":"2025-03-05T00:00:00Z","cost":{"totalUsd":1.0,"inputTokens":50000,"outputTokens":25000},"tags":["team-a"]}"#,
        // Unknown version: ignored, cost and all.
        r#"{"v":2,"runId":"01R4","agent":"claude","sessionId":"s1","timestamp":"2025-03-01T10:00:00Z","cost":{"totalUsd":100,"inputTokens":1,"outputTokens":1},"tags":["ghost"]}"#,
        // A run of s1 without cost: tags and a run count, the estimate stays.
        r#"{"v":1,"runId":"01R5","agent":"claude","sessionId":"s1","timestamp":"2025-03-01T10:00:00Z","tags":["team-b"]}"#,
        // Torn last line (a crash mid-append).
        r#"{"v":1,"runId":"01R6","agent":"claude","sessionId":"s2","timestamp":"2025-03-0"#,
    ];
    common::write(dir, "cfg/run-index.jsonl", lines.join("\n"));
}

/// S1 claude 2025-03-01T10:00Z: m-a {in 1M, out 0.5M, cache read 2M, write 0.2M}
///     = 1*1 + 0.5*2 + 2*0.5 + 0.2*1.5 = 3.3; m-b {in 0.1M, out 0.05M, reasoning 0.05M}
///     = 0.1*10 + 0.05*20 + 0.05*20 = 3.0; total 6.3 (estimate).
/// S2 codex 2025-03-01T20:00Z: m-a native cost 0.75 (tokens in 1000, out 100): 0.75.
/// S3 codex 2025-03-03T01:00Z: m-x {in 5000, out 10} unpriced = 0; m-b {in 0.2M} = 2.0.
/// S4 claude 2025-03-04T00:00Z: m-a {in 1M} would estimate 1.0, but runs R1 (0.4) and R2 (0.1)
///     recorded cost: 0.5, tokens in 900+100, out 9+1.
/// R3 orphan codex run 2025-03-05: 1.0, in 50,000, out 25,000, model m-b, tag team-a.
fn sessions() -> Vec<SessionSummary> {
    let mut s1 = summary("claude", "s1", "2025-03-01T10:00:00Z", "m-a");
    add_usage(
        &mut s1.usage,
        "m-a",
        &tok(1_000_000, 500_000, 2_000_000, 200_000, 0),
        None,
    );
    add_usage(
        &mut s1.usage,
        "m-b",
        &tok(100_000, 50_000, 0, 0, 50_000),
        None,
    );
    let mut s2 = summary("codex", "s2", "2025-03-01T20:00:00Z", "m-a");
    add_usage(&mut s2.usage, "m-a", &tok(1000, 100, 0, 0, 0), Some(0.75));
    let mut s3 = summary("codex", "s3", "2025-03-03T01:00:00Z", "m-x");
    add_usage(&mut s3.usage, "m-x", &tok(5000, 10, 0, 0, 0), None);
    add_usage(&mut s3.usage, "m-b", &tok(200_000, 0, 0, 0, 0), None);
    let mut s4 = summary("claude", "s4", "2025-03-04T00:00:00Z", "m-a");
    add_usage(&mut s4.usage, "m-a", &tok(1_000_000, 0, 0, 0, 0), None);
    vec![s1, s2, s3, s4]
}

fn total(dir: &Path, tz: &str, opts: CostOptions) -> CostSummary {
    run_index(dir);
    cost::total_cost(&ctx(dir, tz), sessions(), &opts)
}

fn group(g: GroupBy) -> CostOptions {
    CostOptions {
        group_by: Some(g),
        ..Default::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// (key, usd, sessions) of every breakdown.
fn rows(c: &CostSummary) -> Vec<(String, f64, u64)> {
    c.breakdowns
        .as_ref()
        .unwrap()
        .values()
        .map(|b| {
            (
                b.key.clone(),
                (b.total_usd * 1e6).round() / 1e6,
                b.session_count,
            )
        })
        .collect()
}

#[test]
fn totals_over_every_source() {
    let dir = tempfile::tempdir().unwrap();
    let c = total(dir.path(), "UTC", CostOptions::default());
    // 6.3 + 0.75 + 2.0 + 0.5 + 1.0
    assert!(close(c.total_usd, 10.55), "{}", c.total_usd);
    // 1.1M (S1) + 1000 (S2) + 205,000 (S3) + 1000 (S4 runs) + 50,000 (R3)
    assert_eq!(c.input_tokens, 1_357_000);
    // 550,000 + 100 + 10 + 10 + 25,000
    assert_eq!(c.output_tokens, 575_120);
    assert_eq!(c.thinking_tokens, 50_000);
    assert_eq!(c.cached_tokens, 2_000_000);
    assert_eq!(c.cache_write_tokens, 200_000);
    assert_eq!(c.session_count, 4);
    // S1 1 (R5), S2 1, S3 1, S4 2 (R1 once despite two lines, R2), orphan R3 1; R4 ignored.
    assert_eq!(c.run_count, 6);
    assert_eq!(c.unpriced_models, Some(vec!["m-x".to_string()]));
    assert!(c.breakdowns.is_none());
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v["unpricedModels"], json!(["m-x"]));
    assert_eq!(v["runCount"], 6);
    assert_eq!(v["cacheWriteTokens"], 200_000);
}

#[test]
fn group_by_agent() {
    let dir = tempfile::tempdir().unwrap();
    let c = total(dir.path(), "UTC", group(GroupBy::Agent));
    // claude: S1 6.3 + S4 0.5; codex: S2 0.75 + S3 2.0 + orphan R3 1.0 (no session).
    assert_eq!(
        rows(&c),
        vec![("claude".into(), 6.8, 2), ("codex".into(), 3.75, 2)]
    );
    let codex = &c.breakdowns.as_ref().unwrap()["codex"];
    // 1000 + 205,000 + 50,000
    assert_eq!(codex.input_tokens, 256_000);
    assert_eq!(codex.key, "codex");
}

#[test]
fn group_by_model_splits_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let c = total(dir.path(), "UTC", group(GroupBy::Model));
    // m-a: S1 3.3 + S2 0.75 + S4's R1 0.4 (run without model: the session's) = 4.45
    // m-b: S1 3.0 + S3 2.0 + S4's R2 0.1 + R3 1.0 = 6.1; m-x: S3, 0.
    assert_eq!(
        rows(&c),
        vec![
            ("m-a".into(), 4.45, 3),
            ("m-b".into(), 6.1, 3),
            ("m-x".into(), 0.0, 1)
        ]
    );
    let b = c.breakdowns.as_ref().unwrap();
    // m-b thinking: S1's 50,000; m-a cached: S1's 2M.
    assert_eq!(b["m-b"].thinking_tokens, 50_000);
    assert_eq!(b["m-a"].cached_tokens, 2_000_000);
    assert_eq!(b["m-x"].input_tokens, 5000);
    let sum: f64 = b.values().map(|x| x.total_usd).sum();
    assert!(close(sum, c.total_usd));
}

#[test]
fn group_by_day_uses_the_local_calendar() {
    let dir = tempfile::tempdir().unwrap();
    // Tokyo (+9): S2 at 20:00Z on Mar 1 is 05:00 on Mar 2; S4 00:00Z Mar 4 is 09:00 Mar 4;
    // the orphan run 00:00Z Mar 5 is 09:00 Mar 5 and has no session.
    let c = total(dir.path(), "Asia/Tokyo", group(GroupBy::Day));
    assert_eq!(
        rows(&c),
        vec![
            ("2025-03-01".into(), 6.3, 1),
            ("2025-03-02".into(), 0.75, 1),
            ("2025-03-03".into(), 2.0, 1),
            ("2025-03-04".into(), 0.5, 1),
            ("2025-03-05".into(), 1.0, 0),
        ]
    );
    // In New York (-5) S1 (10:00Z) and S2 (20:00Z) are both Mar 1; S3 (01:00Z Mar 3) is Mar 2;
    // S4 (00:00Z Mar 4) is Mar 3 with S3; R3 is Mar 4.
    let c = total(dir.path(), "America/New_York", group(GroupBy::Day));
    assert_eq!(
        rows(&c),
        vec![
            ("2025-03-01".into(), 7.05, 2),
            ("2025-03-02".into(), 2.0, 1),
            ("2025-03-03".into(), 0.5, 1),
            ("2025-03-04".into(), 1.0, 0),
        ]
    );
}

/// Sessions whose requests cross midnight, in UTC and in a zone half an hour off the hour.
/// X (claude, created Mar 6 18:20Z): m-a 1M input at 18:20Z ($1), m-a 1M output at 18:40Z ($2),
///   m-b 0.1M input at 23:55Z ($1), m-b 0.05M output at Mar 7 00:05Z ($1); a subagent's m-a
///   usage (0.5M input, $0.5) at Mar 7 01:00Z, merged in; a session-level total of m-b
///   (0.1M input, $1) with no time: the session's first day.
/// Y (codex, created Mar 6 23:59Z): m-a with a native cost: $0.25 at 23:59Z, $0.5 at Mar 7
///   00:01Z, and a request without one (free: the model is priced by its native cost).
/// Z (codex, created Mar 7 12:00Z): no usage at all; counts on its day with $0.
fn crossing() -> Vec<SessionSummary> {
    let at = |t: &str| parse_time_str(t);
    let mut x = summary("claude", "x", "2025-03-06T18:20:00Z", "m-a");
    add_usage_at(
        &mut x.usage,
        "m-a",
        &tok(1_000_000, 0, 0, 0, 0),
        None,
        at("2025-03-06T18:20:00Z"),
    );
    add_usage_at(
        &mut x.usage,
        "m-a",
        &tok(0, 1_000_000, 0, 0, 0),
        None,
        at("2025-03-06T18:40:00Z"),
    );
    add_usage_at(
        &mut x.usage,
        "m-b",
        &tok(100_000, 0, 0, 0, 0),
        None,
        at("2025-03-06T23:55:00Z"),
    );
    add_usage_at(
        &mut x.usage,
        "m-b",
        &tok(0, 50_000, 0, 0, 0),
        None,
        at("2025-03-07T00:05:00Z"),
    );
    let mut sub = Vec::new();
    add_usage_at(
        &mut sub,
        "m-a",
        &tok(500_000, 0, 0, 0, 0),
        None,
        at("2025-03-07T01:00:00Z"),
    );
    merge_usage(&mut x.usage, &sub[0]);
    add_total(&mut x.usage, "m-b", &tok(100_000, 0, 0, 0, 0), None);
    x.updated_at = at("2025-03-07T01:00:00Z").unwrap();
    let mut y = summary("codex", "y", "2025-03-06T23:59:00Z", "m-a");
    add_usage_at(
        &mut y.usage,
        "m-a",
        &tok(10, 1, 0, 0, 0),
        Some(0.25),
        at("2025-03-06T23:59:00Z"),
    );
    add_usage_at(
        &mut y.usage,
        "m-a",
        &tok(20, 2, 0, 0, 0),
        Some(0.5),
        at("2025-03-07T00:01:00Z"),
    );
    add_usage_at(
        &mut y.usage,
        "m-a",
        &tok(30, 3, 0, 0, 0),
        None,
        at("2025-03-07T00:02:00Z"),
    );
    let z = summary("codex", "z", "2025-03-07T12:00:00Z", "m-a");
    vec![x, y, z]
}

#[test]
fn group_by_day_puts_each_request_on_its_own_day() {
    let dir = tempfile::tempdir().unwrap();
    let run = |tz: &str, group_by: Option<GroupBy>| {
        let opts = CostOptions {
            group_by,
            ..Default::default()
        };
        cost::total_cost(&ctx(dir.path(), tz), crossing(), &opts)
    };
    // UTC. Mar 6: X $1 + $2 + $1 (m-b 23:55) + $1 (untimed total) = 5; Y $0.25.
    // Mar 7: X $1 (m-b 00:05) + $0.5 (subagent) = 1.5; Y $0.5 + $0 = 0.5; Z $0.
    let c = run("UTC", Some(GroupBy::Day));
    assert_eq!(
        rows(&c),
        vec![
            ("2025-03-06".into(), 5.25, 2),
            ("2025-03-07".into(), 2.0, 3)
        ]
    );
    let b = c.breakdowns.as_ref().unwrap();
    assert_eq!(b["2025-03-06"].input_tokens, 1_200_010);
    assert_eq!(b["2025-03-07"].input_tokens, 500_050);
    assert_eq!(b["2025-03-07"].output_tokens, 50_005);
    // Totals do not change with the grouping, and the days add up to them.
    let whole = run("UTC", None);
    assert_eq!(c.total_usd, whole.total_usd);
    assert_eq!(
        (c.input_tokens, c.output_tokens, c.session_count),
        (whole.input_tokens, whole.output_tokens, 3)
    );
    assert!(close(
        b.values().map(|d| d.total_usd).sum(),
        whole.total_usd
    ));
    assert!(close(whole.total_usd, 7.25));
    // Kolkata (+5:30): midnight is 18:30Z. X's 18:20Z request is Mar 6, the rest Mar 7 (the
    // untimed total stays on X's first day, Mar 6); Y and Z are Mar 7.
    let c = run("Asia/Kolkata", Some(GroupBy::Day));
    assert_eq!(
        rows(&c),
        vec![
            ("2025-03-06".into(), 2.0, 1),
            ("2025-03-07".into(), 5.25, 3)
        ]
    );
    // New York (-5): everything but Z's day (Mar 7 07:00) is Mar 6; X's subagent at 01:00Z is
    // Mar 6 20:00.
    let c = run("America/New_York", Some(GroupBy::Day));
    assert_eq!(
        rows(&c),
        vec![
            ("2025-03-06".into(), 7.25, 2),
            ("2025-03-07".into(), 0.0, 1)
        ]
    );
}

#[test]
fn group_by_day_prices_long_prompts_per_day() {
    // One model, one long request (210k prompt: the 200k tier) on Mar 1, one short on Mar 2.
    let dir = tempfile::tempdir().unwrap();
    let model = "claude-sonnet-4-20250514"; // has a 200k tier in the snapshot
    let long = tok(210_000, 1_000, 0, 0, 0);
    let short = tok(1_000, 1_000, 0, 0, 0);
    let mut s = summary("claude", "l", "2025-03-01T23:00:00Z", model);
    add_usage_at(
        &mut s.usage,
        model,
        &long,
        None,
        parse_time_str("2025-03-01T23:00:00Z"),
    );
    add_usage_at(
        &mut s.usage,
        model,
        &short,
        None,
        parse_time_str("2025-03-02T01:00:00Z"),
    );
    let env = Env::from_pairs([("HOME", dir.path().to_str().unwrap()), ("TZ", "UTC")]);
    let opts = CostOptions {
        group_by: Some(GroupBy::Day),
        ..Default::default()
    };
    let c = cost::total_cost(&Context::with_env(env), vec![s], &opts);
    let price = cost::prices::Prices::from_options(None);
    let price = price.lookup(model).unwrap();
    let b = c.breakdowns.as_ref().unwrap();
    assert!(close(b["2025-03-01"].total_usd, price.request_cost(&long)));
    assert!(close(b["2025-03-02"].total_usd, price.request_cost(&short)));
    // The long request is priced above the base rate (the tier applies to that day only).
    assert!(price.request_cost(&long) > price.band_cost(&long, None));
}

#[test]
fn usage_slices_cover_the_whole_usage() {
    // A hand-built usage (no slices) later given a timed request keeps its totals untimed.
    let mut usage = vec![ModelUsage {
        model: "m".into(),
        tokens: tok(5, 0, 0, 0, 0),
        native_cost_usd: Some(1.0),
        ..Default::default()
    }];
    let t = parse_time_str("2025-03-01T00:20:00Z");
    add_usage_at(&mut usage, "m", &tok(7, 0, 0, 0, 0), Some(2.0), t);
    add_usage(&mut usage, "m", &tok(1, 0, 0, 0, 0), None);
    let slices = usage[0].slices();
    assert_eq!(slices.len(), 2, "{slices:?}");
    let untimed = slices.iter().find(|s| s.quarter.is_none()).unwrap();
    assert_eq!(
        (untimed.tokens.input, untimed.native_cost_usd),
        (6, Some(1.0))
    );
    let timed = slices.iter().find(|s| s.quarter.is_some()).unwrap();
    // 00:20 is in the quarter hour that starts at 00:15.
    assert_eq!(timed.start(), parse_time_str("2025-03-01T00:15:00Z"));
    assert_eq!(usage[0].tokens.input, 13);
    assert_eq!(usage[0].native_cost_usd, Some(3.0));
}

#[test]
fn group_by_tag_counts_a_session_in_each_tag() {
    let dir = tempfile::tempdir().unwrap();
    let c = total(dir.path(), "UTC", group(GroupBy::Tag));
    // S1 [team-b] 6.3; S4 [team-a, team-b] 0.5 in each; R3 [team-a] 1.0; S2, S3 untagged ("").
    assert_eq!(
        rows(&c),
        vec![
            ("".into(), 2.75, 2),
            ("team-a".into(), 1.5, 1),
            ("team-b".into(), 6.8, 2),
        ]
    );
}

#[test]
fn filters_agent_tags_dates_model() {
    let dir = tempfile::tempdir().unwrap();
    let by = |f: Filters, agent: Option<&str>| {
        total(
            dir.path(),
            "UTC",
            CostOptions {
                agent: agent.map(str::to_string),
                filters: f,
                ..Default::default()
            },
        )
    };
    // codex: S2 0.75 + S3 2.0 + R3 1.0; runs 1 + 1 + 1.
    let c = by(Filters::default(), Some("codex"));
    assert!(close(c.total_usd, 3.75));
    assert_eq!((c.session_count, c.run_count), (2, 3));
    // Tag team-a (from the run index): S4 0.5 + R3 1.0; runs 2 + 1.
    let c = by(
        Filters {
            tags: Some(vec!["team-a".into()]),
            ..Default::default()
        },
        None,
    );
    assert!(close(c.total_usd, 1.5));
    assert_eq!((c.session_count, c.run_count), (1, 3));
    // Mar 2 00:00Z ..= Mar 4 00:00Z: S3 2.0 + S4 0.5 (until is inclusive); R3 is after.
    let c = by(
        Filters {
            since: parse_time_str("2025-03-02T00:00:00Z"),
            until: parse_time_str("2025-03-04T00:00:00Z"),
            ..Default::default()
        },
        None,
    );
    assert!(close(c.total_usd, 2.5));
    assert_eq!(c.session_count, 2);
    // Sessions that used m-b, whole: S1 6.3 + S3 2.0, and the orphan run of m-b 1.0.
    let c = by(
        Filters {
            model: Some("m-b".into()),
            ..Default::default()
        },
        None,
    );
    assert!(close(c.total_usd, 9.3));
    assert_eq!(c.unpriced_models, Some(vec!["m-x".to_string()]));
}

#[test]
fn summaries_get_tags_run_counts_and_costs() {
    let dir = tempfile::tempdir().unwrap();
    run_index(dir.path());
    let mut v = sessions();
    cost::apply_to_summaries(&ctx(dir.path(), "UTC"), &mut v);
    let s1 = &v[0];
    assert_eq!(s1.tags, vec!["team-b".to_string()]);
    assert_eq!(s1.run_count, 1);
    let c1 = s1.cost.as_ref().unwrap();
    assert!(close(c1.total_usd, 6.3));
    // inputTokens excludes cached input: 1M + 0.1M; cached 2M; writes 0.2M; thinking 50,000.
    assert_eq!(c1.input_tokens, 1_100_000);
    assert_eq!(c1.cached_tokens, Some(2_000_000));
    assert_eq!(c1.cache_write_tokens, Some(200_000));
    assert_eq!(c1.thinking_tokens, Some(50_000));
    let s4 = &v[3];
    assert_eq!(s4.tags, vec!["team-a".to_string(), "team-b".to_string()]);
    assert_eq!(s4.run_count, 2);
    let c4 = s4.cost.as_ref().unwrap();
    assert!(close(c4.total_usd, 0.5));
    assert_eq!((c4.input_tokens, c4.output_tokens), (1000, 10));
    // The tag filter of list/search now sees run-index tags.
    let f = Filters {
        tags: Some(vec!["team-a".into()]),
        ..Default::default()
    };
    let hits: Vec<_> = v
        .iter()
        .filter(|s| agent_mux_sessions::selection::matches(s, &f))
        .map(|s| s.session_id.as_str())
        .collect();
    assert_eq!(hits, vec!["s4"]);
}

#[test]
fn session_and_message_costs_from_the_snapshot_table() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::with_env(Env::from_pairs([("HOME", dir.path().to_str().unwrap())]));
    let t = parse_time_str("2025-10-01T00:00:00Z").unwrap();
    let mut s = Session {
        summary: SessionSummary::new("claude", "abc", t, t),
        messages: Vec::new(),
        raw: None,
    };
    let mut user = Message::new(Role::User, "hi");
    user.timestamp = Some(t);
    // claude-sonnet-4-5 (snapshot): input 3, output 15, cache read 0.3, write 3.75, 1h write 6.
    let mut a1 = Message::new(Role::Assistant, "one");
    a1.model = Some("claude-sonnet-4-5-20250929".into());
    // 10k*3 + 2k*15 + 100k*0.3 + (20k-5k)*3.75 + 5k*6 = 0.03 + 0.03 + 0.03 + 0.05625 + 0.03
    // = 0.17625
    a1.tokens = Some(Tokens {
        cache_write_1h: 5_000,
        ..tok(10_000, 2_000, 100_000, 20_000, 0)
    });
    // A model with no price: tokens kept, no cost invented, listed as unpriced.
    let mut a2 = Message::new(Role::Assistant, "two");
    a2.model = Some("house-model-7".into());
    a2.tokens = Some(tok(1_000, 10, 0, 0, 0));
    // The agent's own cost wins over an estimate.
    let mut a3 = Message::new(Role::Assistant, "three");
    a3.model = Some("claude-sonnet-4-5".into());
    a3.tokens = Some(tok(1_000_000, 0, 0, 0, 0));
    a3.native_cost_usd = Some(0.01);
    s.messages = vec![user, a1, a2, a3];
    s.derive_summary_fields();
    cost::price_session(&ctx, &mut s);

    let m = &s.messages;
    assert!(m[0].cost.is_none());
    assert!(close(m[1].cost.as_ref().unwrap().total_usd, 0.17625));
    assert_eq!(
        m[1].token_usage.as_ref().unwrap().cached_tokens,
        Some(100_000)
    );
    assert!(m[2].cost.is_none());
    assert_eq!(m[2].token_usage.as_ref().unwrap().input_tokens, 1_000);
    assert!(close(m[3].cost.as_ref().unwrap().total_usd, 0.01));
    // Session: sonnet has a native cost on one message, so its usage uses native (0.01, which
    // is all that is recorded natively for that model id); the dated id is another ModelUsage
    // and is estimated: 0.17625. house-model-7: 0.
    let c = s.summary.cost.as_ref().unwrap();
    assert!(close(c.total_usd, 0.17625 + 0.01), "{}", c.total_usd);
    // 10k + 1k + 1M
    assert_eq!(c.input_tokens, 1_011_000);
}

#[test]
fn tiered_prices_through_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::with_env(Env::from_pairs([("HOME", dir.path().to_str().unwrap())]));
    let t = parse_time_str("2025-06-01T00:00:00Z").unwrap();
    let mut s = SessionSummary::new("gemini", "g1", t, t);
    // gemini-2.5-pro (snapshot): input 1.25, output 10, cache read 0.125; above 200k prompt:
    // input 2.5, output 15, cache read 0.25.
    // Request 1: 150k in + 60k cached = 210k prompt (> 200k): 0.15*2.5 + 0.06*0.25 + 0.002*15
    //   = 0.375 + 0.015 + 0.03 = 0.42
    // Request 2: 100k in: 0.1*1.25 + 0.001*10 = 0.125 + 0.01 = 0.135
    add_usage(
        &mut s.usage,
        "gemini-2.5-pro",
        &tok(150_000, 2_000, 60_000, 0, 0),
        None,
    );
    add_usage(
        &mut s.usage,
        "gemini-2.5-pro",
        &tok(100_000, 1_000, 0, 0, 0),
        None,
    );
    let mut v = vec![s];
    cost::apply_to_summaries(&ctx, &mut v);
    let c = v[0].cost.as_ref().unwrap();
    assert!(close(c.total_usd, 0.555), "{}", c.total_usd);
}

#[test]
fn pricing_option_is_validated_when_the_client_is_made() {
    for bad in [
        json!({"pricing": "cheap"}),
        json!({"pricing": {"m": {"input": 1}}}),
        json!({"pricing": {"m": {"input": 1, "output": -2}}}),
        json!({"pricing": {"m": {"input": 1, "output": 2, "perCall": 1}}}),
    ] {
        let e = options::client_options(&bad).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError, "{bad}");
    }
    assert!(options::client_options(&json!({"pricing": pricing()})).is_ok());
}

#[test]
fn client_total_cost_reads_the_run_index_without_sessions() {
    // No agent store under this HOME: only the run index contributes (R1, R2 and R5 name
    // sessions that are not on disk, so they count as unmatched runs too).
    let dir = tempfile::tempdir().unwrap();
    run_index(dir.path());
    let before = common::snapshot(dir.path());
    let client = agent_mux_sessions::Client::new(ClientOptions {
        config_dir: Some(dir.path().join("cfg")),
        ..Default::default()
    });
    let env = Env::from_pairs([("HOME", dir.path().to_str().unwrap()), ("TZ", "UTC")]);
    let c = client
        .total_cost(env.clone(), &group(GroupBy::Agent))
        .unwrap();
    // R1 0.4 + R2 0.1 + R3 1.0 + R5 0 = 1.5 over 4 runs, no sessions.
    assert!(close(c.total_usd, 1.5));
    assert_eq!((c.session_count, c.run_count), (0, 4));
    assert_eq!(
        rows(&c),
        vec![("claude".into(), 0.5, 0), ("codex".into(), 1.0, 0)]
    );
    let codex = client
        .total_cost(
            env,
            &options::cost_options(&json!({"agent": "codex"})).unwrap(),
        )
        .unwrap();
    assert!(close(codex.total_usd, 1.0));
    assert_eq!(codex.run_count, 1);
    assert_eq!(common::snapshot(dir.path()), before);
}
