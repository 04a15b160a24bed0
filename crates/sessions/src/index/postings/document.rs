//! A session as a document: its searchable texts, field by field and in the order the scan reads
//! them (`query::fields::for_each_field`), each text one value so that no phrase spans two, and the
//! exact byte lengths the scan measures.
//!
//! A tool message's output that is its content after the tool's name (`fields::copy_head`) is
//! indexed once, as that whole text in place of the content: the scan counts the content, then
//! what the output holds beyond it, which is every occurrence in the whole text, phrases across
//! the join included. Any other copy (another field, other text) is indexed as the tokens it holds
//! beyond its content, which keeps word counts exact but not positions: the document is marked
//! `IRREGULAR`, and a query that needs positions reads it again.
use std::collections::HashMap;

use tantivy::tokenizer::Token;
use tantivy::TantivyDocument;

use super::tokens::{each_cjk, each_word};
use super::Fields;
use crate::model::Session;
use crate::query::fields::{answered, copy_head, for_each_field, Field, TextKind, FIELDS};

/// Flag: positions in this document do not tell every count (an irregular copy).
pub const IRREGULAR: u64 = 1;

/// A session's searchable texts by field, its lengths and flags.
#[derive(Debug, Default, PartialEq)]
pub struct Texts {
    pub values: Vec<(Field, String)>,
    pub lengths: [u64; FIELDS],
    pub flags: u64,
}

impl Texts {
    pub fn of(s: &Session) -> Texts {
        let mut out = Texts::default();
        let messages = &s.messages;
        out.lengths[Field::ToolOutput as usize] = messages.iter().map(|m| m.elided).sum::<u64>();
        // The text read last and not yet added: its field, and itself.
        let mut last: Option<(Field, String)> = None;
        let mut previous_len = 0u64;
        let mut scratch = String::new();
        for_each_field(
            messages,
            &answered(messages),
            &mut scratch,
            &mut |field, text, copy| {
                let len = text.len() as u64;
                out.lengths[field as usize] += copy.beyond(len, previous_len);
                previous_len = len;
                match (copy, last.take()) {
                    (TextKind::Own, before) => {
                        out.values.extend(before);
                        last = Some((field, text.to_string()));
                    }
                    (TextKind::CopyOfPrevious, Some((f, before)))
                        if f == field && copy_head(text, &before).is_some() =>
                    {
                        last = Some((field, text.to_string()));
                    }
                    (TextKind::CopyOfPrevious, before) => {
                        let beyond = beyond(text, before.as_ref().map_or("", |b| &b.1));
                        out.values.extend(before);
                        out.values.push((field, beyond));
                        out.flags |= IRREGULAR;
                    }
                }
            },
        );
        out.values.extend(last);
        out.lengths[Field::Title as usize] += s.summary.title.len() as u64;
        out.values.push((Field::Title, s.summary.title.clone()));
        out
    }

    /// The document of SQLite row `doc`: its texts and flags.
    pub fn document(self, fields: &Fields, doc: i64) -> TantivyDocument {
        let mut out = TantivyDocument::default();
        for (field, text) in self.values {
            let k = field as usize;
            if !text.is_ascii() {
                out.add_text(fields.cjk[k], &text);
            }
            out.add_text(fields.words[k], text);
        }
        out.add_u64(fields.flags, self.flags);
        out.add_u64(fields.doc, doc as u64);
        out
    }
}

/// The words and CJK characters `text` holds beyond `before` (each as often as it occurs more),
/// as a text of them apart.
fn beyond(text: &str, before: &str) -> String {
    let counts = |t: &str| {
        let mut m: HashMap<String, i64> = HashMap::new();
        let mut add = |tok: &Token| *m.entry(tok.text.clone()).or_default() += 1;
        each_word(t, &mut add);
        each_cjk(t, &mut add);
        m
    };
    let seen = counts(before);
    let mut out = String::new();
    let mut more: Vec<(String, i64)> = counts(text).into_iter().collect();
    more.sort();
    for (t, n) in more {
        for _ in 0..n - seen.get(&t).copied().unwrap_or(0) {
            out.push_str(&t);
            out.push(' ');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, Role, SessionSummary, ToolResult};

    fn session(messages: Vec<Message>) -> Session {
        let t = chrono::DateTime::from_timestamp(0, 0).unwrap();
        let mut summary = SessionSummary::new("claude", "s1", t, t);
        summary.title = "Fix the cache".into();
        Session {
            summary,
            messages,
            raw: None,
        }
    }

    fn tool(content: &str, output: &str) -> Message {
        let mut m = Message::new(Role::Tool, content);
        m.tool_result = Some(ToolResult {
            tool_call_id: "c1".into(),
            tool_name: "Bash".into(),
            output: serde_json::json!(output),
        });
        m
    }

    #[test]
    fn an_output_that_repeats_its_content_is_indexed_once_as_the_whole_text() {
        let s = session(vec![
            Message::new(Role::User, "run ls"),
            tool("a.rs b.rs", "a.rs b.rs"),
        ]);
        let t = Texts::of(&s);
        assert_eq!(
            t.values,
            [
                (Field::Conversation, "run ls".to_string()),
                (Field::ToolOutput, "Bash a.rs b.rs".to_string()),
                (Field::Title, "Fix the cache".to_string()),
            ]
        );
        assert_eq!(t.flags, 0);
        // The scan measures the content, then what the copy holds beyond it.
        assert_eq!(t.lengths, [13, 6, 0, 0, 9 + 5]);
    }

    #[test]
    fn another_copy_keeps_only_what_it_holds_beyond_and_is_marked() {
        let s = session(vec![tool("x y y", "y z")]);
        let t = Texts::of(&s);
        assert_eq!(t.values[0], (Field::ToolOutput, "x y y".to_string()));
        assert_eq!(t.values[1], (Field::ToolOutput, "bash z ".to_string()));
        assert_eq!(t.flags, IRREGULAR);
    }
}
