//! Ranking a person agrees with (issue 22), on small homes in the agents' real formats: where the
//! words are, each occurrence once, recency, coverage, snippets, the same score across agents.
use crate::common;

use std::path::Path;

use agent_mux_sessions::model::{parse_time_str, SessionSummary, Timestamp};
use agent_mux_sessions::options::SearchQuery;
use agent_mux_sessions::Env;
use serde_json::{json, Value};

const CWD: &str = "/home/dev/src/shop";

fn at(iso: &str) -> Timestamp {
    parse_time_str(iso).unwrap()
}

/// One exchange of a session: a prompt, optionally a Bash call with its output, an answer.
struct Turn<'a> {
    prompt: &'a str,
    tool: Option<(&'a str, &'a str)>,
    answer: &'a str,
}

fn turn<'a>(prompt: &'a str, tool: Option<(&'a str, &'a str)>, answer: &'a str) -> Turn<'a> {
    Turn {
        prompt,
        tool,
        answer,
    }
}

/// A Claude Code session file (`~/.claude/projects/<slug>/<id>.jsonl`) titled `title`, its lines
/// a minute apart from `day` 10:00.
fn claude(home: &Path, id: &str, title: &str, day: &str, turns: &[Turn]) {
    let mut lines: Vec<Value> = Vec::new();
    let mut n = 0;
    let mut line = |kind: &str, message: Value, extra: Value| {
        n += 1;
        let mut v = json!({"parentUuid": null, "isSidechain": false, "userType": "external",
            "cwd": CWD, "sessionId": id, "version": "2.1.197", "gitBranch": "main", "type": kind,
            "uuid": format!("{id}-{n}"), "timestamp": format!("{day}T10:{n:02}:00.000Z"),
            "message": message});
        if let (Some(v), Some(extra)) = (v.as_object_mut(), extra.as_object()) {
            v.extend(extra.clone());
        }
        lines.push(v);
    };
    let usage = json!({"input_tokens": 10, "output_tokens": 20});
    for (k, t) in turns.iter().enumerate() {
        line(
            "user",
            json!({"role": "user", "content": t.prompt}),
            json!({}),
        );
        if let Some((cmd, out)) = t.tool {
            let call = format!("toolu_{id}_{k}");
            line(
                "assistant",
                json!({"model": "claude-sonnet-4-5-20250929", "id": format!("msg_{id}_{k}a"),
                "type": "message", "role": "assistant", "usage": usage,
                "content": [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": cmd}}]}),
                json!({}),
            );
            line(
                "user",
                json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call,
                    "content": out, "is_error": false}]}),
                json!({"toolUseResult": {"stdout": out, "stderr": "", "interrupted": false}}),
            );
        }
        line(
            "assistant",
            json!({"model": "claude-sonnet-4-5-20250929", "id": format!("msg_{id}_{k}b"),
            "type": "message", "role": "assistant", "usage": usage,
            "content": [{"type": "text", "text": t.answer}]}),
            json!({}),
        );
    }
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str(&format!(
        "{}\n",
        json!({"type": "ai-title", "sessionId": id, "aiTitle": title})
    ));
    common::write(
        home,
        &format!(".claude/projects/-home-dev-src-shop/{id}.jsonl"),
        text,
    );
}

