//! Which sessions a call keeps and in what order, shared by `list`, `search` and `totalCost`: the
//! filters (`matches`), what they need known before the cut (`priced_before_cut`,
//! `looks_past_dates`), the orders of list and search, and the one price a summary sorts by.
use std::cmp::Ordering;

use crate::model::{SessionSummary, Timestamp};
use crate::options::{Archived, Direction, Filters, ListSort, SearchSort};

/// Does a (priced, tagged) summary pass the filters? Dates bound `createdAt`; `model` matches the
/// primary model or any model the session used; `tags` is an OR match.
pub fn matches(s: &SessionSummary, f: &Filters) -> bool {
    if f.since.is_some_and(|t| s.created_at < t) || f.until.is_some_and(|t| s.created_at > t) {
        return false;
    }
    if let Some(m) = &f.model {
        let used = s.model.as_deref() == Some(m.as_str()) || s.usage.iter().any(|u| &u.model == m);
        if !used {
            return false;
        }
    }
    if let Some(tags) = &f.tags {
        if !tags.is_empty() && !tags.iter().any(|t| s.tags.contains(t)) {
            return false;
        }
    }
    if let Some(cwd) = &f.cwd {
        let want = cwd.trim_end_matches(['/', '\\']);
        if s.cwd.as_deref().map(|c| c.trim_end_matches(['/', '\\'])) != Some(want) {
            return false;
        }
    }
    if f.branch.is_some() && s.git_branch != f.branch {
        return false;
    }
    if f.project
        .as_ref()
        .is_some_and(|p| !p.matches(s.project.as_deref()))
    {
        return false;
    }
    archived_matches(s, f.archived)
}

/// Whether `s` is among the sessions `which` takes by whether they are archived.
pub fn archived_matches(s: &SessionSummary, which: Archived) -> bool {
    match which {
        Archived::Include => true,
        Archived::Only => s.archived,
        Archived::Exclude => !s.archived,
    }
}

/// Whether prices and run-index tags (`cost::apply_to_summaries`) must be known before the
/// cut: to sort by cost, or to filter by tag.
pub fn priced_before_cut(f: &Filters, by_cost: bool) -> bool {
    by_cost || filters_by_tag(f)
}

/// Whether a tag filter is given (an empty list of tags filters nothing, as in `matches`).
fn filters_by_tag(f: &Filters) -> bool {
    f.tags.as_ref().is_some_and(|t| !t.is_empty())
}

/// Whether `matches` looks at more of a summary than its dates.
pub fn looks_past_dates(f: &Filters) -> bool {
    let Filters {
        since: _,
        until: _,
        model,
        tags: _,
        cwd,
        branch,
        project,
        archived,
        // Answered by the team database (`team::read`), never by local sessions.
        machine: _,
        user: _,
    } = f;
    model.is_some()
        || filters_by_tag(f)
        || cwd.is_some()
        || branch.is_some()
        || project.is_some()
        || *archived != Archived::Include
}

/// What a summary costs, as the cost orders compare it (0 when not priced).
pub fn cost_usd(s: &SessionSummary) -> f64 {
    s.cost.as_ref().map(|c| c.total_usd).unwrap_or(0.0)
}

/// `list`'s order: by the chosen field (date = `updatedAt`, the last activity), then by unified
/// id so the order is the same on every call.
pub fn list_order(
    a: &SessionSummary,
    b: &SessionSummary,
    sort: ListSort,
    dir: Direction,
) -> Ordering {
    let primary = match sort {
        ListSort::Date => a.updated_at.cmp(&b.updated_at),
        ListSort::Cost => cost_usd(a)
            .partial_cmp(&cost_usd(b))
            .unwrap_or(Ordering::Equal),
        ListSort::Turns => a.turn_count.cmp(&b.turn_count),
    };
    let primary = if dir == Direction::Desc {
        primary.reverse()
    } else {
        primary
    };
    primary.then_with(|| a.unified_id.cmp(&b.unified_id))
}

/// `search`'s order. Relevance: best first, newer first on ties. Date: newest activity first.
/// Cost: dearest first. Every order ends on the unified id, so it is the same on every call.
pub fn search_order(a: &SessionSummary, b: &SessionSummary, by: SearchSort) -> Ordering {
    let score = |s: &SessionSummary| s.relevance_score.unwrap_or(0.0);
    let primary = match by {
        SearchSort::Relevance => Ordering::Equal,
        SearchSort::Date => b.updated_at.cmp(&a.updated_at),
        SearchSort::Cost => cost_usd(b).total_cmp(&cost_usd(a)),
    };
    primary.then_with(|| {
        by_relevance((score(a), a.updated_at), (score(b), b.updated_at), || {
            a.unified_id.cmp(&b.unified_id)
        })
    })
}

/// `search_order` by relevance, of results known by their relevance and updated time, the
/// order of their unified ids told by `unified` (search ranks matches by it before they are
/// made summaries).
pub fn by_relevance(
    a: (f64, Timestamp),
    b: (f64, Timestamp),
    unified: impl FnOnce() -> Ordering,
) -> Ordering {
    (b.0.total_cmp(&a.0))
        .then_with(|| b.1.cmp(&a.1))
        .then_with(unified)
}
