//! id/parentId trees (Pi, omp, OpenClaw) → the active branch as a line of entries, with the whole
//! tree kept for `raw`.
//!
//! One file (or one SQLite transcript) holds a header (`type: "session"`), optionally an omp title
//! slot before it, and entries that link by `id`/`parentId`. Version 1 files have no ids: each
//! entry follows the one before it. Branches live in the same file; the spec (4.2.7) shows the
//! newest branch. The rules, in order:
//! - an explicit leaf wins: the last `leaf {targetId}` row (OpenClaw), else a header `leafId`;
//!   entries appended after a `leaf` row under its target extend it;
//! - otherwise, from the root down, at each fork take the child whose subtree holds a message (a
//!   branch of side metadata such as `custom` state is not a conversation branch), then the one
//!   whose subtree was active last (highest timestamp), then the one written last.
//!
//! Damaged trees are repaired rather than dropped: a parent that is unknown or appears later in
//! the file (an excerpt, a torn write, a hand-made file) attaches the entry to the entry before
//! it, and a parent equal to the header's id (OpenClaw writes it so) makes a root. Every entry's
//! parent therefore comes before it, so the tree has no cycles.
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;

use crate::model::parse_timestamp;
use crate::read::jsonl::{for_each_line, parse_line};

/// The records of one tree-shaped session, in file order.
#[derive(Debug, Clone, Default)]
pub struct TreeDoc {
    /// The first `type: "session"` record.
    pub header: Option<Value>,
    /// omp's fixed-width title slot (`type: "title"`), when present.
    pub title: Option<Value>,
    /// Every other record, in file order (later `session` or `title` records included; they are
    /// not tree nodes).
    pub entries: Vec<Value>,
    /// Lines that did not parse as JSON objects (a torn last line, garbage).
    pub bad_lines: usize,
}

impl TreeDoc {
    /// Read a JSONL file, tolerating torn and garbage lines.
    pub fn read(path: &Path) -> std::io::Result<TreeDoc> {
        let mut doc = TreeDoc::default();
        for_each_line(path, |line| {
            match parse_line::<Value>(line) {
                Some(v) if v.is_object() => doc.push(v),
                _ => doc.bad_lines += 1,
            }
            true
        })?;
        Ok(doc)
    }

    /// Build from records already decoded (a database's transcript rows).
    pub fn from_records(records: impl IntoIterator<Item = Value>) -> TreeDoc {
        let mut doc = TreeDoc::default();
        for r in records {
            doc.push(r);
        }
        doc
    }

    fn push(&mut self, v: Value) {
        match v.get("type").and_then(Value::as_str) {
            Some("session") if self.header.is_none() => self.header = Some(v),
            Some("title") if self.title.is_none() && self.header.is_none() => self.title = Some(v),
            _ => self.entries.push(v),
        }
    }

    /// The header's format version; files without one are version 1.
    pub fn version(&self) -> u64 {
        self.header
            .as_ref()
            .and_then(|h| h.get("version"))
            .and_then(Value::as_u64)
            .unwrap_or(1)
    }

    pub fn header_str(&self, key: &str) -> Option<&str> {
        self.header.as_ref()?.get(key)?.as_str()
    }
}

/// Read only the header of a session file (the first `session` record among the first lines,
/// after an omp title slot): enough to match an id without parsing the session.
pub fn read_header(path: &Path) -> Option<Value> {
    let mut found = None;
    let mut seen = 0;
    let _ = for_each_line(path, |line| {
        seen += 1;
        if let Some(v) = parse_line::<Value>(line) {
            if v.get("type").and_then(Value::as_str) == Some("session") {
                found = Some(v);
                return false;
            }
        }
        seen < 3
    });
    found
}

