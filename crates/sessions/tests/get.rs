//! `get` for JS (`Client::get_outputs_once`, issue 18): each tool output is held once while the
//! binding builds its JS copy, and linking the calls back gives exactly what `get` returns.
use crate::common;

use agent_mux_sessions::model::Session;
use agent_mux_sessions::{agents, Client, Env};

fn call_outputs(s: &Session) -> usize {
    s.messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| c.output.is_some())
        .count()
}

/// For every session `client` lists for `agent`: the lean load holds no call output that `get`
/// has a copy of (each is marked instead), and linking gives `get`'s JSON byte for byte.
/// Returns (sessions checked, call outputs left out).
fn linked_equals_get(client: &Client, agent: &str, env: &Env) -> (usize, usize) {
    let list = common::list_all(client, agent, env.clone());
    let mut left_out = 0;
    for s in &list {
        let id = s.session_id.as_str();
        let whole = client.get(env.clone(), agent, id).unwrap();
        let mut lean = client.get_outputs_once(env.clone(), agent, id).unwrap();
        let marked = lean
            .messages
            .iter()
            .flat_map(|m| &m.tool_calls)
            .filter(|c| c.output_at_result)
            .inspect(|c| {
                assert!(
                    c.output.is_none(),
                    "{agent} {id}: a marked call kept its output"
                )
            })
            .count();
        assert_eq!(
            call_outputs(&lean) + marked,
            call_outputs(&whole),
            "{agent} {id}"
        );
        left_out += marked;
        lean.link_call_outputs();
        assert!(
            serde_json::to_string(&lean).unwrap() == serde_json::to_string(&whole).unwrap(),
            "{agent} {id}: the linked session differs from get's"
        );
    }
    (list.len(), left_out)
}

#[test]
fn linked_sessions_of_the_demo_home_equal_get() {
    let home = common::demo_home();
    let (client, env) = (common::client(), Env::with_home(&home));
    for agent in agents::all() {
        let (n, left_out) = linked_equals_get(&client, agent.name(), &env);
        assert!(n > 0, "{}: the demo home has no session", agent.name());
        if agent.name() == "claude" {
            assert!(
                left_out > 0,
                "claude: no call output was left at its result"
            );
        }
    }
}

#[test]
#[cfg_attr(no_shared, ignore = "needs ../shared/fixtures/real")]
fn linked_real_captures_equal_get() {
    let env = Env::from_pairs([]);
    for agent in ["claude", "codex"] {
        let client = common::client_over(agent, &common::real_fixtures().join(agent));
        let (n, left_out) = linked_equals_get(&client, agent, &env);
        assert!(n >= 3, "{agent}: {n} real captures listed");
        if agent == "claude" {
            assert!(
                left_out > 0,
                "claude: no call output was left at its result"
            );
        }
    }
}
