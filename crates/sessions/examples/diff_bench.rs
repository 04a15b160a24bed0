//! Time `diff` on two 10,000-message sessions (the figures in bench/RESULTS.md).
//! `cargo run -p agent-mux-sessions --example diff_bench [n]`
use std::time::Instant;

use agent_mux_sessions::diff::diff;
use agent_mux_sessions::model::{Message, Role, Session, SessionSummary};

fn session(id: &str, messages: Vec<Message>) -> Session {
    let t = chrono::DateTime::from_timestamp(1_738_400_000, 0).unwrap();
    let mut s = Session {
        summary: SessionSummary::new("claude", id, t, t),
        messages,
        raw: None,
    };
    s.derive_summary_fields();
    s
}

/// `n` messages of user/assistant exchanges with realistic lengths (a few hundred bytes).
fn conversation(n: usize, salt: &str) -> Vec<Message> {
    (0..n)
        .map(|i| {
            let role = if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            let text = format!(
                "{salt}message {i}: {}",
                "lorem ipsum dolor sit amet ".repeat(10)
            );
            Message::new(role, text)
        })
        .collect()
}

fn time(label: &str, a: &Session, b: &Session) {
    let runs = 5;
    let mut best = f64::MAX;
    let mut stats = None;
    for _ in 0..runs {
        let start = Instant::now();
        let d = diff(a, b).unwrap();
        best = best.min(start.elapsed().as_secs_f64());
        stats = Some(d.stats);
    }
    println!(
        "{label:<44} {:>5} vs {:>5} msgs: best of {runs} {:>8.1} ms  {:?}",
        a.messages.len(),
        b.messages.len(),
        best * 1e3,
        stats.unwrap()
    );
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(10_000, |s| s.parse().unwrap());
    let a = session("a", conversation(n, ""));

    time("identical", &a, &a.clone());

    // Typical: a few edits, insertions and removals spread through, and a forked tail.
    let mut b = a.clone();
    for i in (3..n).step_by(97) {
        b.messages[i].content.push_str(" (edited)");
    }
    for i in (0..n - 100).step_by(500).rev() {
        b.messages.remove(i + 10);
        b.messages
            .insert(i, Message::new(Role::System, format!("note {i}")));
    }
    b.messages.truncate(n - 200);
    b.messages.extend(conversation(200, "fork "));
    time("scattered edits + fork", &a, &b);

    // Unrelated sessions: nothing in common, answered by dropping unique messages first.
    time("unrelated", &a, &session("c", conversation(n, "other ")));

    // Worst case for Myers: same distinct messages in reverse order (D = n + m - 2).
    let mut r = a.clone();
    r.messages.reverse();
    time("reversed (worst case)", &a, &r);

    // Reordered with many repeats: a third of the replies are "Done.", so the match list is too
    // long for the sparse path and Myers runs with a large D: the slowest case we know.
    let mut done = a.clone();
    for (i, m) in done.messages.iter_mut().enumerate() {
        if i % 6 == 1 {
            m.content = "Done.".into();
        }
    }
    let mut done_r = done.clone();
    done_r.messages.reverse();
    time("reversed, 1 reply in 3 is \"Done.\"", &done, &done_r);

    // Few distinct contents, shuffled: many matches possible, long LCS search.
    let small: Vec<Message> = (0..n)
        .map(|i| {
            Message::new(
                if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                },
                ["ok", "Done.", "continue", "y"][(i * 7 + i / 3) % 4],
            )
        })
        .collect();
    let mut shuffled = small.clone();
    shuffled.rotate_left(n / 3);
    for i in (0..n).step_by(5) {
        shuffled[i].content = ["ok", "Done.", "continue", "y"][(i / 5) % 4].into();
    }
    time(
        "4 distinct contents, rotated + rewritten",
        &session("s", small),
        &session("t", shuffled),
    );
}
