-- The withdrawn set the raw path checks before serving a blob file is read
-- through this index: its size is the number of withdrawn rows, not the
-- table's. Building it reads the table once and blocks writes meanwhile
-- (seconds at a million rows).
CREATE INDEX documents_withdrawn ON documents (digest) WHERE withdrawn_at IS NOT NULL;
