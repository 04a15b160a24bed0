//! `workspace.yaml` beside `events.jsonl`: flat `key: value` lines written by Copilot (`id`, `cwd`,
//! `name`, `created_at`, …). We need a few top-level scalars, so this reads exactly those shapes
//! (plain, quoted, and `|`/`>` block scalars) instead of pulling in a YAML parser.
use std::path::Path;

use crate::model::{parse_time_str, Timestamp};

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Workspace {
    pub name: Option<String>,
    pub cwd: Option<String>,
    pub branch: Option<String>,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
}

pub fn read(path: &Path) -> Workspace {
    match crate::read::fs::read_capped(path, 1024 * 1024) {
        Ok(bytes) => parse(&String::from_utf8_lossy(&bytes)),
        Err(_) => Workspace::default(),
    }
}

pub fn parse(text: &str) -> Workspace {
    let mut w = Workspace::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.starts_with([' ', '\t', '#']) || line.trim().is_empty() {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let rest = rest.trim();
        let value = if rest.starts_with(['|', '>']) {
            // Block scalar: the indented lines that follow.
            let mut block = Vec::new();
            while i < lines.len() && (lines[i].starts_with([' ', '\t']) || lines[i].is_empty()) {
                block.push(lines[i].trim());
                i += 1;
            }
            let sep = if rest.starts_with('>') { " " } else { "\n" };
            block.join(sep).trim().to_string()
        } else {
            scalar(rest)
        };
        let value = Some(value).filter(|v| !v.is_empty());
        match key.trim() {
            "name" => w.name = value,
            "cwd" => w.cwd = value,
            "branch" => w.branch = value,
            "created_at" => w.created_at = value.as_deref().and_then(parse_time_str),
            "updated_at" => w.updated_at = value.as_deref().and_then(parse_time_str),
            _ => {}
        }
    }
    w
}

/// A plain or quoted scalar on one line.
fn scalar(s: &str) -> String {
    if let Some(inner) = s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        // Double quotes are JSON-compatible escapes for what Copilot writes.
        return serde_json::from_str::<String>(&format!("\"{inner}\""))
            .unwrap_or_else(|_| inner.to_string());
    }
    if let Some(inner) = s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    // Plain scalar: a trailing ` #` starts a comment; `~`/`null` mean nothing.
    let s = match s.find(" #") {
        Some(i) => s[..i].trim_end(),
        None => s,
    };
    if s == "~" || s == "null" {
        return String::new();
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_keys_copilot_writes() {
        let w = parse(
            "id: 935ca4e7\ncwd: /home/u/code/foo\ngit_root: /home/u/code/foo\nname: \"Fix: the \\\"login\\\" bug\"\nuser_named: false\nsummary_count: 1\ncreated_at: 2026-03-26T17:50:34.263Z\nupdated_at: 2026-03-26T17:51:00Z\n",
        );
        assert_eq!(w.name.as_deref(), Some("Fix: the \"login\" bug"));
        assert_eq!(w.cwd.as_deref(), Some("/home/u/code/foo"));
        assert_eq!(
            crate::model::to_iso(&w.created_at.unwrap()),
            "2026-03-26T17:50:34.263Z"
        );
        assert_eq!(
            crate::model::to_iso(&w.updated_at.unwrap()),
            "2026-03-26T17:51:00.000Z"
        );
    }

    #[test]
    fn block_and_single_quoted_scalars() {
        let w = parse("name: |-\n  first line\n  second\ncwd: '/it''s here'\n");
        assert_eq!(w.name.as_deref(), Some("first line\nsecond"));
        assert_eq!(w.cwd.as_deref(), Some("/it's here"));
        let w = parse("name: >\n  folded\n  text\n");
        assert_eq!(w.name.as_deref(), Some("folded text"));
        assert_eq!(parse("name: ~\n").name, None);
    }
}
