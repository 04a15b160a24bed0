//! Listing: an agent's summaries (from the storage layer) filtered, sorted and cut.
use crate::model::SessionSummary;
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
