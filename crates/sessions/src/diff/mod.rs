//! Structural diff of two sessions' messages (spec 3.7, 6.6).
//!
//! Messages are aligned by a longest common subsequence on `(role, content)`, computed exactly by
//! [`lcs`] (Hunt–Szymanski or linear-space Myers, whichever suits the input). Between two aligned (unchanged) messages lies a hunk of removals from `a` and
//! additions from `b`; inside a hunk, messages are paired by a second LCS on their roles, and each
//! pair (same role, different content, same place) is a modification. Only roles and content are
//! compared, so sessions of different agents diff on the same footing.
use std::collections::HashMap;

use serde::Serialize;

use crate::error::Result;
use crate::model::{Message, Session};

mod lcs;
mod myers;

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

/// Diff two sessions' messages.
pub fn diff(a: &Session, b: &Session) -> Result<SessionDiff> {
    let (ma, mb) = (&a.messages, &b.messages);
    let mut ids = HashMap::new();
    let ka = intern(ma, &mut ids);
    let kb = intern(mb, &mut ids);

    let mut d = Builder {
        a: ma,
        b: mb,
        operations: Vec::with_capacity(ma.len().max(mb.len())),
        stats: DiffStats::default(),
    };
    let (mut i, mut j) = (0, 0);
    for (ia, ib) in lcs::lcs(&ka, &kb) {
        d.hunk(i..ia, j..ib);
        d.push(OpType::Unchanged, Some(ia), Some(ib));
        (i, j) = (ia + 1, ib + 1);
    }
    d.hunk(i..ma.len(), j..mb.len());
    Ok(SessionDiff {
        a: reference(a),
        b: reference(b),
        operations: d.operations,
        stats: d.stats,
    })
}

/// Equal `(role, content)` pairs get equal small ids, so the LCS compares integers.
fn intern<'m>(ms: &'m [Message], ids: &mut HashMap<(&'static str, &'m str), u32>) -> Vec<u32> {
    ms.iter()
        .map(|m| {
            let n = ids.len() as u32;
            *ids.entry((m.role.as_str(), m.content.as_str()))
                .or_insert(n)
        })
        .collect()
}

struct Builder<'a> {
    a: &'a [Message],
    b: &'a [Message],
    operations: Vec<DiffOperation>,
    stats: DiffStats,
}

impl Builder<'_> {
    fn push(&mut self, op: OpType, ia: Option<usize>, ib: Option<usize>) {
        let counter = match op {
            OpType::Addition => &mut self.stats.additions,
            OpType::Removal => &mut self.stats.removals,
            OpType::Modification => &mut self.stats.modifications,
            OpType::Unchanged => &mut self.stats.unchanged,
        };
        *counter += 1;
        self.operations.push(DiffOperation {
            op,
            index_a: ia,
            index_b: ib,
            message_a: ia.map(|i| self.a[i].clone()),
            message_b: ib.map(|i| self.b[i].clone()),
        });
    }

    /// Removed `ra` of `a` and added `rb` of `b` between two unchanged messages: same-role
    /// messages at matching places are modifications; the rest stay removals and additions, in
    /// order, removals first.
    fn hunk(&mut self, ra: std::ops::Range<usize>, rb: std::ops::Range<usize>) {
        let roles = |ms: &[Message]| ms.iter().map(|m| m.role as u32).collect::<Vec<u32>>();
        let pairs = if ra.is_empty() || rb.is_empty() {
            Vec::new()
        } else {
            // Myers (not the sparse path) so that, among equally long pairings, messages pair
            // from the start of the hunk: the first reply against the first reply.
            myers::lcs(&roles(&self.a[ra.clone()]), &roles(&self.b[rb.clone()]))
        };
        let (mut i, mut j) = (ra.start, rb.start);
        for (pa, pb) in pairs {
            let (ia, ib) = (ra.start + pa, rb.start + pb);
            self.run(i..ia, j..ib);
            self.push(OpType::Modification, Some(ia), Some(ib));
            (i, j) = (ia + 1, ib + 1);
        }
        self.run(i..ra.end, j..rb.end);
    }

    fn run(&mut self, ra: std::ops::Range<usize>, rb: std::ops::Range<usize>) {
        for i in ra {
            self.push(OpType::Removal, Some(i), None);
        }
        for j in rb {
            self.push(OpType::Addition, None, Some(j));
        }
    }
}