/// The same conversation as a Pi session (`~/.pi/agent/sessions/<cwd>/<ts>_<id>.jsonl`).
fn pi(home: &Path, id: &str, title: &str, day: &str, turns: &[Turn]) {
    let mut lines: Vec<Value> = vec![json!({"type": "session", "version": 3, "id": id,
        "timestamp": format!("{day}T10:00:00.000Z"), "cwd": CWD})];
    let mut n = 0;
    let mut entry = |message: Value| {
        n += 1;
        let parent = (n > 1).then(|| format!("{:08x}", n - 1));
        lines.push(
            json!({"type": "message", "id": format!("{n:08x}"), "parentId": parent,
            "timestamp": format!("{day}T10:{n:02}:00.000Z"), "message": message}),
        );
    };
    let usage = json!({"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    for (k, t) in turns.iter().enumerate() {
        entry(json!({"role": "user", "content": [{"type": "text", "text": t.prompt}]}));
        if let Some((cmd, out)) = t.tool {
            let call = format!("call_{id}_{k}");
            entry(
                json!({"role": "assistant", "provider": "anthropic", "model": "claude-sonnet-4-5",
                "usage": usage, "stopReason": "toolUse",
                "content": [{"type": "toolCall", "id": call, "name": "Bash", "arguments": {"command": cmd}}]}),
            );
            entry(
                json!({"role": "toolResult", "toolCallId": call, "toolName": "Bash",
                "content": [{"type": "text", "text": out}], "isError": false}),
            );
        }
        entry(
            json!({"role": "assistant", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": usage, "stopReason": "stop", "content": [{"type": "text", "text": t.answer}]}),
        );
    }
    lines.push(
        json!({"type": "session_info", "id": "ffffffff", "parentId": format!("{n:08x}"),
        "timestamp": format!("{day}T10:{n:02}:00.000Z"), "name": title}),
    );
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    common::write(
        home,
        &format!(".pi/agent/sessions/--home-dev-src-shop--/{day}T10-00-00-000Z_{id}.jsonl"),
        text,
    );
}

fn search_at(home: &Path, text: &str, now: Option<&str>) -> Vec<SessionSummary> {
    let env = Env::with_home(home);
    let env = match now {
        Some(t) => env.at(at(t)),
        None => env,
    };
    common::client()
        .search(env, &SearchQuery::new(text))
        .unwrap()
}

fn ids(v: &[SessionSummary]) -> Vec<&str> {
    v.iter().map(|s| s.session_id.as_str()).collect()
}

fn by_id<'a>(v: &'a [SessionSummary], id: &str) -> &'a SessionSummary {
    v.iter().find(|s| s.session_id == id).expect(id)
}

/// Sessions that do not mention the query words, so document frequencies are realistic.
fn filler(home: &Path, n: usize) {
    for i in 0..n {
        claude(
            home,
            &format!("filler-{i}"),
            "Unrelated work",
            "2026-11-01",
            &[turn(
                "Tidy the css of the dashboard cards",
                Some(("cat src/styles/dashboard.css", ".cards { display: grid; }")),
                "Switched the cards to a responsive grid.",
            )],
        );
    }
}

/// A test log that repeats "kafka" 300 times: one Bash output in the real Claude format.
fn kafka_log() -> String {
    (0..300)
        .map(|i| format!("[{i:04}] INFO kafka broker localhost:9092 partition {i} ready"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_conversation_about_a_word_beats_a_log_repeating_it_and_each_hit_counts_once() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    filler(h, 4);
    let log = kafka_log();
    claude(
        h,
        "test-log",
        "Integration test run",
        "2026-11-10",
        &[turn(
            "Run the integration tests",
            Some(("npm test -- --grep integration", &log)),
            "All integration tests passed.",
        )],
    );
    claude(
        h,
        "consumer",
        "Offsets question",
        "2026-11-10",
        &[turn(
            "How do I make the kafka consumer commit offsets only after processing?",
            None,
            "Turn off enable.auto.commit and commit after each batch; the kafka client retries.",
        )],
    );
    let r = search_at(h, "kafka", Some("2026-11-20T00:00:00Z"));
    assert_eq!(ids(&r), ["consumer", "test-log"]);
    // 300 occurrences, stored on the tool message's content and output: counted once
    assert_eq!(by_id(&r, "test-log").match_count, Some(300));
    assert_eq!(by_id(&r, "consumer").match_count, Some(2));
    // the snippet comes from what was said, not from the log
    let snippet = r[0].snippet.as_deref().unwrap();
    assert!(snippet.contains(">>>kafka<<< consumer commit"), "{snippet}");
}

#[test]
fn a_much_newer_session_beats_a_slightly_stronger_old_one() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    filler(h, 4);
    claude(
        h,
        "old",
        "CI investigation",
        "2025-01-10",
        &[turn(
            "checkout_flow is flaky on CI, a flaky test again; why is it flaky?",
            None,
            "It races two async writes; the fixture now awaits both before asserting.",
        )],
    );
    claude(
        h,
        "new",
        "CI investigation",
        "2026-11-05",
        &[turn(
            "checkout_flow is flaky on CI, a flaky test again; why?",
            None,
            "It races two async writes; the fixture now awaits both before asserting.",
        )],
    );
    // 22 months apart: the newer one first, although the old one says "flaky" once more
    let r = search_at(h, "flaky", Some("2026-11-20T00:00:00Z"));
    assert_eq!(ids(&r), ["new", "old"]);
    assert_eq!(by_id(&r, "old").match_count, Some(3));
    // "now" comes from the snapshot: seen from January 2025, the other one is the new one
    let then = search_at(h, "flaky", Some("2025-01-11T00:00:00Z"));
    assert_eq!(ids(&then), ["old", "new"]);
    // with no time in the snapshot, the newest result's time stands for it (no wall clock)
    assert_eq!(ids(&search_at(h, "flaky", None)), ["new", "old"]);
}

#[test]
fn a_clearly_stronger_old_match_beats_a_passing_mention_last_week() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    filler(h, 4);
    claude(
        h,
        "strong-old",
        "Flaky checkout test",
        "2025-01-10",
        &[turn(
            "The checkout test is flaky: it fails one run in five.",
            Some(("npm test -- --grep checkout", "1 failing: checkout flow")),
            "The flaky part is the clock; I froze it, and the flaky test passed 200 runs.",
        )],
    );
    claude(
        h,
        "passing",
        "Release notes",
        "2026-11-13",
        &[turn(
            "Write the release notes for 2.3 from the merged pull requests, grouped by area.",
            None,
            "Drafted CHANGELOG.md with features and fixes; one flaky job was retried in CI.",
        )],
    );
    let r = search_at(h, "flaky", Some("2026-11-20T00:00:00Z"));
    assert_eq!(ids(&r), ["strong-old", "passing"]);
}

#[test]
fn a_hit_weighs_by_where_it_is() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    filler(h, 4);
    let day = "2026-11-10";
    let plain = "Look at the service configuration please.";
    claude(
        h,
        "title",
        "Zookeeper setup",
        day,
        &[turn(plain, None, "Done.")],
    );
    claude(
        h,
        "said",
        "Service work",
        day,
        &[turn("Is zookeeper still needed?", None, "Done.")],
    );
    claude(
        h,
        "command",
        "Service work",
        day,
        &[turn(
            plain,
            Some(("systemctl status zookeeper", "active")),
            "Done.",
        )],
    );
    claude(
        h,
        "output",
        "Service work",
        day,
        &[turn(
            plain,
            Some(("systemctl status", "zookeeper active")),
            "Done.",
        )],
    );
    let r = search_at(h, "zookeeper", Some("2026-11-20T00:00:00Z"));
    assert_eq!(ids(&r), ["title", "said", "command", "output"]);
}

