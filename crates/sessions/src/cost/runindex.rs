//! agent-mux's run index (`<configDir>/run-index.jsonl`, core-types.md 4.2.3): one JSON object per
//! run. Read-only here. Lines that do not parse (a torn last line), entries of an unknown `v` and
//! entries missing a required field are skipped, as the format requires of readers.
use serde_json::Value;
use std::collections::HashMap;

use crate::context::Context;
use crate::model::{parse_time_str, CostRecord, Timestamp};
use crate::read::jsonl;

#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub run_id: String,
    pub agent: String,
    pub model: Option<String>,
    pub session_id: Option<String>,
    pub timestamp: Timestamp,
    pub cost: Option<CostRecord>,
    pub tags: Vec<String>,
}

fn parse(v: &Value) -> Option<Run> {
    if v.get("v")?.as_u64()? != 1 {
        return None;
    }
    let s = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    let agent = s("agent")?.to_string();
    // A session id written in unified form ("claude:abc") names the same session.
    let session_id = s("sessionId").map(|id| {
        id.strip_prefix(&format!("{agent}:"))
            .unwrap_or(id)
            .to_string()
    });
    let tags = match v.get("tags") {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    Some(Run {
        run_id: s("runId")?.to_string(),
        model: s("model").map(str::to_string),
        session_id,
        timestamp: parse_time_str(s("timestamp")?)?,
        cost: v
            .get("cost")
            .and_then(|c| serde_json::from_value::<CostRecord>(c.clone()).ok())
            .filter(|c| c.total_usd.is_finite() && c.total_usd >= 0.0),
        tags,
        agent,
    })
}

/// Every valid run, once per `runId`.
#[derive(Debug, Clone, Default)]
pub struct RunIndex {
    pub runs: Vec<Run>,
}

impl RunIndex {
    pub fn load(ctx: &Context) -> RunIndex {
        // A team database's client: its runs are usage rows there, never this machine's file.
        if ctx.options.source.is_some() {
            return RunIndex::default();
        }
        let Some(path) = ctx.config_dir().map(|d| d.join("run-index.jsonl")) else {
            return RunIndex::default();
        };
        let Ok(bytes) = std::fs::read(&path) else {
            return RunIndex::default();
        };
        RunIndex::parse(&bytes)
    }

    /// A run written twice (a retried append, a start line then a completion line) counts once:
    /// the later line wins, keeping fields only the earlier one had.
    pub fn parse(bytes: &[u8]) -> RunIndex {
        let mut runs: Vec<Run> = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        for line in bytes.split(|b| *b == b'\n') {
            let Some(run) = jsonl::parse_line::<Value>(line).as_ref().and_then(parse) else {
                continue;
            };
            match seen.get(&run.run_id) {
                Some(&i) => {
                    let old = std::mem::replace(&mut runs[i], run);
                    let new = &mut runs[i];
                    new.cost = new.cost.take().or(old.cost);
                    new.model = new.model.take().or(old.model);
                    new.session_id = new.session_id.take().or(old.session_id);
                    if new.tags.is_empty() {
                        new.tags = old.tags;
                    }
                }
                None => {
                    seen.insert(run.run_id.clone(), runs.len());
                    runs.push(run);
                }
            }
        }
        RunIndex { runs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_unknown_and_duplicate_lines() {
        let text = concat!(
            r#"{"v":1,"runId":"01A","agent":"claude","sessionId":"s1","timestamp":"2025-03-01T10:00:00Z","tags":["x"]}"#,
            "\n",
            r#"{"v":2,"runId":"01B","agent":"claude","sessionId":"s1","timestamp":"2025-03-01T10:00:00Z","tags":[]}"#,
            "\n",
            r#"{"v":1,"runId":"01C","agent":"codex","timestamp":"2025-03-02T10:00:00Z","cost":{"totalUsd":0.5,"inputTokens":10,"outputTokens":5},"tags":[]}"#,
            "\n",
            r#"{"v":1,"runId":"01A","agent":"claude","sessionId":"claude:s1","timestamp":"2025-03-01T10:00:00Z","cost":{"totalUsd":1.25,"inputTokens":100,"outputTokens":20},"tags":[]}"#,
            "\n",
            r#"{"v":1,"runId":"01D","agent":"claude","timestamp":"not a date","tags":[]}"#,
            "\n",
            r#"{"v":1,"runId":"01E","agent":"claude","sessionId":"s2","timest"#,
        );
        let idx = RunIndex::parse(text.as_bytes());
        assert_eq!(idx.runs.len(), 2, "{:?}", idx.runs);
        let a = &idx.runs[0];
        assert_eq!(a.run_id, "01A");
        assert_eq!(a.session_id.as_deref(), Some("s1"));
        assert_eq!(a.cost.as_ref().unwrap().total_usd, 1.25);
        assert_eq!(a.tags, vec!["x".to_string()]);
        assert_eq!(idx.runs[1].session_id, None);
    }
}
