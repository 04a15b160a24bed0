-- Version 4: the usage summed per session, day and model (`usage_days`), which the team's
-- totalCost and the daily_cost view read without joining the sessions. The sync writes a
-- session's summary rows in the transaction that writes its usage rows, from the view
-- `usage_days_of`, which is the summary's definition: the table is that view stored.

-- The machine's local day a session was created on, where a session without usage counts (as
-- it does in `amux cost` there); NULL for a row synced before, which counts on its UTC day.
ALTER TABLE sessions ADD COLUMN created_day date;

-- What each summary row holds, made from `usage` and `sessions` (the usage of a session that is
-- gone but kept, and of a run that matches no session, included):
-- - one row per session, the machine's local `day` and `model` (trimmed) the usage rows of
--   that session were recorded under, with their sums and how many they are (`pieces`; a
--   session's usage rows all hold its directory as `project`);
-- - one row of zeros for a session without usage (`pieces` 0): its model, its directory, the
--   day it was created on (it still counts among the sessions);
-- - for each row, what the filters read of its session (`agent`, `os_user`, `created_at`: a
--   run's is its time) and whether it is a session's (`sess`) or a run's;
-- - `first_*`: whether the row is the session's first (by day, then model) of the whole
--   session, of its day, of its month and of its model, so that a group's sessions are counted
--   by adding flags, never by a count of distinct sessions.
CREATE VIEW usage_days_of AS
WITH p AS (
    SELECT u.machine, u.unified_id, true AS sess, u.day, btrim(u.model) AS model,
           s.os_user, s.agent, min(u.project) AS project, s.created_at,
           count(*)::integer AS pieces,
           sum(u.input_tokens)::bigint AS input_tokens, sum(u.output_tokens)::bigint AS output_tokens,
           sum(u.thinking_tokens)::bigint AS thinking_tokens, sum(u.cached_tokens)::bigint AS cached_tokens,
           sum(u.cache_write_tokens)::bigint AS cache_write_tokens, sum(u.cost_usd) AS cost_usd
    FROM usage u JOIN sessions s ON s.machine = u.machine AND s.unified_id = u.unified_id
    GROUP BY u.machine, u.unified_id, u.day, btrim(u.model), s.os_user, s.agent, s.created_at
  UNION ALL
    SELECT s.machine, s.unified_id, true, coalesce(s.created_day, (s.created_at AT TIME ZONE 'UTC')::date),
           btrim(coalesce(s.model, '')), s.os_user, s.agent, coalesce(s.cwd, ''), s.created_at,
           0, 0, 0, 0, 0, 0, 0
    FROM sessions s
    WHERE NOT EXISTS (SELECT 1 FROM usage u WHERE u.machine = s.machine AND u.unified_id = s.unified_id)
  UNION ALL
    SELECT u.machine, u.unified_id, false, u.day, btrim(u.model), min(u.os_user), min(u.agent), min(u.project),
           min(u.at), count(*)::integer,
           sum(u.input_tokens)::bigint, sum(u.output_tokens)::bigint, sum(u.thinking_tokens)::bigint,
           sum(u.cached_tokens)::bigint, sum(u.cache_write_tokens)::bigint, sum(u.cost_usd)
    FROM usage u
    WHERE u.unified_id LIKE 'run:%'
    GROUP BY u.machine, u.unified_id, u.day, btrim(u.model)
)
SELECT machine, unified_id, day, model, sess, os_user, agent, project, created_at, pieces,
       input_tokens, output_tokens, thinking_tokens, cached_tokens, cache_write_tokens, cost_usd,
       row_number() OVER (PARTITION BY machine, unified_id ORDER BY day, model) = 1 AS first_of_session,
       row_number() OVER (PARTITION BY machine, unified_id, day ORDER BY model) = 1 AS first_of_day,
       row_number() OVER (PARTITION BY machine, unified_id, date_trunc('month', day)
                          ORDER BY day, model) = 1 AS first_of_month,
       row_number() OVER (PARTITION BY machine, unified_id, model ORDER BY day) = 1 AS first_of_model
FROM p;

CREATE TABLE usage_days (
    machine            text NOT NULL,
    unified_id         text NOT NULL,
    day                date NOT NULL,
    model              text NOT NULL,
    sess               boolean NOT NULL,
    os_user            text NOT NULL,
    agent              text NOT NULL,
    project            text NOT NULL,
    created_at         timestamptz,
    pieces             integer NOT NULL,
    input_tokens       bigint NOT NULL,
    output_tokens      bigint NOT NULL,
    thinking_tokens    bigint NOT NULL,
    cached_tokens      bigint NOT NULL,
    cache_write_tokens bigint NOT NULL,
    cost_usd           double precision NOT NULL,
    first_of_session   boolean NOT NULL,
    first_of_day       boolean NOT NULL,
    first_of_month     boolean NOT NULL,
    first_of_model     boolean NOT NULL,
    PRIMARY KEY (machine, unified_id, day, model)
);
INSERT INTO usage_days SELECT * FROM usage_days_of;

-- The dashboards' view, read from the summary: the same rows as version 1's (the usage of each
-- day, user, machine, project, agent and model, and how many sessions and runs it is), without
-- the sessions that have no usage.
CREATE OR REPLACE VIEW daily_cost AS
SELECT day, os_user, machine, project, agent, model,
       sum(cost_usd)                   AS cost_usd,
       sum(input_tokens)::bigint       AS input_tokens,
       sum(output_tokens)::bigint      AS output_tokens,
       sum(thinking_tokens)::bigint    AS thinking_tokens,
       sum(cached_tokens)::bigint      AS cached_tokens,
       sum(cache_write_tokens)::bigint AS cache_write_tokens,
       count(*)                        AS session_count
FROM usage_days
WHERE pieces > 0
GROUP BY day, os_user, machine, project, agent, model;
