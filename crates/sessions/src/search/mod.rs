//! Cross-agent search. First version: case-insensitive substring match on titles.
use crate::model::SessionSummary;
use crate::options::SearchQuery;

/// Does `s` match `q`? (The full engine replaces this with the query language over content.)
pub fn title_matches(s: &SessionSummary, q: &SearchQuery) -> bool {
    let needle = q.text.to_lowercase();
    !needle.is_empty() && s.title.to_lowercase().contains(&needle)
}
