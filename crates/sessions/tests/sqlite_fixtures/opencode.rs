//! OpenCode 1.18 stores built from its real DDL (the opencode and search tests).
use rusqlite::types::Value;
use rusqlite::Connection;

use super::{i, insert, research_file, t};

/// OpenCode's DDL from ../shared/research.
pub fn ddl() -> String {
    research_file("research", "opencode-schema-1.18.sql")
}

/// A session of the global project; `extra` columns replace or add to the defaults.
pub fn add_session(c: &Connection, id: &str, extra: &[(&str, Value)]) {
    let mut v = vec![
        ("id", t(id)),
        ("project_id", t("global")),
        ("slug", t(&format!("slug-{id}"))),
        ("directory", t("/work/app")),
        ("title", t("")),
        ("version", t("1.18.33")),
        ("time_created", i(1780000000000)),
        ("time_updated", i(1780000090000)),
    ];
    v.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
    v.extend(extra.iter().cloned());
    insert(c, "session", &v);
}

/// A message (`data` as stored) and its parts, created at `created` ms (part n at `created + n`).
pub fn add_message(
    c: &Connection,
    sid: &str,
    id: &str,
    created: i64,
    data: serde_json::Value,
    parts: &[serde_json::Value],
) {
    insert(
        c,
        "message",
        &[
            ("id", t(id)),
            ("session_id", t(sid)),
            ("time_created", i(created)),
            ("time_updated", i(created)),
            ("data", t(&data.to_string())),
        ],
    );
    for (n, p) in parts.iter().enumerate() {
        insert(
            c,
            "part",
            &[
                ("id", t(&format!("prt_{id}_{n:02}"))),
                ("message_id", t(id)),
                ("session_id", t(sid)),
                ("time_created", i(created + n as i64)),
                ("time_updated", i(created + n as i64)),
                ("data", t(&p.to_string())),
            ],
        );
    }
}

/// The `global` project every fixture session belongs to.
pub fn add_project(c: &Connection) {
    insert(
        c,
        "project",
        &[
            ("id", t("global")),
            ("worktree", t("/")),
            ("sandboxes", t("[]")),
            ("time_created", i(1780000000000)),
            ("time_updated", i(1780000000000)),
        ],
    );
}
