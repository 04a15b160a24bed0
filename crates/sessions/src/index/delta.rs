//! What a session read again changes in the counts the index holds for it. A session that grew
//! (an agent appended lines) is compared with what was stored message by message; only the
//! messages after the first difference, and those whose counting depends on what changed, are
//! counted, once as stored and once as read now. The index then writes only the counts that
//! differ, so an append costs what was appended, not what the session holds.
use std::collections::HashSet;
use std::ops::Range;

use super::codec::{self, Corrupt};
use crate::model::{Message, Session};
use crate::search::terms::{answered_calls, TermCount, TermStats};

/// A session as read now, in the form the index stores: its messages encoded and packed (the
/// reader threads pack, and a batch held in memory is the size the index stores), where each
/// message is in the encoding, the calls its tool messages answer, and its title.
pub struct Reread {
    pub packed: Vec<u8>,
    pub spans: Vec<Range<usize>>,
    pub answered: HashSet<String>,
    pub title: String,
}

impl Reread {
    pub fn new(s: &Session) -> Reread {
        let (stored, spans) = codec::messages_spanned(&s.messages);
        Reread {
            packed: codec::pack(&stored),
            spans,
            answered: answered_calls(&s.messages)
                .into_iter()
                .map(str::to_string)
                .collect(),
            title: s.summary.title.clone(),
        }
    }

    /// The messages as search reads them back from the index.
    pub fn messages(&self) -> Result<Vec<Message>, Corrupt> {
        codec::decode_messages(&codec::unpack(&self.packed)?)
    }

    /// The session's counts, as `term_stats` counts the session read (the stored form of a
    /// message counts as the message does).
    pub fn stats(&self) -> Result<TermStats, Corrupt> {
        let messages = self.messages()?;
        let mut st = TermStats::default();
        st.add_messages(&messages, &answered_calls(&messages));
        st.add_title(&self.title);
        Ok(st)
    }
}

/// The counts to take away (`sub`, as stored) and to add (`add`, as read now); the rest of the
/// stored counts stand.
pub struct Delta {
    pub sub: TermStats,
    pub add: TermStats,
    /// Whether the stored messages differ from those read now.
    pub messages_changed: bool,
}

/// Compare the stored messages (`old`, as `codec::messages` wrote and `codec::pack` packed them)
/// and title with the session read now.
pub fn delta(old: &[u8], old_title: &str, now: &Reread) -> Result<Delta, Corrupt> {
    let nothing = || Delta {
        sub: TermStats::default(),
        add: TermStats::default(),
        messages_changed: false,
    };
    // The common case in a store of many sessions of which one changed: nothing unpacked.
    if old == now.packed && old_title == now.title {
        return Ok(nothing());
    }
    let (old, stored) = (codec::unpack(old)?, codec::unpack(&now.packed)?);
    if old == stored && old_title == now.title {
        return Ok(nothing());
    }
    let (before, before_spans) = codec::decode_messages_spanned(&old)?;
    let same = |i: usize| old[before_spans[i].clone()] == stored[now.spans[i].clone()];
    let common = before.len().min(now.spans.len());
    let first_change = (0..common).find(|&i| !same(i)).unwrap_or(common);
    let messages_changed = first_change < before.len() || first_change < now.spans.len();

    // A call's output counts at the call unless a tool message answers it: a call whose
    // answer came or went changes the count of its message, which itself did not change.
    let answered_before = answered_calls(&before);
    let answered_now: HashSet<&str> = now.answered.iter().map(String::as_str).collect();
    let flipped: HashSet<&str> = answered_before
        .symmetric_difference(&answered_now)
        .copied()
        .collect();
    let touched = |m: &Message| {
        m.tool_calls
            .iter()
            .any(|c| flipped.contains(c.tool_call_id.as_str()))
    };

    let mut sub = TermStats::default();
    let mut add = TermStats::default();
    let mut recount: Vec<usize> = Vec::new();
    if !flipped.is_empty() {
        recount.extend((0..first_change).filter(|&i| touched(&before[i])));
    }
    for &i in &recount {
        sub.add_messages(&before[i..=i], &answered_before);
    }
    sub.add_messages(&before[first_change..], &answered_before);
    if !recount.is_empty() || first_change < now.spans.len() {
        // Only the messages counted again are decoded (the whole encoding is walked once).
        let messages = codec::decode_messages(&stored)?;
        for &i in &recount {
            add.add_messages(&messages[i..=i], &answered_now);
        }
        add.add_messages(&messages[first_change..], &answered_now);
    }
    if old_title != now.title {
        sub.add_title(old_title);
        add.add_title(&now.title);
    }
    Ok(Delta {
        sub,
        add,
        messages_changed,
    })
}

