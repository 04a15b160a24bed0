-- Version 6: each summary row's first and last moment of usage (`first_at_ms`, `last_at_ms`,
-- milliseconds since the epoch), so that a cost report on the reader's calendar adds a row whole
-- where both fall in one of its periods, and reads the usage rows only of the few that span two.
-- A usage row counts at the start of its quarter hour (as a rebuilt session's slices do); one
-- without a time at its session's creation, or at its run's first time; a session without usage
-- has neither.
ALTER TABLE usage_days ADD COLUMN first_at_ms bigint, ADD COLUMN last_at_ms bigint;

CREATE OR REPLACE VIEW usage_days_of AS
WITH p AS (
    SELECT u.machine, u.unified_id, true AS sess, u.day, btrim(u.model) AS model,
           s.os_user, s.agent, min(u.project) AS project, s.created_at,
           count(*)::integer AS pieces,
           sum(u.input_tokens)::bigint AS input_tokens, sum(u.output_tokens)::bigint AS output_tokens,
           sum(u.thinking_tokens)::bigint AS thinking_tokens, sum(u.cached_tokens)::bigint AS cached_tokens,
           sum(u.cache_write_tokens)::bigint AS cache_write_tokens, sum(u.cost_usd) AS cost_usd,
           min(CASE WHEN u.at IS NULL THEN round(extract(epoch FROM s.created_at) * 1000)::bigint
                    ELSE (floor(date_part('epoch', u.at) / 900) * 900000)::bigint END) AS first_at_ms,
           max(CASE WHEN u.at IS NULL THEN round(extract(epoch FROM s.created_at) * 1000)::bigint
                    ELSE (floor(date_part('epoch', u.at) / 900) * 900000)::bigint END) AS last_at_ms
    FROM usage u JOIN sessions s ON s.machine = u.machine AND s.unified_id = u.unified_id
    GROUP BY u.machine, u.unified_id, u.day, btrim(u.model), s.os_user, s.agent, s.created_at
  UNION ALL
    SELECT s.machine, s.unified_id, true, coalesce(s.created_day, (s.created_at AT TIME ZONE 'UTC')::date),
           btrim(coalesce(s.model, '')), s.os_user, s.agent, coalesce(s.cwd, ''), s.created_at,
           0, 0, 0, 0, 0, 0, 0, NULL::bigint, NULL::bigint
    FROM sessions s
    WHERE NOT EXISTS (SELECT 1 FROM usage u WHERE u.machine = s.machine AND u.unified_id = s.unified_id)
  UNION ALL
    SELECT u.machine, u.unified_id, false, u.day, btrim(u.model), min(u.os_user), min(u.agent), min(u.project),
           min(u.at), count(*)::integer,
           sum(u.input_tokens)::bigint, sum(u.output_tokens)::bigint, sum(u.thinking_tokens)::bigint,
           sum(u.cached_tokens)::bigint, sum(u.cache_write_tokens)::bigint, sum(u.cost_usd),
           min(CASE WHEN u.at IS NULL THEN (SELECT coalesce(round(extract(epoch FROM min(r.at)) * 1000), 0)::bigint
                      FROM usage r WHERE r.machine = u.machine AND r.unified_id = u.unified_id)
                    ELSE (floor(date_part('epoch', u.at) / 900) * 900000)::bigint END),
           max(CASE WHEN u.at IS NULL THEN (SELECT coalesce(round(extract(epoch FROM min(r.at)) * 1000), 0)::bigint
                      FROM usage r WHERE r.machine = u.machine AND r.unified_id = u.unified_id)
                    ELSE (floor(date_part('epoch', u.at) / 900) * 900000)::bigint END)
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
       row_number() OVER (PARTITION BY machine, unified_id, model ORDER BY day) = 1 AS first_of_model,
       first_at_ms, last_at_ms
FROM p;

UPDATE usage_days d SET first_at_ms = v.first_at_ms, last_at_ms = v.last_at_ms
FROM usage_days_of v
WHERE v.machine = d.machine AND v.unified_id = d.unified_id AND v.day = d.day AND v.model = d.model;
