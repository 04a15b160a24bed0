//! A database file of a SQLite agent: the first byte picks the agent (cursor store.db, OpenCode
//! opencode.db, Hermes state.db, OpenClaw openclaw-agent.sqlite), the rest is the file. Seeds are
//! valid small databases (fuzz/run.sh prefixes the demo home's), so mutations reach the rows.
#![no_main]
use agent_mux_fuzz::*;
use libfuzzer_sys::fuzz_target;

const STORES: [(&str, &str); 4] = [
    (
        "cursor",
        ".cursor/chats/2e8c9ec4d6d70d1407e75cb94f61ffd9/26433798-7e83-4904-bc17-3498b87e4e2b/store.db",
    ),
    ("opencode", ".local/share/opencode/opencode.db"),
    ("hermes", ".hermes/state.db"),
    ("openclaw", ".openclaw/agents/main/agent/openclaw-agent.sqlite"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, db)) = data.split_first() else {
        return;
    };
    let (agent, rel) = STORES[pick as usize % STORES.len()];
    one_file(agent, rel, &[], db);
});
