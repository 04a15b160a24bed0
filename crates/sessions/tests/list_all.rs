//! `Client::list_all`: every agent's sessions through the list engine at once, against the demo
//! home: each agent's own list merged, sorted by the engine's comparator and cut, for every sort.
use crate::common;

use agent_mux_sessions::agents;
use agent_mux_sessions::list;
use agent_mux_sessions::options::{Direction, ListOptions, ListSort, MAX_LIMIT};
use agent_mux_sessions::SessionSummary;

fn ids(v: &[SessionSummary]) -> Vec<&str> {
    v.iter().map(|s| s.unified_id.as_str()).collect()
}

#[test]
fn every_agents_list_merged_sorted_and_cut() {
    let home = common::demo_home();
    let client = common::client();
    let mut cases = 0;
    for sort in [ListSort::Date, ListSort::Cost, ListSort::Turns] {
        for direction in [Direction::Desc, Direction::Asc] {
            let mut all = ListOptions {
                sort,
                direction,
                limit: MAX_LIMIT,
                ..Default::default()
            };
            let mut merged: Vec<SessionSummary> = agents::all()
                .iter()
                .flat_map(|a| client.list(common::env(&home), a.name(), &all).unwrap())
                .collect();
            list::sort(&mut merged, sort, direction);
            let every = client.list_all(common::env(&home), &all).unwrap();
            assert_eq!(ids(&every), ids(&merged), "{sort:?} {direction:?}");
            let agents_seen: std::collections::BTreeSet<&str> =
                every.iter().map(|s| s.agent.as_str()).collect();
            assert_eq!(agents_seen.len(), agents::all().len());
            all.limit = 5;
            let cut = client.list_all(common::env(&home), &all).unwrap();
            assert_eq!(ids(&cut), ids(&merged[..5]), "{sort:?} {direction:?} cut");
            cases += 1;
        }
    }
    assert_eq!(cases, 6);
}
