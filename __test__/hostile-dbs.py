#!/usr/bin/env python3
"""Damaged Hermes and OpenCode databases for __test__/hostile.test.mjs, built from the agents'
tables (scripts/schema, as scripts/gen_home.py builds them), then broken: a table missing, or cells
of the wrong type.

  python3 __test__/hostile-dbs.py HOME
"""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import gen_home as g  # noqa: E402

home = sys.argv[1]


def make(rel, agent, damage):
    path = os.path.join(home, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    c = sqlite3.connect(path)
    g.apply_schema(c, agent)
    damage(c)
    c.commit()
    c.close()


def hermes_missing(c):  # a session whose messages table is gone
    c.execute("INSERT INTO sessions (id, source, started_at, title) "
              "VALUES ('20260101_000000_aaaaaa', 'cli', 1767225600, 'no messages table')")
    c.execute("DROP TABLE messages")


def hermes_types(c):  # text in REAL/INTEGER columns, BLOBs in TEXT, a role that is a number
    c.execute("INSERT INTO sessions (id, source, started_at, input_tokens, estimated_cost_usd, title, model) "
              "VALUES ('20260101_000000_bbbbbb', 'cli', 'yesterday', 'lots', 'free', X'00ff', 7)")
    c.execute("INSERT INTO messages (session_id, role, content, timestamp, tool_calls) "
              "VALUES ('20260101_000000_bbbbbb', 'user', X'ff00fe', 'noon', '{not json')")
    c.execute("INSERT INTO messages (session_id, role, content, timestamp) "
              "VALUES ('20260101_000000_bbbbbb', 42, 'answer', 1767225601)")


def opencode_session(c, sid, **over):
    row = {"id": sid, "project_id": "global", "slug": "s", "directory": "/w", "title": "t", "version": "1.18.0",
           "time_created": 1767225600000, "time_updated": 1767225601000}
    row.update(over)
    c.execute("INSERT OR IGNORE INTO project (id, worktree, time_created, time_updated, sandboxes) "
              "VALUES ('global', '/', 0, 0, '[]')")
    c.execute(f"INSERT INTO session ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))


def opencode_missing(c):  # sessions and messages, but the part table is gone
    opencode_session(c, "ses_missingpart0000000000001")
    c.execute("INSERT INTO message VALUES ('msg_1', 'ses_missingpart0000000000001', 1767225600000, 1767225600000, "
              "'{\"role\":\"user\",\"time\":{\"created\":1767225600000}}')")
    c.execute("DROP TABLE part")


def opencode_types(c):  # times and cost as text, title a BLOB, message data not JSON
    opencode_session(c, "ses_wrongtypes00000000000001", time_created="soon", time_updated=b"\xff", cost="free",
                     title=b"\x00\xff", tokens_input="many")
    c.execute("INSERT INTO message VALUES ('msg_2', 'ses_wrongtypes00000000000001', 'later', 0, '{not json')")
    c.execute("INSERT INTO part VALUES ('prt_2', 'msg_2', 'ses_wrongtypes00000000000001', 0, 0, X'ff')")


make(".hermes/profiles/missing/state.db", "hermes", hermes_missing)
make(".hermes/profiles/types/state.db", "hermes", hermes_types)
make(".local/share/opencode/opencode-missing.db", "opencode", opencode_missing)
make(".local/share/opencode/opencode-types.db", "opencode", opencode_types)
