-- The team database, version 1. Applied once, inside the migration's transaction, by `amux sync`.
-- Every row belongs to one machine: (machine, unified_id) names a session across the team, since
-- two machines may hold sessions with the same id (copies of a home, a shared agent id).

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The versions applied, one row each.
CREATE TABLE amux_schema (
    version    integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
);

-- Each machine that synced, and who synced it last.
CREATE TABLE machines (
    machine        text PRIMARY KEY,
    os_user        text NOT NULL,
    last_sync_at   timestamptz NOT NULL,
    amux_version   text NOT NULL
);

-- One row per session of each machine: its summary as `list` gives it (title redacted), and the
-- stamps of what was pushed, so the next sync pushes only what changed.
CREATE TABLE sessions (
    machine            text NOT NULL,
    unified_id         text NOT NULL,
    os_user            text NOT NULL,
    agent              text NOT NULL,
    session_id         text NOT NULL,
    title              text NOT NULL,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL,
    turn_count         bigint NOT NULL,
    message_count      bigint NOT NULL,
    model              text,
    cwd                text,
    git_branch         text,
    forked_from        text,
    tags               text[] NOT NULL DEFAULT '{}',
    archived           boolean NOT NULL DEFAULT false,
    -- The summary's `cost` (absent when the session has none): the CostRecord's fields.
    cost_usd           double precision,
    input_tokens       bigint,
    output_tokens      bigint,
    thinking_tokens    bigint,
    cached_tokens      bigint,
    cache_write_tokens bigint,
    -- What was synced: the local stamp of the summary, the messages pushed (rows 0 .. count-1)
    -- and a hash of them, which an append must still match to push only the new rows.
    redacted           boolean NOT NULL,
    stamp              text NOT NULL,
    pushed_messages    integer NOT NULL DEFAULT 0,
    messages_hash      text NOT NULL DEFAULT '',
    usage_hash         text NOT NULL DEFAULT '',
    synced_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (machine, unified_id)
);
CREATE INDEX sessions_updated_at ON sessions (updated_at DESC);
CREATE INDEX sessions_agent_session_id ON sessions (agent, session_id);

-- One row per message, in order (idx from 0). `text` is what search reads: the content, the
-- thinking, the tools' inputs and outputs, redacted like `message`, which is the message's JSON
-- as the core serialises it (`get` rebuilds the exact Message from it; json keeps key order).
CREATE TABLE messages (
    machine    text NOT NULL,
    unified_id text NOT NULL,
    idx        integer NOT NULL,
    role       text NOT NULL,
    at         timestamptz,
    model      text,
    text       text NOT NULL,
    message    json NOT NULL,
    -- 'simple': no stemming and no stop words, so ids and paths are words as they are locally.
    -- A tsvector holds at most 1 MB: the first 256k characters of a message are its words.
    tsv        tsvector GENERATED ALWAYS AS (to_tsvector('simple', left(text, 262144))) STORED,
    PRIMARY KEY (machine, unified_id, idx),
    FOREIGN KEY (machine, unified_id) REFERENCES sessions ON DELETE CASCADE
);
CREATE INDEX messages_tsv ON messages USING gin (tsv);
-- Substrings and CJK text, which have no word boundaries for the full-text search.
CREATE INDEX messages_text_trgm ON messages USING gin (text gin_trgm_ops);

-- One row per priced piece of usage as the local cost engine counts it (after its dedupe): a
-- model's tokens and cost at one time of one session, so SUM(cost_usd) over a machine's rows is
-- that machine's `totalCost`. `unified_id` is 'run:<id>' for a run of the run index that matches
-- no session (it counts in totalCost too). `day` is the machine's local day, as `amux cost
-- daily` shows it there; `at` is when it was spent (NULL: not recorded, counted on `day`).
CREATE TABLE usage (
    machine            text NOT NULL,
    unified_id         text NOT NULL,
    n                  integer NOT NULL,
    os_user            text NOT NULL,
    agent              text NOT NULL,
    model              text NOT NULL,
    project            text NOT NULL,
    day                date NOT NULL,
    at                 timestamptz,
    input_tokens       bigint NOT NULL,
    output_tokens      bigint NOT NULL,
    thinking_tokens    bigint NOT NULL,
    cached_tokens      bigint NOT NULL,
    cache_write_tokens bigint NOT NULL,
    cost_usd           double precision NOT NULL,
    PRIMARY KEY (machine, unified_id, n)
);
CREATE INDEX usage_day ON usage (day);

-- Spend per day for dashboards (Grafana, Metabase): one row per day, user, machine, project,
-- agent and model.
CREATE VIEW daily_cost AS
SELECT day, os_user, machine, project, agent, model,
       sum(cost_usd)                 AS cost_usd,
       sum(input_tokens)::bigint       AS input_tokens,
       sum(output_tokens)::bigint      AS output_tokens,
       sum(thinking_tokens)::bigint    AS thinking_tokens,
       sum(cached_tokens)::bigint      AS cached_tokens,
       sum(cache_write_tokens)::bigint AS cache_write_tokens,
       count(DISTINCT unified_id)      AS session_count
FROM usage
GROUP BY day, os_user, machine, project, agent, model;
