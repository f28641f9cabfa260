-- The withdrawn set the raw path checks before serving a blob file is read
-- through this index: its size is the number of withdrawn rows, not the
-- table's.
CREATE INDEX documents_withdrawn ON documents (hex) WHERE withdrawn_at IS NOT NULL;
