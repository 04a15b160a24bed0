//! Listing: an agent's summaries (from the storage layer) filtered, sorted and cut, sub-agent
//! sessions folded into the session that started them.
use std::collections::{HashMap, HashSet};

use crate::model::{CostRecord, SessionSummary};
use crate::options::{Direction, ListOptions, ListSort};
use crate::selection;

/// Sort as `list()` orders its sessions (`selection::list_order`).
pub fn sort(v: &mut [SessionSummary], sort: ListSort, dir: Direction) {
    v.sort_by(|a, b| selection::list_order(a, b, sort, dir));
}

/// Filter, sort and cut priced summaries as `list()` returns them.
pub fn apply(mut v: Vec<SessionSummary>, opts: &ListOptions) -> Vec<SessionSummary> {
    v.retain(|s| selection::matches(s, &opts.filters));
    sort(&mut v, opts.sort, opts.direction);
    v.truncate(opts.limit);
    v
}

/// Sub-agent sessions whose parent is among `v`, taken out of it, by their parent's unified id:
/// a list shows the parent once, with them folded in (`fold_children`).
pub fn take_children(v: &mut Vec<SessionSummary>) -> HashMap<String, Vec<SessionSummary>> {
    if v.iter().all(|s| s.parent_id.is_none()) {
        return HashMap::new();
    }
    let ids: HashSet<String> = v.iter().map(|s| s.unified_id.clone()).collect();
    let is_child = |s: &SessionSummary| {
        (s.parent_id.as_deref()).is_some_and(|p| p != s.unified_id && ids.contains(p))
    };
    let (children, parents): (Vec<_>, Vec<_>) = std::mem::take(v).into_iter().partition(is_child);
    *v = parents;
    let mut by_parent: HashMap<String, Vec<SessionSummary>> = HashMap::new();
    for c in children {
        let parent = c.parent_id.clone().unwrap_or_default();
        by_parent.entry(parent).or_default().push(c);
    }
    by_parent
}

/// Each parent in `v` with its (priced) children's count and cost added to its own.
pub fn fold_children(v: &mut [SessionSummary], children: &HashMap<String, Vec<SessionSummary>>) {
    if children.is_empty() {
        return;
    }
    for s in v {
        let Some(kids) = children.get(&s.unified_id) else {
            continue;
        };
        *s.children.get_or_insert(0) += kids.len() as u64;
        for c in kids.iter().filter_map(|k| k.cost.as_ref()) {
            let total = s.cost.get_or_insert(CostRecord {
                total_usd: 0.0,
                input_tokens: 0,
                output_tokens: 0,
                thinking_tokens: None,
                cached_tokens: None,
                cache_write_tokens: None,
            });
            total.total_usd += c.total_usd;
            total.input_tokens += c.input_tokens;
            total.output_tokens += c.output_tokens;
            let add = |a: &mut Option<u64>, b: Option<u64>| {
                if let Some(b) = b {
                    *a.get_or_insert(0) += b;
                }
            };
            add(&mut total.thinking_tokens, c.thinking_tokens);
            add(&mut total.cached_tokens, c.cached_tokens);
            add(&mut total.cache_write_tokens, c.cache_write_tokens);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(id: &str, parent: Option<&str>, usd: f64) -> SessionSummary {
        let mut s = SessionSummary::new("codex", id, Default::default(), Default::default());
        s.parent_id = parent.map(|p| crate::ids::unified_id("codex", p));
        s.cost = Some(CostRecord {
            total_usd: usd,
            input_tokens: 1,
            output_tokens: 2,
            thinking_tokens: None,
            cached_tokens: None,
            cache_write_tokens: None,
        });
        s
    }

    #[test]
    fn children_fold_into_a_parent_that_is_listed_only() {
        let mut v = vec![
            summary("p", None, 1.0),
            summary("c1", Some("p"), 0.5),
            summary("c2", Some("p"), 0.25),
            summary("orphan", Some("gone"), 2.0),
        ];
        let kids = take_children(&mut v);
        let ids: Vec<&str> = v.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["p", "orphan"]);
        fold_children(&mut v, &kids);
        assert_eq!(v[0].children, Some(2));
        let cost = v[0].cost.as_ref().unwrap();
        assert_eq!(
            (cost.total_usd, cost.input_tokens, cost.output_tokens),
            (1.75, 3, 6)
        );
        assert_eq!(v[1].children, None);
        assert_eq!(v[1].cost.as_ref().unwrap().total_usd, 2.0);
    }
}
