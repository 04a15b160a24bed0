//! What a session read again changes in the counts the index holds for it. A session that grew
//! (an agent appended lines) is compared with what was stored message by message; only the
//! messages after the first difference, and those whose counting depends on what changed, are
//! counted, once as stored and once as read now. The index then writes only the counts that
//! differ, so an append costs what was appended, not what the session holds.
use std::collections::HashSet;

use super::codec::{self, Corrupt};
use crate::model::Session;
use crate::query::fields::{answered_ids, FIELDS};
use crate::query::terms::{TermCount, TermStats};

/// A session as read now, in the form the index stores: its messages encoded and packed (the
/// reader threads pack, and a batch held in memory is the size the index stores), and its title.
pub struct Reread {
    pub packed: Vec<u8>,
    pub title: String,
}

impl Reread {
    pub fn new(s: &Session) -> Reread {
        Reread {
            packed: codec::pack(&codec::messages(&s.messages)),
            title: s.summary.title.clone(),
        }
    }

    /// The session's counts, as `term_stats` counts the session read (the stored form of a
    /// message counts as the message does).
    pub fn stats(&self) -> Result<TermStats, Corrupt> {
        let messages = codec::decode_messages(&codec::unpack(&self.packed)?)?;
        Ok(TermStats::of(&messages, &self.title))
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
    let mut d = Delta {
        sub: TermStats::default(),
        add: TermStats::default(),
        messages_changed: false,
    };
    if old_title != now.title {
        d.sub.add_title(old_title);
        d.add.add_title(&now.title);
    }
    // The common case in a store of many sessions of which one changed: nothing unpacked.
    if old == now.packed {
        return Ok(d);
    }
    let (old, new) = (codec::unpack(old)?, codec::unpack(&now.packed)?);
    if old == new {
        return Ok(d);
    }
    // Encodings that differ hold a message that differs, or more or fewer messages.
    d.messages_changed = true;
    let (before, after) = (
        codec::outline_messages(&old)?,
        codec::outline_messages(&new)?,
    );
    let same = |i: usize| old[before[i].span.clone()] == new[after[i].span.clone()];
    let common = before.len().min(after.len());
    let first_change = (0..common).find(|&i| !same(i)).unwrap_or(common);

    // A call's output counts at the call unless a tool message answers it: a call whose
    // answer came or went changes the count of its message, which itself did not change.
    let (answered_before, answered_now) = (answered(&before), answered(&after));
    let flipped: HashSet<&str> = answered_before
        .symmetric_difference(&answered_now)
        .copied()
        .collect();
    let recount: Vec<usize> = (0..first_change)
        .filter(|&i| before[i].calls.iter().any(|c| flipped.contains(c)))
        .collect();
    let old_tail = recount.iter().copied().chain(first_change..before.len());
    count(&mut d.sub, &old, &before, old_tail, &answered_before)?;
    let new_tail = recount.iter().copied().chain(first_change..after.len());
    count(&mut d.add, &new, &after, new_tail, &answered_now)?;
    Ok(d)
}

/// The calls the tool messages answer, as `score::answered` reads them.
fn answered<'a>(outline: &[codec::Outline<'a>]) -> HashSet<&'a str> {
    answered_ids(outline.iter().filter_map(|m| m.answers))
}

/// Add the counts of the messages at `which`, decoding only those.
fn count(
    stats: &mut TermStats,
    encoded: &[u8],
    outline: &[codec::Outline<'_>],
    which: impl Iterator<Item = usize>,
    answered: &HashSet<&str>,
) -> Result<(), Corrupt> {
    for i in which {
        let m = codec::decode_message(encoded, outline[i].span.clone())?;
        stats.add_messages(std::slice::from_ref(&m), answered);
    }
    Ok(())
}

impl Delta {
    /// A session's field lengths as stored, moved by the delta; `None` when it takes away more
    /// than they hold.
    pub fn lengths(&self, stored: &[u64; FIELDS]) -> Option<[u64; FIELDS]> {
        let mut out = *stored;
        for (k, n) in out.iter_mut().enumerate() {
            *n = (*n + self.add.lengths[k]).checked_sub(self.sub.lengths[k])?;
        }
        Some(out)
    }

    /// Move `stats` (a session's counts as stored) by the delta, as the index moves its rows:
    /// a token whose counts fall to nothing is gone. `None` when the delta takes away more than
    /// `stats` holds. (The index applies it row by row; tests compare the two.)
    pub fn apply(&self, stats: &mut TermStats) -> Option<()> {
        stats.lengths = self.lengths(&stats.lengths)?;
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
    use crate::model::{Message, Role, SessionSummary, ToolCall, ToolResult};
    use crate::query::terms::term_stats;
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
