-- The set of documents that are not plainly active (withdrawn or
-- deprecated), which the raw path checks before serving a blob file, is
-- read through this index: its size is the number of such rows, not the
-- table's. Building it reads the table once and blocks writes meanwhile
-- (seconds at a million rows).
CREATE INDEX documents_inactive ON documents (digest) INCLUDE (withdrawn_at)
    WHERE withdrawn_at IS NOT NULL OR status <> 'active';
