-- Version 2: a session no longer found on its machine is marked, not removed (`amux sync`
-- removes it only with --prune), so dashboards can tell history from what is still there.
ALTER TABLE sessions ADD COLUMN deleted_at timestamptz;
CREATE INDEX sessions_deleted_at ON sessions (deleted_at) WHERE deleted_at IS NOT NULL;
