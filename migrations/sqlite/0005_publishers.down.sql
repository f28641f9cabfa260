DROP INDEX documents_supersedes_own;
DROP INDEX documents_supersedes;
CREATE INDEX documents_supersedes ON documents (supersedes) WHERE supersedes IS NOT NULL;
ALTER TABLE api_tokens DROP COLUMN publisher;
ALTER TABLE documents DROP COLUMN publisher;