impl Delta {
    /// Move `stats` (a session's counts as stored) by the delta, as the index moves its rows:
    /// a token whose counts fall to nothing is gone. `None` when the delta takes away more than
    /// `stats` holds. (The index applies it row by row; tests compare the two.)
    pub fn apply(&self, stats: &mut TermStats) -> Option<()> {
        for (k, n) in stats.lengths.iter_mut().enumerate() {
            *n = (*n + self.add.lengths[k]).checked_sub(self.sub.lengths[k])?;
        }
        let zero = TermCount::default();
        let tokens = self.add.terms.keys().chain(self.sub.terms.keys());
        for t in tokens.cloned().collect::<HashSet<String>>() {
            let have = stats.terms.get(&t).unwrap_or(&zero);
            let now = have.adjusted(
                self.add.terms.get(&t).unwrap_or(&zero),
                self.sub.terms.get(&t).unwrap_or(&zero),
            )?;
            if now == zero {
                stats.terms.remove(&t);
            } else {
                stats.terms.insert(t, now);
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Role, SessionSummary, ToolCall, ToolResult};
    use crate::search::terms::term_stats;
    use serde_json::json;

    fn text(role: Role, t: &str) -> Message {
        Message::new(role, t.to_string())
    }

    fn call(id: &str, input: &str, output: Option<&str>) -> Message {
        let mut m = text(Role::Assistant, "running a tool");
        m.tool_calls.push(ToolCall {
            tool_call_id: id.to_string(),
            tool_name: "shell".to_string(),
            input: json!({"command": input}),
            output: output.map(|o| json!(o)),
            duration_ms: None,
            output_at_result: false,
        });
        m
    }

    fn answer(id: &str, content: &str, output: &str) -> Message {
        let mut m = text(Role::Tool, content);
        m.tool_result = Some(ToolResult {
            tool_call_id: id.to_string(),
            tool_name: "shell".to_string(),
            output: json!(output),
        });
        m
    }

    fn session(title: &str, messages: Vec<Message>) -> Session {
        let mut summary =
            SessionSummary::new("claude", "s1", Default::default(), Default::default());
        summary.title = title.to_string();
        Session {
            summary,
            messages,
            raw: None,
        }
    }

    /// The stored counts of `before`, moved by the delta to `after`, are `after`'s own counts.
    fn assert_moves(before: &Session, after: &Session) {
        let old = codec::pack(&codec::messages(&before.messages));
        let d = delta(&old, &before.summary.title, &Reread::new(after)).unwrap();
        let mut have = term_stats(before);
        d.apply(&mut have)
            .expect("the delta takes away only what was counted");
        assert_eq!(have, term_stats(after));
        assert_eq!(d.messages_changed, before.messages != after.messages);
    }

    fn base() -> Vec<Message> {
        vec![
            text(Role::User, "deploy the zebrafish service"),
            call("c1", "kubectl apply -f zebrafish.yaml", Some("created")),
            answer("c1", "created", "created deployment zebrafish"),
            text(Role::Assistant, "The zebrafish service is deployed."),
        ]
    }

    #[test]
    fn an_append_moves_the_counts_to_those_of_the_grown_session() {
        let before = session("deploy", base());
        let mut grown = base();
        grown.push(text(Role::User, "and scale the okapi pods"));
        assert_moves(&before, &session("deploy", grown));
        // Unchanged: nothing to count.
        let same = session("deploy", base());
        let d = delta(
            &codec::pack(&codec::messages(&before.messages)),
            "deploy",
            &Reread::new(&same),
        )
        .unwrap();
        assert!(d.add.terms.is_empty() && d.sub.terms.is_empty() && !d.messages_changed);
    }

    #[test]
    fn a_change_before_the_end_a_new_title_and_a_shrink_are_counted() {
        let before = session("deploy", base());
        // A split response merged into the last message, and a new title.
        let mut merged = base();
        merged[3].content.push_str(" Scaling next.");
        assert_moves(&before, &session("deploy zebrafish", merged));
        // Truncated.
        assert_moves(&before, &session("deploy", base()[..2].to_vec()));
        // Emptied.
        assert_moves(&before, &session("", Vec::new()));
        // A message inserted in the middle (a subagent's, spliced in by time).
        let mut inserted = base();
        inserted.insert(1, text(Role::Assistant, "subagent: checking okapi"));
        assert_moves(&before, &session("deploy", inserted));
    }

    #[test]
    fn an_answer_that_arrives_later_recounts_the_call_it_answers() {
        // The call's output counts at the call until a tool message answers it.
        let mut before = base();
        before.push(call("c2", "kubectl get pods", Some("okapi-1 Running")));
        let mut after = before.clone();
        after.push(answer("c2", "okapi-1 Running", "okapi-1 Running"));
        assert_moves(&session("t", before.clone()), &session("t", after.clone()));
        // And back: the answer is gone again.
        assert_moves(&session("t", after), &session("t", before));
    }
}
