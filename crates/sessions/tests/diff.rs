//! Diff (spec 3.7, 6.6): LCS alignment on (role, content), classification, stats, references.
use crate::common;
use crate::sample;

use std::time::Instant;

use agent_mux_sessions::diff::{diff, DiffStats, OpType, SessionDiff};
use agent_mux_sessions::model::{Message, Role, Session};
use agent_mux_sessions::{Env, ErrorCode};
use sample::{msg, session};

fn conversation(agent: &str, id: &str, turns: &[(&str, &str)]) -> Session {
    let mut ms = Vec::new();
    for (i, (q, a)) in turns.iter().enumerate() {
        let ts = format!("2025-02-01T10:{:02}:00.000Z", i % 60);
        ms.push(msg(Role::User, q, &ts));
        ms.push(msg(Role::Assistant, a, &ts));
    }
    session(
        agent,
        id,
        "2025-02-01T10:00:00.000Z",
        "2025-02-01T11:00:00.000Z",
        ms,
    )
}

fn stats(removals: u64, additions: u64, modifications: u64, unchanged: u64) -> DiffStats {
    DiffStats {
        removals,
        additions,
        modifications,
        unchanged,
    }
}

/// Operations as (type, indexA, indexB), for exact comparison.
fn ops(d: &SessionDiff) -> Vec<(OpType, Option<usize>, Option<usize>)> {
    d.operations
        .iter()
        .map(|o| (o.op, o.index_a, o.index_b))
        .collect()
}

/// Every operation carries the messages its indices point at, and the indices walk both sessions
/// in order, each message exactly once.
fn check_consistent(d: &SessionDiff, a: &Session, b: &Session) {
    let (mut na, mut nb) = (0, 0);
    for o in &d.operations {
        assert_eq!(o.message_a.as_ref(), o.index_a.map(|i| &a.messages[i]));
        assert_eq!(o.message_b.as_ref(), o.index_b.map(|i| &b.messages[i]));
        if let Some(i) = o.index_a {
            assert_eq!(i, na);
            na += 1;
        }
        if let Some(j) = o.index_b {
            assert_eq!(j, nb);
            nb += 1;
        }
        match o.op {
            OpType::Addition => assert!(o.index_a.is_none() && o.index_b.is_some()),
            OpType::Removal => assert!(o.index_a.is_some() && o.index_b.is_none()),
            OpType::Unchanged | OpType::Modification => {
                let (ma, mb) = (o.message_a.as_ref().unwrap(), o.message_b.as_ref().unwrap());
                assert_eq!(ma.role, mb.role);
                assert_eq!(ma.content == mb.content, o.op == OpType::Unchanged);
            }
        }
    }
    assert_eq!((na, nb), (a.messages.len(), b.messages.len()));
}

const TURNS: [(&str, &str); 3] = [
    ("Add a --verbose flag", "Added it in src/cli.rs."),
    ("Now document it", "README updated."),
    ("Run the tests", "All 41 pass."),
];

#[test]
fn identical_sessions_are_all_unchanged() {
    let a = conversation("claude", "a", &TURNS);
    let d = diff(&a, &a).unwrap();
    assert_eq!(d.stats, stats(0, 0, 0, 6));
    assert!(ops(&d)
        .iter()
        .enumerate()
        .all(|(i, o)| *o == (OpType::Unchanged, Some(i), Some(i))));
    check_consistent(&d, &a, &a);
}

#[test]
fn fork_shares_a_prefix_then_diverges() {
    let parent = conversation("claude", "parent", &TURNS);
    let fork = conversation(
        "claude",
        "fork",
        &[
            TURNS[0],
            TURNS[1],
            ("Run the tests with --release", "All 41 pass in 3.2s."),
            ("Commit it", "Committed as 1a2b3c4."),
        ],
    );
    let d = diff(&parent, &fork).unwrap();
    assert_eq!(d.stats, stats(0, 2, 2, 4));
    use OpType::*;
    assert_eq!(
        ops(&d),
        vec![
            (Unchanged, Some(0), Some(0)),
            (Unchanged, Some(1), Some(1)),
            (Unchanged, Some(2), Some(2)),
            (Unchanged, Some(3), Some(3)),
            (Modification, Some(4), Some(4)),
            (Modification, Some(5), Some(5)),
            (Addition, None, Some(6)),
            (Addition, None, Some(7)),
        ]
    );
    check_consistent(&d, &parent, &fork);
    assert_eq!(d.a.unified_id, "claude:parent");
    assert_eq!(d.b.unified_id, "claude:fork");
}

