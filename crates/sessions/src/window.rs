//! A window of one session's messages: those around the hits of a query (with some context on
//! each side), or a run of them from a given index. A reader of a long session (a model through
//! `amux mcp`, a page of `amux ui`) takes only what it shows, and a query's hits are found by the
//! search engine's own matcher, not by the caller.
use serde::Serialize;

use crate::model::{MarkedCalls, Message, Session, SessionSummary};
use crate::query::prefilter::Prefilter;
use crate::search::score::{message_hits, Matcher};
use crate::search::Query;

/// Messages kept on each side of a hit when none is asked for.
pub const DEFAULT_CONTEXT: usize = 2;

#[derive(Debug, Clone, PartialEq)]
pub struct WindowOptions {
    /// Keep only the messages holding a hit of this query, with `context` messages on each side.
    pub around: Option<String>,
    pub context: usize,
    /// Leave out the messages before this index.
    pub from: usize,
    /// At most this many messages.
    pub limit: usize,
    /// Redact secrets (`crate::redact`); `None`: as the client does.
    pub redact: Option<bool>,
}

impl Default for WindowOptions {
    fn default() -> Self {
        WindowOptions {
            around: None,
            context: DEFAULT_CONTEXT,
            from: 0,
            limit: usize::MAX,
            redact: None,
        }
    }
}

/// A message that holds a hit: its index and its best matching passage (`>>>hit<<<` marked).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageHit {
    pub index: usize,
    pub snippet: String,
}

/// One message of the window with its index in the session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowMessage {
    pub index: usize,
    pub message: Message,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageWindow {
    /// The session's summary (its `messageCount` is that of the whole session).
    pub session: SessionSummary,
    /// With `around`: every message of the session that holds a hit, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hits: Option<Vec<MessageHit>>,
    /// The messages kept, in order.
    pub messages: Vec<WindowMessage>,
}

/// The window `opts` asks for out of `session`, read as search reads it (`Mode::Messages`:
/// no `raw`, a call's output may be left to the tool message that answers it; the calls returned
/// get theirs back). A query with nothing left to search after sanitising has no hits, so
/// nothing is kept around it.
pub fn select(session: Session, opts: &WindowOptions) -> MessageWindow {
    let Session {
        mut summary,
        mut messages,
        ..
    } = session;
    summary.message_count = messages.len() as u64;
    let hits = opts.around.as_deref().map(|text| match Query::parse(text) {
        Some(mut q) => {
            q.redact = opts.redact == Some(true);
            let pf = Prefilter::new(&q);
            message_hits(&Matcher::new(&q, &pf), &messages)
                .into_iter()
                .map(|(index, snippet)| MessageHit { index, snippet })
                .collect()
        }
        None => Vec::new(),
    });
    let kept = kept(messages.len(), hits.as_deref(), opts.context);
    let mut returned = vec![false; messages.len()];
    for i in (opts.from..messages.len())
        .filter(|&i| kept(i))
        .take(opts.limit)
    {
        returned[i] = true;
    }
    link_outputs(&mut messages, &returned);
    let messages = messages
        .into_iter()
        .enumerate()
        .filter(|(i, _)| returned[*i])
        .map(|(index, message)| WindowMessage { index, message })
        .collect();
    MessageWindow {
        session: summary,
        hits,
        messages,
    }
}

/// Give the calls of the `returned` messages that were read without their output (marked
/// `output_at_result`) a copy of the answering tool message's output, as `get` has them: what
/// `Session::link_call_outputs` does, for these messages only.
fn link_outputs(messages: &mut [Message], returned: &[bool]) {
    let mut marked = MarkedCalls::default();
    for mi in 0..messages.len() {
        let Some((cm, ci)) = marked.step(mi, &messages[mi]) else {
            continue;
        };
        if returned[cm] {
            let output = messages[mi].tool_result.as_ref().map(|r| r.output.clone());
            messages[cm].tool_calls[ci].output = output;
        }
    }
}