#[test]
fn sessions_holding_more_of_the_terms_rank_first() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    filler(h, 4);
    claude(
        h,
        "one-term",
        "Redis cache",
        "2026-11-18",
        &[turn(
            "The redis cache evicts keys; redis maxmemory is 1gb, redis policy allkeys-lru.",
            None,
            "Raise redis maxmemory or switch the redis policy.",
        )],
    );
    claude(
        h,
        "all-terms",
        "Caching",
        "2025-06-01",
        &[turn(
            "Should sessions live in redis, memcached or postgres?",
            None,
            "Keep them in postgres.",
        )],
    );
    claude(
        h,
        "two-terms",
        "Caching",
        "2026-11-18",
        &[turn(
            "Compare redis and memcached for the cache.",
            None,
            "Either works.",
        )],
    );
    let r = search_at(
        h,
        "redis OR memcached OR postgres",
        Some("2026-11-20T00:00:00Z"),
    );
    assert_eq!(ids(&r), ["all-terms", "two-terms", "one-term"]);
    assert_eq!(r[0].relevance_score, Some(1.0));
    assert!(r
        .windows(2)
        .all(|w| w[0].relevance_score > w[1].relevance_score));
}

#[test]
fn the_snippet_is_the_densest_window_preferring_conversation() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    filler(h, 4);
    let far = format!(
        "The kafka topic was created yesterday. {} Later we saw consumer lag on the kafka \
         consumer group orders.",
        "Nothing else of note happened during the rollout. ".repeat(6)
    );
    claude(
        h,
        "lag",
        "Rollout",
        "2026-11-10",
        &[turn(
            &far,
            Some((
                "kafka-consumer-groups --describe",
                "kafka consumer group orders lag 42",
            )),
            "Scaled the consumers.",
        )],
    );
    let r = search_at(h, "kafka consumer", Some("2026-11-20T00:00:00Z"));
    let snippet = r[0].snippet.as_deref().unwrap();
    // both words, side by side, from what the user wrote (not the first "kafka", not the log)
    assert!(
        snippet.contains("lag on the >>>kafka<<< >>>consumer<<< group"),
        "{snippet}"
    );
}

#[test]
fn the_same_conversation_scores_the_same_in_two_agents() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    filler(h, 4);
    let log = kafka_log();
    let turns = [
        turn(
            "Why does the kafka consumer lag after deploys?",
            Some(("kubectl logs deploy/orders", &log)),
            "The kafka consumer rebalances on every deploy; use static membership.",
        ),
        turn("Thanks, commit it.", None, "Committed."),
    ];
    claude(h, "same-claude", "Consumer lag", "2026-11-10", &turns);
    pi(h, "same-pi", "Consumer lag", "2026-11-10", &turns);
    let r = search_at(h, "kafka consumer", Some("2026-11-20T00:00:00Z"));
    assert_eq!(r.len(), 2, "{:?}", ids(&r));
    let (c, p) = (by_id(&r, "same-claude"), by_id(&r, "same-pi"));
    assert_eq!(c.relevance_score, Some(1.0));
    assert_eq!(p.relevance_score, c.relevance_score);
    // kafka: 300 in the log (once, though stored twice), 2 said; consumer: 2 said, 1 title
    assert_eq!(c.match_count, Some(305));
    assert_eq!(p.match_count, c.match_count);
    assert_eq!(p.snippet, c.snippet);
}