#[test]
fn pure_additions() {
    let a = conversation("claude", "a", &TURNS[..1]);
    let b = conversation("claude", "b", &TURNS);
    let d = diff(&a, &b).unwrap();
    assert_eq!(d.stats, stats(0, 4, 0, 2));
    let added: Vec<_> = d
        .operations
        .iter()
        .filter(|o| o.op == OpType::Addition)
        .map(|o| o.index_b.unwrap())
        .collect();
    assert_eq!(added, vec![2, 3, 4, 5]);
    // and the reverse is pure removals
    let r = diff(&b, &a).unwrap();
    assert_eq!(r.stats, stats(4, 0, 0, 2));
    check_consistent(&r, &b, &a);
}

#[test]
fn modifications_pair_same_roles_only() {
    let a = conversation("claude", "a", &TURNS);
    let mut b = a.clone();
    b.messages[3].content = "README and CHANGELOG updated.".into();
    // a system note where a has a user message: different role, so removal + addition
    b.messages[4] = Message::new(Role::System, "Context compacted.");
    let d = diff(&a, &b).unwrap();
    use OpType::*;
    assert_eq!(
        ops(&d),
        vec![
            (Unchanged, Some(0), Some(0)),
            (Unchanged, Some(1), Some(1)),
            (Unchanged, Some(2), Some(2)),
            (Modification, Some(3), Some(3)),
            (Removal, Some(4), None),
            (Addition, None, Some(4)),
            (Unchanged, Some(5), Some(5)),
        ]
    );
    assert_eq!(d.stats, stats(1, 1, 1, 4));
    check_consistent(&d, &a, &b);
}

#[test]
fn only_role_and_content_count() {
    let a = conversation("claude", "a", &TURNS);
    let mut b = a.clone();
    b.messages[1].timestamp = None;
    b.messages[1].model = Some("other-model".into());
    b.messages[1].thinking = Some("hmm".into());
    let d = diff(&a, &b).unwrap();
    assert_eq!(d.stats, stats(0, 0, 0, 6));
}

#[test]
fn across_agents_on_the_same_prompt() {
    let claude = sample::claude();
    let codex = sample::codex();
    let d = diff(&claude, &codex).unwrap();
    assert_eq!(d.a.agent, "claude");
    assert_eq!(d.b.agent, "codex");
    assert_eq!(
        d.a.unified_id,
        "claude:6f1c2a9e-3b7d-4c1e-9a55-0d2f4e8b7c31"
    );
    assert_eq!(d.b.unified_id, "codex:5973b6c0-94b8-487b-a530-2aeb6098ae0e");
    use OpType::*;
    // claude: U A T A T A A      codex: S U A T A
    // The shared prompt aligns; after it, same roles pair up as modifications in order.
    assert_eq!(
        ops(&d),
        vec![
            (Addition, None, Some(0)),
            (Unchanged, Some(0), Some(1)),
            (Modification, Some(1), Some(2)),
            (Modification, Some(2), Some(3)),
            (Modification, Some(3), Some(4)),
            (Removal, Some(4), None),
            (Removal, Some(5), None),
            (Removal, Some(6), None),
        ]
    );
    assert_eq!(d.stats, stats(3, 1, 3, 1));
    check_consistent(&d, &claude, &codex);
}

#[test]
fn serialises_as_the_spec_shape() {
    let a = conversation("claude", "a", &TURNS[..1]);
    let b = conversation("codex", "b", &TURNS[..2]);
    let v = serde_json::to_value(diff(&a, &b).unwrap()).unwrap();
    assert_eq!(
        v["a"],
        serde_json::json!({"agent": "claude", "sessionId": "a", "unifiedId": "claude:a"})
    );
    assert_eq!(
        v["stats"],
        serde_json::json!({"removals": 0, "additions": 2, "modifications": 0, "unchanged": 2})
    );
    let add = &v["operations"][2];
    assert_eq!(add["type"], "addition");
    assert_eq!(add["indexB"], 2);
    assert!(add.get("indexA").is_none() && add.get("messageA").is_none());
    assert_eq!(add["messageB"]["content"], "Now document it");
    assert_eq!(
        v["operations"][0]["messageA"]["timestamp"],
        "2025-02-01T10:00:00.000Z"
    );
}