/// Which indices of `len` messages are kept: all without hits to go by, else those within
/// `context` of a hit.
fn kept(len: usize, hits: Option<&[MessageHit]>, context: usize) -> impl Fn(usize) -> bool {
    let mut keep = vec![hits.is_none(); len];
    for h in hits.unwrap_or_default() {
        let end = h.index.saturating_add(context).min(len.saturating_sub(1));
        for k in keep
            .iter_mut()
            .take(end + 1)
            .skip(h.index.saturating_sub(context))
        {
            *k = true;
        }
    }
    move |i| keep[i]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Role;
    use chrono::TimeZone;
    use serde_json::Value;

    fn session(texts: &[&str]) -> Session {
        let t = chrono::Utc.timestamp_opt(1_700_000_000, 0).unwrap();
        Session {
            summary: SessionSummary::new("x", "s1", t, t),
            messages: texts.iter().map(|s| Message::new(Role::User, *s)).collect(),
            raw: None,
        }
    }

    fn indices(w: &MessageWindow) -> Vec<usize> {
        w.messages.iter().map(|m| m.index).collect()
    }

    const TEXTS: &[&str] = &[
        "zero",
        "one",
        "two",
        "three",
        "kubernetes pod",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "Kubernetes again",
        "twelve",
    ];

    #[test]
    fn around_keeps_hits_and_their_context() {
        let opts = WindowOptions {
            around: Some("kubernetes".into()),
            context: 1,
            ..Default::default()
        };
        let w = select(session(TEXTS), &opts);
        let hits: Vec<usize> = w.hits.as_ref().unwrap().iter().map(|h| h.index).collect();
        assert_eq!(hits, [4, 11]);
        assert_eq!(indices(&w), [3, 4, 5, 10, 11, 12]);
        assert_eq!(w.session.message_count, 13);
        assert_eq!(w.hits.unwrap()[1].snippet, ">>>Kubernetes<<< again");
    }

    #[test]
    fn from_and_limit_page_through_what_is_kept() {
        let opts = WindowOptions {
            around: Some("kubernetes".into()),
            context: 2,
            from: 5,
            limit: 3,
            redact: None,
        };
        assert_eq!(indices(&select(session(TEXTS), &opts)), [5, 6, 9]);
        let all = WindowOptions {
            from: 11,
            ..Default::default()
        };
        assert_eq!(indices(&select(session(TEXTS), &all)), [11, 12]);
    }

    #[test]
    fn the_query_language_is_the_search_engines() {
        let ask = |q: &str| {
            let opts = WindowOptions {
                around: Some(q.into()),
                context: 0,
                ..Default::default()
            };
            let w = select(session(TEXTS), &opts);
            w.hits.unwrap().iter().map(|h| h.index).collect::<Vec<_>>()
        };
        assert_eq!(ask("kube*"), [4, 11]);
        assert_eq!(ask("\"kubernetes again\""), [11]);
        assert_eq!(ask("pod OR twelve"), [4, 12]);
        // A message is marked by the leaves that count, the NOT-ed one is not looked for.
        assert_eq!(ask("kubernetes NOT pod"), [4, 11]);
        assert_eq!(ask("five NOT pod"), [5]);
        assert_eq!(ask("zzqxjw"), Vec::<usize>::new());
        // Nothing searchable: no hits, so nothing is kept around them.
        assert_eq!(ask("\"\""), Vec::<usize>::new());
    }

    #[test]
    fn the_calls_returned_get_their_output_back() {
        use crate::model::{ToolCall, ToolResult};
        let mut s = session(&["run it", "", "", "done"]);
        s.messages[1].role = Role::Assistant;
        s.messages[1].tool_calls.push(ToolCall {
            tool_call_id: "c1".into(),
            tool_name: "Bash".into(),
            input: serde_json::json!({"command": "make"}),
            output: None,
            duration_ms: None,
            output_at_result: true,
        });
        s.messages[2].role = Role::Tool;
        s.messages[2].tool_result = Some(ToolResult {
            tool_call_id: "c1".into(),
            tool_name: "Bash".into(),
            output: Value::String("built".into()),
        });
        let call = |w: &MessageWindow| w.messages[0].message.tool_calls[0].output.clone();
        let only_call = WindowOptions {
            from: 1,
            limit: 1,
            ..Default::default()
        };
        assert_eq!(
            call(&select(s.clone(), &only_call)),
            Some(Value::String("built".into()))
        );
        // A call read with its output keeps it.
        s.messages[1].tool_calls[0].output_at_result = false;
        s.messages[1].tool_calls[0].output = Some(Value::String("own".into()));
        assert_eq!(
            call(&select(s, &only_call)),
            Some(Value::String("own".into()))
        );
    }
}
