COMMENT ON COLUMN documents.search IS NULL;
ALTER TABLE documents ALTER COLUMN content SET COMPRESSION default, ALTER COLUMN search SET COMPRESSION default;

-- seq is numbered anew, in the table's physical order.
ALTER TABLE documents ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE;
CREATE INDEX documents_created_idx ON documents (created_at, seq);

DROP TRIGGER IF EXISTS documents_counted_truncate ON documents;
DROP TRIGGER IF EXISTS documents_counted_delete ON documents;
DROP TRIGGER IF EXISTS documents_counted_update ON documents;
DROP TRIGGER IF EXISTS documents_counted_insert ON documents;
DROP FUNCTION IF EXISTS documents_count_truncated();
DROP FUNCTION IF EXISTS documents_count_deleted();
DROP FUNCTION IF EXISTS documents_count_updated();
DROP FUNCTION IF EXISTS documents_count_inserted();
DROP FUNCTION IF EXISTS fold_document_counts();
DROP FUNCTION IF EXISTS count_document_changes(document_count_change[]);
DROP TYPE IF EXISTS document_count_change;
DROP TABLE IF EXISTS document_counts;
