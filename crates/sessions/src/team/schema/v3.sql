-- Version 3: a message's text is stored once, in its JSON; what search reads of it is made by the
-- sync with the local tokenizer, and only the sessions that changed are looked at.

-- `tsv`: the message's words as the local search splits and folds them (letters and digits),
-- with their positions, written by the sync (no longer derived by PostgreSQL's parser, which
-- keeps hosts, paths and versions whole): what a phrase is checked on, and the best message of
-- a session found is ranked by. It has no index: searches find sessions by `sessions.words`.
ALTER TABLE messages ALTER COLUMN tsv DROP EXPRESSION;
DROP INDEX messages_tsv;

-- `cjk`: the folded text of a message holding CJK characters (which have no word boundaries:
-- matched by substring through the trigram index), NULL for any other message.
ALTER TABLE messages ADD COLUMN cjk text;
UPDATE messages SET cjk = lower(text)
WHERE text ~ '[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\U00020000-\U0002a6df]';
ALTER TABLE messages DROP COLUMN text;
CREATE INDEX messages_cjk_trgm ON messages USING gin (cjk gin_trgm_ops) WHERE cjk IS NOT NULL;

-- `words`: every word of the session (its title and its messages) once, without positions: the
-- index a search finds sessions by (one entry per word and session, not per message).
-- `title_tsv`: the title's words with their positions (for phrases). Both are made by the sync;
-- for the rows of an older sync they are made here from what is stored, and the stamps are
-- cleared so that each machine's next sync writes its sessions again as this version does.
ALTER TABLE sessions ADD COLUMN title_tsv tsvector NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN words tsvector NOT NULL DEFAULT '';
UPDATE sessions s SET title_tsv = to_tsvector('simple', s.title),
    words = strip(to_tsvector('simple', s.title) || coalesce((
        SELECT array_to_tsvector(array_agg(DISTINCT w.lexeme))
        FROM messages m, unnest(m.tsv) w
        WHERE m.machine = s.machine AND m.unified_id = s.unified_id), '')),
    stamp = '', messages_hash = '';
CREATE INDEX sessions_words ON sessions USING gin (words);

-- What each machine's last sync saw of each agent (its sources' stamps, the prices, the
-- options): an agent whose fingerprint is unchanged is not read again.
CREATE TABLE sync_agents (
    machine     text NOT NULL REFERENCES machines ON DELETE CASCADE,
    agent       text NOT NULL,
    fingerprint text NOT NULL,
    PRIMARY KEY (machine, agent)
);

-- The messages' JSON and words compressed with lz4 where the server has it: several times faster
-- to write than the default pglz, at about its size.
DO $$
BEGIN
    IF 'lz4' = ANY ((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression')::text[]) THEN
        ALTER TABLE messages ALTER COLUMN message SET COMPRESSION lz4,
            ALTER COLUMN tsv SET COMPRESSION lz4, ALTER COLUMN cjk SET COMPRESSION lz4;
        ALTER TABLE sessions ALTER COLUMN words SET COMPRESSION lz4;
    END IF;
END $$;
