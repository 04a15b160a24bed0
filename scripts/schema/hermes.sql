-- Hermes 0.19, schema version 22 (~/.hermes/state.db): the tables agent-mux reads and Hermes'
-- two FTS5 indexes with the triggers that fill them, as the generator (scripts/gen_home.py), the
-- live-writer and the damaged-store tests create them. Written for this repository from the
-- research notes (docs/FORMATS.md); columns, types and order follow Hermes' own schema, which the
-- Rust tests use as captured (../shared/research/hermes-schema-v22.sql).
CREATE TABLE schema_version (version INTEGER NOT NULL);
-- Times are Unix seconds (REAL). Token and cost columns are Hermes' per-session totals.
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  user_id TEXT,
  session_key TEXT,
  chat_id TEXT,
  chat_type TEXT,
  thread_id TEXT,
  display_name TEXT,
  origin_json TEXT,
  expiry_finalized INTEGER DEFAULT 0,
  model TEXT,
  model_config TEXT,
  system_prompt TEXT,
  parent_session_id TEXT REFERENCES sessions(id),
  started_at REAL NOT NULL,
  ended_at REAL,
  end_reason TEXT,
  message_count INTEGER DEFAULT 0,
  tool_call_count INTEGER DEFAULT 0,
  input_tokens INTEGER DEFAULT 0,
  output_tokens INTEGER DEFAULT 0,
  cache_read_tokens INTEGER DEFAULT 0,
  cache_write_tokens INTEGER DEFAULT 0,
  reasoning_tokens INTEGER DEFAULT 0,
  cwd TEXT,
  git_branch TEXT,
  git_repo_root TEXT,
  billing_provider TEXT,
  billing_base_url TEXT,
  billing_mode TEXT,
  estimated_cost_usd REAL,
  actual_cost_usd REAL,
  cost_status TEXT,
  cost_source TEXT,
  pricing_version TEXT,
  title TEXT,
  api_call_count INTEGER DEFAULT 0,
  handoff_state TEXT,
  handoff_platform TEXT,
  handoff_error TEXT,
  compression_failure_cooldown_until REAL,
  compression_failure_error TEXT,
  compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
  profile_name TEXT,
  rewind_count INTEGER NOT NULL DEFAULT 0,
  archived INTEGER NOT NULL DEFAULT 0
);
-- Titles are unique; Hermes numbers repeats ("title #2").
CREATE UNIQUE INDEX sessions_title ON sessions (title) WHERE title IS NOT NULL;
-- One row per message; `tool_calls` is the OpenAI-style JSON array, `active = 0` marks rows a
-- rewind or compaction hid.
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL,
  content TEXT,
  tool_call_id TEXT,
  tool_calls TEXT,
  tool_name TEXT,
  effect_disposition TEXT,
  timestamp REAL NOT NULL,
  token_count INTEGER,
  finish_reason TEXT,
  reasoning TEXT,
  reasoning_content TEXT,
  reasoning_details TEXT,
  codex_reasoning_items TEXT,
  codex_message_items TEXT,
  platform_message_id TEXT,
  observed INTEGER DEFAULT 0,
  active INTEGER NOT NULL DEFAULT 1,
  compacted INTEGER NOT NULL DEFAULT 0,
  api_content TEXT
);
CREATE INDEX messages_by_session ON messages (session_id, timestamp);
-- Per-model usage of a session (several rows when the model changed).
CREATE TABLE session_model_usage (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  billing_provider TEXT NOT NULL DEFAULT '',
  billing_base_url TEXT NOT NULL DEFAULT '',
  billing_mode TEXT NOT NULL DEFAULT '',
  task TEXT NOT NULL DEFAULT '',
  api_call_count INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  estimated_cost_usd REAL NOT NULL DEFAULT 0,
  actual_cost_usd REAL NOT NULL DEFAULT 0,
  cost_status TEXT,
  cost_source TEXT,
  first_seen REAL,
  last_seen REAL,
  PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode, task)
);
-- Full-text search: a unicode61 index and a trigram one (CJK, substrings), both over the content,
-- tool name and tool calls of every message, kept in step by triggers.
CREATE VIRTUAL TABLE messages_fts USING fts5(content);
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
  DELETE FROM messages_fts WHERE rowid = old.id;
  DELETE FROM messages_fts_trigram WHERE rowid = old.id;
  INSERT INTO messages_fts(rowid, content) VALUES (new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
  INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id,
    COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, ''));
END;