#[test]
fn missing_sessions_and_agents_are_errors() {
    let home = tempfile::tempdir().unwrap();
    let client = common::client();
    let env = || Env::with_home(home.path());
    let e = client
        .diff(env(), ("claude", "x"), ("codex", "y"), None)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SessionNotFound);
    let e = client
        .diff(env(), ("claude", "x"), ("nope", "y"), None)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::AgentNotFound);
    assert!(e.message.contains("nope"));
    let e = client
        .diff(env(), ("nope", "x"), ("claude", "y"), None)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::AgentNotFound);
}

/// Two long sessions: `b` edits every 50th assistant reply, drops one exchange in 200, inserts a
/// new exchange every 250 (never next to a dropped one, which would pair up as modifications),
/// and ends in a fork of 40 new messages.
fn long_pair(n: usize) -> (Session, Session, DiffStats) {
    let mut a = Vec::with_capacity(n);
    let mut b = Vec::with_capacity(n);
    let mut expect = DiffStats::default();
    let ts = "2025-02-01T10:00:00.000Z";
    let pairs = (n - 40) / 2;
    for p in 0..pairs {
        let q = format!("step {p}: run the next migration batch");
        // Replies repeat a lot in real sessions ("Done."), which makes alignment harder.
        let r = if p % 3 == 0 {
            "Done.".to_string()
        } else {
            format!("Batch {p} migrated, {} rows.", p * 7)
        };
        a.push(msg(Role::User, &q, ts));
        a.push(msg(Role::Assistant, &r, ts));
        if p % 200 == 199 {
            expect.removals += 2;
            continue;
        }
        if p % 250 == 125 {
            b.push(msg(Role::User, &format!("extra question {p}"), ts));
            b.push(msg(Role::Assistant, &format!("extra answer {p}"), ts));
            expect.additions += 2;
        }
        b.push(msg(Role::User, &q, ts));
        if p % 50 == 7 {
            b.push(msg(Role::Assistant, &format!("{r} (edited)"), ts));
            expect.unchanged += 1;
            expect.modifications += 1;
        } else {
            b.push(msg(Role::Assistant, &r, ts));
            expect.unchanged += 2;
        }
    }
    for i in 0..20 {
        a.push(msg(Role::User, &format!("old tail {i}"), ts));
        a.push(msg(Role::Assistant, &format!("old reply {i}"), ts));
        b.push(msg(Role::User, &format!("new tail {i}"), ts));
        b.push(msg(Role::Assistant, &format!("new reply {i}"), ts));
        expect.modifications += 2;
    }
    (
        session("claude", "long-a", ts, ts, a),
        session("codex", "long-b", ts, ts, b),
        expect,
    )
}

#[test]
fn ten_thousand_messages_diff_fast() {
    let (a, b, expect) = long_pair(10_000);
    assert_eq!(a.messages.len(), 10_000);
    let start = Instant::now();
    let d = diff(&a, &b).unwrap();
    let took = start.elapsed();
    eprintln!(
        "diff of {} vs {} messages: {:?} ({:?})",
        a.messages.len(),
        b.messages.len(),
        took,
        d.stats
    );
    assert_eq!(d.stats, expect);
    check_consistent(&d, &a, &b);
    // Loose on purpose (shared CI machines); the real figure is in bench/RESULTS.md.
    assert!(took.as_secs_f64() < 5.0, "took {took:?}");
}

#[test]
fn ten_thousand_messages_worst_case_order() {
    // Same messages, reversed order: the LCS is tiny and Myers does its most work (D ≈ n + m).
    let (a, _, _) = long_pair(10_000);
    let mut b = a.clone();
    b.messages.reverse();
    let start = Instant::now();
    let d = diff(&a, &b).unwrap();
    let took = start.elapsed();
    eprintln!("reversed 10k diff: {took:?} ({:?})", d.stats);
    check_consistent(&d, &a, &b);
    assert!(took.as_secs_f64() < 5.0, "took {took:?}");
}
