DROP TABLE document_history;
DROP INDEX documents_publisher;
DROP INDEX documents_resolve;
CREATE INDEX documents_resolve ON documents (hex, withdrawn_at, title);
ALTER TABLE documents DROP COLUMN status_at;
ALTER TABLE documents DROP COLUMN replacement;
ALTER TABLE documents DROP COLUMN status_message;
ALTER TABLE documents DROP COLUMN status;
DROP TABLE publishers;
