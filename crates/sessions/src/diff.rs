//! Structural diff of two sessions' messages (spec 3.7, 6.6). First version: not implemented.
use serde::Serialize;

use crate::error::Result;
use crate::model::{Message, Session};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub agent: String,
    pub session_id: String,
    pub unified_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpType {
    Addition,
    Removal,
    Modification,
    Unchanged,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffOperation {
    #[serde(rename = "type")]
    pub op: OpType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_a: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_b: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_a: Option<Message>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_b: Option<Message>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DiffStats {
    pub removals: u64,
    pub additions: u64,
    pub modifications: u64,
    pub unchanged: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionDiff {
    pub a: SessionRef,
    pub b: SessionRef,
    pub operations: Vec<DiffOperation>,
    pub stats: DiffStats,
}

fn reference(s: &Session) -> SessionRef {
    SessionRef {
        agent: s.summary.agent.clone(),
        session_id: s.summary.session_id.clone(),
        unified_id: s.summary.unified_id.clone(),
    }
}

/// Diff two sessions' messages. Placeholder: every message of `a` removed, every one of `b` added.
pub fn diff(a: &Session, b: &Session) -> Result<SessionDiff> {
    let mut operations = Vec::new();
    let mut stats = DiffStats::default();
    for (i, m) in a.messages.iter().enumerate() {
        stats.removals += 1;
        operations.push(DiffOperation {
            op: OpType::Removal,
            index_a: Some(i),
            index_b: None,
            message_a: Some(m.clone()),
            message_b: None,
        });
    }
    for (i, m) in b.messages.iter().enumerate() {
        stats.additions += 1;
        operations.push(DiffOperation {
            op: OpType::Addition,
            index_a: None,
            index_b: Some(i),
            message_a: None,
            message_b: Some(m.clone()),
        });
    }
    Ok(SessionDiff {
        a: reference(a),
        b: reference(b),
        operations,
        stats,
    })
}
