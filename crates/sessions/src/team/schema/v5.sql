-- Version 5: a session's words hold its CJK grams (each CJK character and each pair of adjacent
-- ones, of its title and its messages), so that a search finds the sessions that may hold a CJK
-- text through the session index, as it finds a word's: one entry per gram and session. The
-- messages' trigram index returned every message holding a common CJK term, which a search then
-- grouped by session; it is no longer read, and no longer written by each sync (it is dropped
-- below, once it has served to find the messages holding CJK text).

-- The grams of the rows synced before, made from what is stored: the messages' folded CJK text
-- (`cjk`) and the titles (CJK characters fold to themselves). The words of a quarter of the
-- sessions may change: their index is built again in bulk, which is quicker than updating
-- theirs in place. A session whose words would pass a tsvector's 1 MB keeps its words as they
-- were, as the sync keeps a session's first 900 kB of words.
DROP INDEX sessions_words;
-- Each text's distinct runs of CJK characters, then each run's distinct grams, so that a tool's
-- output repeating a line a thousand times is one run to cut.
WITH texts AS (
    SELECT machine, unified_id, cjk AS text FROM messages WHERE cjk IS NOT NULL
  UNION ALL
    SELECT machine, unified_id, title FROM sessions
), grams AS (
    SELECT t.machine, t.unified_id, array_agg(DISTINCT d.g) AS grams
    FROM texts t, LATERAL (
        SELECT DISTINCT x.g
        FROM (SELECT DISTINCT r[1] AS run FROM regexp_matches(t.text, '[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\U00020000-\U0002a6df]+', 'g') AS r) AS runs,
             generate_series(1, length(run)) AS i,
             LATERAL (VALUES (substr(run, i, 1)), (CASE WHEN i > 1 THEN substr(run, i - 1, 2) END)) AS x(g)
        WHERE x.g IS NOT NULL
    ) AS d
    GROUP BY t.machine, t.unified_id
)
UPDATE sessions s SET words = s.words || array_to_tsvector(g.grams)
FROM grams g
WHERE s.machine = g.machine AND s.unified_id = g.unified_id
  AND octet_length(s.words::text) + (SELECT sum(octet_length(x) + 3) FROM unnest(g.grams) x) < 1000000;
DROP INDEX messages_cjk_trgm;
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX sessions_words ON sessions USING gin (words);