/// Timestamp of an entry in epoch milliseconds: the entry's own ISO string, else its message's
/// epoch milliseconds.
pub fn entry_time_ms(e: &Value) -> Option<i64> {
    e.get("timestamp")
        .and_then(parse_timestamp)
        .or_else(|| e.get("message")?.get("timestamp").and_then(parse_timestamp))
        .map(|t| t.timestamp_millis())
}

fn is_tree_node(e: &Value) -> bool {
    !matches!(
        e.get("type").and_then(Value::as_str),
        Some("session" | "title" | "leaf")
    )
}

fn str_field<'a>(e: &'a Value, key: &str) -> Option<&'a str> {
    e.get(key).and_then(Value::as_str).filter(|s| !s.is_empty())
}

struct Node {
    entry: usize,
    parent: Option<usize>,
    children: Vec<usize>,
    /// Best key over the subtree: (holds a message, latest time, latest file position).
    best: (bool, Option<i64>, usize),
}

/// Indices into `doc.entries` of the active branch, root first.
pub fn active_path(doc: &TreeDoc) -> Vec<usize> {
    let header_id = doc.header.as_ref().and_then(|h| str_field(h, "id"));
    let mut nodes: Vec<Node> = Vec::new();
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    let mut leaf_row: Option<(&str, usize)> = None;

    for (i, e) in doc.entries.iter().enumerate() {
        if e.get("type").and_then(Value::as_str) == Some("leaf") {
            if let Some(t) = str_field(e, "targetId") {
                leaf_row = Some((t, i));
            }
            continue;
        }
        if !is_tree_node(e) {
            continue;
        }
        let id = str_field(e, "id");
        let previous = nodes.len().checked_sub(1);
        let parent = match str_field(e, "parentId") {
            // Version 1 (no ids at all): the entry follows the one before it.
            None if id.is_none() => previous,
            None => None,
            Some(p) if Some(p) == header_id => None,
            Some(p) => by_id.get(p).copied().or(previous),
        };
        let n = nodes.len();
        let key = (
            e.get("type").and_then(Value::as_str) == Some("message"),
            entry_time_ms(e),
            i,
        );
        nodes.push(Node {
            entry: i,
            parent,
            children: Vec::new(),
            best: key,
        });
        if let Some(p) = parent {
            nodes[p].children.push(n);
        }
        if let Some(id) = id {
            by_id.entry(id).or_insert(n);
        }
    }
    if nodes.is_empty() {
        return Vec::new();
    }

    // Parents come before children, so one backward pass computes every subtree's best key.
    for n in (0..nodes.len()).rev() {
        if let Some(p) = nodes[n].parent {
            let b = nodes[n].best;
            if b > nodes[p].best {
                nodes[p].best = b;
            }
        }
    }

    let best_child = |among: &mut dyn Iterator<Item = usize>| -> Option<usize> {
        among.max_by(|a, b| nodes[*a].best.cmp(&nodes[*b].best))
    };

    // Where to start descending, and which children may be followed below an explicit leaf.
    let explicit = leaf_row
        .and_then(|(t, row)| by_id.get(t).map(|n| (*n, Some(row))))
        .or_else(|| {
            let h = doc.header.as_ref()?;
            by_id.get(str_field(h, "leafId")?).map(|n| (*n, None))
        });

    let mut path: Vec<usize> = Vec::new();
    let mut cursor = match explicit {
        Some((leaf, _)) => {
            let mut up = Some(leaf);
            while let Some(n) = up {
                path.push(n);
                up = nodes[n].parent;
            }
            path.reverse();
            match explicit {
                // A header leafId is the agent's own choice: stop there.
                Some((_, None)) => None,
                _ => Some(leaf),
            }
        }
        None => {
            let mut roots = (0..nodes.len()).filter(|n| nodes[*n].parent.is_none());
            let root = best_child(&mut roots);
            if let Some(r) = root {
                path.push(r);
            }
            root
        }
    };
    let after_row = explicit.and_then(|(_, row)| row);
    while let Some(n) = cursor {
        let mut kids = nodes[n]
            .children
            .iter()
            .copied()
            .filter(|c| after_row.is_none_or(|row| nodes[*c].entry > row));
        cursor = best_child(&mut kids);
        if let Some(c) = cursor {
            path.push(c);
        }
    }
    path.into_iter().map(|n| nodes[n].entry).collect()
}

