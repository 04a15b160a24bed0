-- OpenClaw 2026.9 agent store (~/.openclaw/agents/<agentId>/agent/openclaw-agent.sqlite): the
-- tables agent-mux reads, as the generator (scripts/gen_home.py) creates them. Written for this
-- repository from the research notes (docs/FORMATS.md); columns, types and order follow
-- OpenClaw's own schema (STRICT tables), which the Rust tests use as captured
-- (../shared/research/openclaw-agent-schema-2026.9.sql). The generator inserts transcript rows by
-- position: keep the column order. Times are Unix milliseconds.
CREATE TABLE schema_meta (
  meta_key TEXT NOT NULL PRIMARY KEY,
  role TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  agent_id TEXT,
  app_version TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
-- One row per session key (a conversation); `current_session_id` is its latest window and
-- `entry_json` the index entry (model, token totals, estimated cost).
CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY,
  current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  legacy_acp_migration_json TEXT,
  entry_valid INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  status TEXT,
  created_at INTEGER,
  created_via TEXT,
  created_actor_type TEXT,
  created_actor_id TEXT,
  owner_actor_type TEXT,
  owner_actor_id TEXT,
  owner_assigned_by_type TEXT,
  owner_assigned_by_id TEXT,
  owner_assigned_at INTEGER,
  project_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  fork_source_session_key TEXT,
  fork_source_session_id TEXT,
  fork_source_entry_id TEXT,
  label TEXT,
  display_name TEXT,
  category TEXT,
  icon TEXT,
  pinned_at INTEGER,
  archived_at INTEGER,
  last_read_at INTEGER,
  last_interaction_at INTEGER,
  last_activity_at INTEGER
) STRICT;
-- One row per session id (a window of a session key: initial, reset, fork, compaction...).
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL REFERENCES session_nodes(session_key) ON DELETE CASCADE,
  previous_session_id TEXT,
  reason TEXT,
  session_scope TEXT NOT NULL DEFAULT 'conversation',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  transcript_updated_at INTEGER DEFAULT NULL,
  transcript_observed_at INTEGER DEFAULT NULL,
  session_entry_provenance INTEGER NOT NULL DEFAULT 0,
  acp_owned INTEGER NOT NULL DEFAULT 0,
  plugin_owner_id TEXT,
  hook_external_content_source TEXT,
  started_at INTEGER,
  ended_at INTEGER,
  status TEXT,
  chat_type TEXT,
  channel TEXT,
  account_id TEXT,
  primary_conversation_id TEXT,
  model_provider TEXT,
  model TEXT,
  agent_harness_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  display_name TEXT
) STRICT;
-- The transcript: the Pi-format JSONL events of a session, one per row in `seq` order, either as
-- text (`event_json`) or, when large, zstd-compressed (`event_zstd`, with its decoded size and a
-- navigation summary).
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL REFERENCES session_windows(session_id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER,
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  CHECK ((event_json IS NOT NULL AND event_zstd IS NULL)
      OR (event_json IS NULL AND event_zstd IS NOT NULL
          AND event_utf8_bytes IS NOT NULL AND navigation_json IS NOT NULL))
) STRICT;
-- Each event's id, type and parent, for navigation without decoding the events.
CREATE TABLE transcript_event_identities (
  session_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_type TEXT,
  parent_id TEXT,
  message_idempotency_key TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, event_id),
  FOREIGN KEY (session_id, seq) REFERENCES transcript_events(session_id, seq) ON DELETE CASCADE
) STRICT;
