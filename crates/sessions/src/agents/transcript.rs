//! The message list an adapter builds while streaming a file, in one of two modes: `full` keeps every
//! `Message` (for `get`), the summary mode keeps only a few bytes per message (role, model,
//! subagent flag) so `list` can count messages, turns and models of a huge file without holding a
//! message model. Adapters write one parser against this and get both.
use crate::model::{count_turns, most_named, Message, Role};

#[derive(Debug, Clone, Copy)]
struct Skeleton {
    role: Role,
    model: Option<u16>,
    subagent: bool,
}

#[derive(Debug, Default)]
pub struct Transcript {
    full: bool,
    /// Every message (full mode only).
    pub messages: Vec<Message>,
    skeletons: Vec<Skeleton>,
    models: Vec<String>,
}

impl Transcript {
    pub fn new(full: bool) -> Self {
        Transcript {
            full,
            ..Default::default()
        }
    }

    /// Is this a full read (content, tool inputs and outputs wanted)?
    pub fn full(&self) -> bool {
        self.full
    }

    pub fn len(&self) -> usize {
        if self.full {
            self.messages.len()
        } else {
            self.skeletons.len()
        }
    }

    #[allow(dead_code)] // clippy wants it beside len()
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Append a message; in summary mode only its role, model and subagent mark are kept.
    pub fn push(&mut self, m: Message) -> usize {
        if self.full {
            self.messages.push(m);
        } else {
            let model = m.model.as_deref().map(|name| self.intern(name));
            self.skeletons.push(Skeleton {
                role: m.role,
                model,
                subagent: m.subagent.is_some(),
            });
        }
        self.len() - 1
    }

    fn intern(&mut self, name: &str) -> u16 {
        match self.models.iter().position(|m| m == name) {
            Some(i) => i as u16,
            None if self.models.len() < u16::MAX as usize => {
                self.models.push(name.to_string());
                (self.models.len() - 1) as u16
            }
            None => u16::MAX,
        }
    }

    /// The role of message `i`.
    pub fn role(&self, i: usize) -> Option<Role> {
        if self.full {
            self.messages.get(i).map(|m| m.role)
        } else {
            self.skeletons.get(i).map(|s| s.role)
        }
    }

    /// The message at `i`, in full mode.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut Message> {
        self.messages.get_mut(i)
    }

    /// Drop every message from `len` on (history rewritten by the agent).
    pub fn truncate(&mut self, len: usize) {
        self.messages.truncate(len);
        self.skeletons.truncate(len);
    }

    /// Messages of another transcript (a subagent's), inserted at `at`.
    pub fn splice(&mut self, at: usize, other: Transcript) {
        let at = at.min(self.len());
        if self.full {
            self.messages.splice(at..at, other.messages);
        } else {
            let mapped: Vec<Skeleton> = other
                .skeletons
                .iter()
                .map(|s| Skeleton {
                    model: s
                        .model
                        .and_then(|i| other.models.get(i as usize))
                        .map(|name| self.intern(name)),
                    ..*s
                })
                .collect();
            self.skeletons.splice(at..at, mapped);
        }
    }

    /// User → assistant pairs of the main conversation (subagent messages do not make turns).
    pub fn turn_count(&self) -> u64 {
        if self.full {
            count_turns(
                self.messages
                    .iter()
                    .filter(|m| m.subagent.is_none())
                    .map(|m| m.role),
            )
        } else {
            count_turns(
                self.skeletons
                    .iter()
                    .filter(|s| !s.subagent)
                    .map(|s| s.role),
            )
        }
    }

    /// The model named on the most messages of the main conversation (ties: the one seen first);
    /// a session whose main agent names none takes its subagents' model. Where subagent messages
    /// sit in the list therefore never changes the answer.
    pub fn most_used_model(&self) -> Option<String> {
        self.most_used(false).or_else(|| self.most_used(true))
    }

    fn most_used(&self, with_subagents: bool) -> Option<String> {
        let models: Vec<(bool, Option<&str>)> = if self.full {
            self.messages
                .iter()
                .map(|m| (m.subagent.is_some(), m.model.as_deref()))
                .collect()
        } else {
            self.skeletons
                .iter()
                .map(|s| {
                    let name = s.model.and_then(|i| self.models.get(i as usize));
                    (s.subagent, name.map(String::as_str))
                })
                .collect()
        };
        most_named(
            models
                .into_iter()
                .filter(|(sub, _)| with_subagents || !sub)
                .filter_map(|(_, model)| model),
        )
    }

    pub fn into_messages(self) -> Vec<Message> {
        self.messages
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(role: Role, model: Option<&str>, sub: bool) -> Message {
        let mut m = Message::new(role, "text");
        m.model = model.map(str::to_string);
        m.subagent = sub.then(|| "a1".to_string());
        m
    }

    #[test]
    fn both_modes_count_the_same() {
        for full in [true, false] {
            let mut t = Transcript::new(full);
            t.push(msg(Role::User, None, false));
            t.push(msg(Role::Assistant, Some("m1"), false));
            let mut sub = Transcript::new(full);
            sub.push(msg(Role::User, None, true));
            sub.push(msg(Role::Assistant, Some("m2"), true));
            sub.push(msg(Role::Assistant, Some("m2"), true));
            t.splice(1, sub);
            t.push(msg(Role::User, None, false));
            assert_eq!(t.len(), 6, "full={full}");
            assert_eq!(t.turn_count(), 1, "subagent prompts are not turns");
            assert_eq!(
                t.most_used_model().as_deref(),
                Some("m1"),
                "the main agent's model"
            );
            assert_eq!(t.role(1), Some(Role::User));
            t.truncate(2);
            assert_eq!(t.len(), 2);
        }
    }
}
