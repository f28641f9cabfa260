DROP TABLE IF EXISTS document_history;
DROP INDEX IF EXISTS documents_publisher_idx;
ALTER TABLE documents
    DROP COLUMN IF EXISTS status_at,
    DROP COLUMN IF EXISTS replacement,
    DROP COLUMN IF EXISTS status_message,
    DROP COLUMN IF EXISTS status;
DROP TABLE IF EXISTS publishers;
