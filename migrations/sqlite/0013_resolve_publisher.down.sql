DROP INDEX documents_resolve;
CREATE INDEX documents_resolve ON documents (hex, withdrawn_at, title, status, replacement, status_message);
