//! The searchable texts of a session, in the order every count of them reads them: which field
//! each sits in (`Field`), whether it is a copy of the text before it (`TextKind`), and the calls
//! whose output a tool message carries (`answered`). Search's analysis (`search::score`) and the
//! index's documents (`index::postings::document`) both read a session through `for_each_field`,
//! so they count alike.
use serde_json::Value;
use std::collections::HashSet;

use crate::model::{Message, Role};

/// Where a text sits in a session. Search weighs a hit by its field (`search::score`), and term
/// frequency saturates per field, so a log that repeats a word a thousand times counts for less
/// than a conversation about it. Earlier fields are also preferred for snippets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    Title,
    /// What the user typed and the assistant wrote.
    Conversation,
    /// The model's thinking, and system or injected text.
    Thinking,
    /// Tool names and inputs (commands, file paths, edits).
    ToolInput,
    /// Tool outputs (logs, file contents, command output).
    ToolOutput,
}

pub const FIELDS: usize = 5;

impl Field {
    pub const ALL: [Field; FIELDS] = [
        Field::Title,
        Field::Conversation,
        Field::Thinking,
        Field::ToolInput,
        Field::ToolOutput,
    ];

    /// The field of a message's `content`.
    pub fn of_content(role: Role) -> Field {
        match role {
            Role::User | Role::Assistant => Field::Conversation,
            Role::System => Field::Thinking,
            Role::Tool => Field::ToolOutput,
        }
    }
}

/// Occurrences of one leaf, per field (indexed by `Field as usize`).
pub type FieldCounts = [u32; FIELDS];

/// Occurrences per leaf of a query, per field. Held inline for up to two leaves: a word in every
/// session makes a count of each of tens of thousands of sessions, and a heap block for each is
/// allocated, copied and freed at every search.
pub type LeafCounts = smallvec::SmallVec<[FieldCounts; 2]>;

/// How a text relates to the one read before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A text of its own.
    Own,
    /// Another rendering of the previous text (a tool message's output, whose content the
    /// agent also filled with it): only what it holds beyond that text counts.
    CopyOfPrevious,
}

impl TextKind {
    /// What a text counts of `n` (bytes, occurrences) when the text before it had `seen`: a
    /// copy counts only what it holds beyond the text it copies.
    pub fn beyond(self, n: u64, seen: u64) -> u64 {
        match self {
            TextKind::Own => n,
            TextKind::CopyOfPrevious => n.saturating_sub(seen),
        }
    }
}

/// Every searchable text of a session after its title, in order, with its field: message
/// content, thinking, tool names and inputs, outputs. Each text is read once: a call's output
/// that a tool message of the session also carries (`answered`) is read there, and a tool
/// message's output is read as a copy of its content. Tool texts are assembled in `scratch`.
pub fn for_each_field(
    messages: &[Message],
    answered: &HashSet<&str>,
    scratch: &mut String,
    f: &mut dyn FnMut(Field, &str, TextKind),
) {
    for m in messages {
        if !m.content.is_empty() {
            f(Field::of_content(m.role), &m.content, TextKind::Own);
        }
        if let Some(t) = m.thinking.as_deref().filter(|t| !t.is_empty()) {
            f(Field::Thinking, t, TextKind::Own);
        }
        for c in &m.tool_calls {
            scratch.clear();
            scratch.push_str(&c.tool_name);
            push_strings(&c.input, scratch);
            f(Field::ToolInput, scratch, TextKind::Own);
            if let Some(o) = c
                .output
                .as_ref()
                .filter(|_| !answered.contains(&*c.tool_call_id))
            {
                scratch.clear();
                push_strings(o, scratch);
                f(Field::ToolOutput, scratch, TextKind::Own);
            }
        }
        if let Some(r) = &m.tool_result {
            scratch.clear();
            scratch.push_str(&r.tool_name);
            push_strings(&r.output, scratch);
            // Content first: the previous text is this message's own content, if any.
            let alone = m.content.is_empty() || m.thinking.is_some() || !m.tool_calls.is_empty();
            let copy = if alone {
                TextKind::Own
            } else {
                TextKind::CopyOfPrevious
            };
            f(Field::ToolOutput, scratch, copy);
        }
    }
}

/// The string values (and numbers) of a JSON value, space-separated; keys are structure, not text.
fn push_strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push(' ');
            out.push_str(s);
        }
        Value::Number(n) => {
            out.push(' ');
            out.push_str(&n.to_string());
        }
        Value::Array(a) => a.iter().for_each(|v| push_strings(v, out)),
        Value::Object(m) => m.values().for_each(|v| push_strings(v, out)),
        _ => {}
    }
}

/// The ids of calls whose output a tool message of the session carries (read there, not twice).
pub fn answered(messages: &[Message]) -> HashSet<&str> {
    answered_ids(
        messages
            .iter()
            .filter_map(|m| m.tool_result.as_ref())
            .map(|r| r.tool_call_id.as_str()),
    )
}

/// The calls answered by tool results with these call ids (`answered`, for callers that read
/// the ids without the messages).
pub fn answered_ids<'a>(ids: impl Iterator<Item = &'a str>) -> HashSet<&'a str> {
    ids.filter(|id| !id.is_empty()) // an unnamed result cannot stand for any one call
        .collect()
}

/// What `text` holds before a space and then `previous` (a tool's output that repeats its
/// message's content after the tool's name). Tokens never span a space, and CJK characters and
/// folding go char by char, so such a text's terms are head's and previous's.
pub fn copy_head<'a>(text: &'a str, previous: &str) -> Option<&'a str> {
    let head = text.strip_suffix(previous)?.strip_suffix(' ')?;
    Some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_space_then_the_whole_previous_text_is_a_copy_after_a_head() {
        assert_eq!(copy_head("Bash ls -la", "ls -la"), Some("Bash"));
        assert_eq!(copy_head("Bashls -la", "ls -la"), None);
        assert_eq!(copy_head("Bash ls -la", "s -la"), None);
        assert_eq!(copy_head("ls -la", "ls -la"), None);
        assert_eq!(copy_head(" ls", "ls"), Some(""));
    }
}