/// The whole tree for `Session.raw`: header, title slot, every entry in file order (branches
/// included, each with its own id/parentId), and the ids of the active branch.
pub fn raw(doc: &TreeDoc, path: &[usize]) -> Value {
    let active: Vec<Value> = path
        .iter()
        .map(|i| {
            doc.entries[*i]
                .get("id")
                .cloned()
                .unwrap_or_else(|| json!(i))
        })
        .collect();
    json!({
        "version": doc.version(),
        "header": doc.header.clone().unwrap_or(Value::Null),
        "title": doc.title.clone().unwrap_or(Value::Null),
        "entries": doc.entries.clone(),
        "activePath": active,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(lines: &[&str]) -> TreeDoc {
        TreeDoc::from_records(lines.iter().map(|l| serde_json::from_str(l).unwrap()))
    }

    fn ids(d: &TreeDoc) -> Vec<String> {
        active_path(d)
            .into_iter()
            .map(|i| {
                d.entries[i]["id"]
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("#{i}"))
            })
            .collect()
    }

    fn msg(id: &str, parent: Option<&str>, ts: &str) -> String {
        let p = parent.map(|p| format!("\"{p}\"")).unwrap_or("null".into());
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{p},"timestamp":"{ts}","message":{{"role":"user","content":"x"}}}}"#
        )
    }

    #[test]
    fn version_1_is_linear_in_file_order() {
        let d = doc(&[
            r#"{"type":"session","id":"s","timestamp":"2025-01-01T00:00:00Z"}"#,
            r#"{"type":"message","timestamp":"2025-01-01T00:00:03Z","message":{"role":"user"}}"#,
            r#"{"type":"model_change","timestamp":"2025-01-01T00:00:01Z","modelId":"m"}"#,
            r#"{"type":"message","timestamp":"2025-01-01T00:00:02Z","message":{"role":"assistant"}}"#,
        ]);
        assert_eq!(d.version(), 1);
        assert_eq!(ids(&d), ["#0", "#1", "#2"]);
    }

    #[test]
    fn newest_branch_wins_at_each_fork() {
        // a → b → c (old branch, written first); a → d → e (new branch); then c → f, newest of all.
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z"}"#
                .to_string(),
            msg("a", None, "2025-01-01T00:00:01Z"),
            msg("b", Some("a"), "2025-01-01T00:00:02Z"),
            msg("c", Some("b"), "2025-01-01T00:00:03Z"),
            msg("d", Some("a"), "2025-01-01T00:00:04Z"),
            msg("e", Some("d"), "2025-01-01T00:00:05Z"),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(ids(&doc(&refs)), ["a", "d", "e"]);
        let mut more = lines.to_vec();
        more.push(msg("f", Some("c"), "2025-01-01T00:00:06Z"));
        let refs: Vec<&str> = more.iter().map(String::as_str).collect();
        assert_eq!(ids(&doc(&refs)), ["a", "b", "c", "f"]);
    }

    #[test]
    fn equal_times_fall_back_to_file_order() {
        let lines = [
            msg("a", None, "2025-01-01T00:00:01Z"),
            msg("b", Some("a"), "2025-01-01T00:00:02Z"),
            msg("c", Some("a"), "2025-01-01T00:00:02Z"),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        assert_eq!(ids(&doc(&refs)), ["a", "c"]);
    }

    #[test]
    fn metadata_side_branch_does_not_hide_the_conversation() {
        // OpenClaw-style: entries hang off the header id; a later custom entry is a side branch.
        let d = doc(&[
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z"}"#,
            r#"{"type":"model_change","id":"mc","parentId":"s","timestamp":"2026-01-01T00:00:01Z"}"#,
            r#"{"type":"custom","id":"cu","parentId":"mc","timestamp":"2026-09-01T00:00:00Z"}"#,
            &msg("m1", Some("s"), "2026-01-01T00:00:02Z"),
            &msg("m2", Some("m1"), "2026-01-01T00:00:03Z"),
        ]);
        assert_eq!(ids(&d), ["m1", "m2"]);
    }

    #[test]
    fn unknown_or_forward_parents_attach_to_the_previous_entry() {
        let d = doc(&[
            &msg("a", None, "2025-01-01T00:00:01Z"),
            &msg("b", Some("gone"), "2025-01-01T00:00:02Z"),
            &msg("c", Some("d"), "2025-01-01T00:00:03Z"),
            &msg("d", Some("c"), "2025-01-01T00:00:04Z"),
        ]);
        assert_eq!(ids(&d), ["a", "b", "c", "d"]);
    }

    #[test]
    fn leaf_row_picks_the_branch_and_later_entries_extend_it() {
        let d = doc(&[
            &msg("a", None, "2025-01-01T00:00:01Z"),
            &msg("b", Some("a"), "2025-01-01T00:00:02Z"),
            &msg("c", Some("a"), "2025-01-01T00:00:03Z"),
            r#"{"type":"leaf","id":"l1","parentId":"c","targetId":"b","timestamp":"2025-01-01T00:00:04Z"}"#,
        ]);
        assert_eq!(ids(&d), ["a", "b"]);
        let mut d2 = d.clone();
        d2.entries
            .push(serde_json::from_str(&msg("e", Some("b"), "2025-01-01T00:00:05Z")).unwrap());
        assert_eq!(ids(&d2), ["a", "b", "e"]);
    }

    #[test]
    fn header_leaf_id_is_final() {
        let d = doc(&[
            r#"{"type":"session","version":3,"id":"s","leafId":"b"}"#,
            &msg("a", None, "2025-01-01T00:00:01Z"),
            &msg("b", Some("a"), "2025-01-01T00:00:02Z"),
            &msg("c", Some("b"), "2025-01-01T00:00:03Z"),
        ]);
        assert_eq!(ids(&d), ["a", "b"]);
    }

    #[test]
    fn omp_title_slot_is_not_a_node_and_raw_keeps_everything() {
        let d = doc(&[
            r#"{"type":"title","v":1,"title":"T","pad":"   "}"#,
            r#"{"type":"session","version":3,"id":"s"}"#,
            &msg("a", None, "2025-01-01T00:00:01Z"),
            &msg("b", Some("a"), "2025-01-01T00:00:02Z"),
            &msg("c", Some("a"), "2025-01-01T00:00:01.500Z"),
        ]);
        assert_eq!(d.title.as_ref().unwrap()["title"], "T");
        let path = active_path(&d);
        assert_eq!(ids(&d), ["a", "b"]);
        let r = raw(&d, &path);
        assert_eq!(r["entries"].as_array().unwrap().len(), 3);
        assert_eq!(r["activePath"], json!(["a", "b"]));
        assert_eq!(r["header"]["id"], "s");
        assert_eq!(r["version"], 3);
    }

    #[test]
    fn reads_files_with_torn_lines_and_finds_headers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.jsonl");
        std::fs::write(
            &p,
            "{\"type\":\"title\",\"v\":1,\"title\":\"\"}\n{\"type\":\"session\",\"version\":3,\"id\":\"abc\"}\n[1]\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{}}\n{\"type\":\"mess",
        )
        .unwrap();
        let d = TreeDoc::read(&p).unwrap();
        assert_eq!(d.entries.len(), 1);
        assert_eq!(d.bad_lines, 2);
        assert_eq!(read_header(&p).unwrap()["id"], "abc");
        std::fs::write(&p, "").unwrap();
        assert!(read_header(&p).is_none());
    }
}
