DROP INDEX IF EXISTS documents_supersedes_own_idx;
DROP INDEX IF EXISTS documents_supersedes_idx;
CREATE INDEX documents_supersedes_idx ON documents (supersedes) WHERE supersedes IS NOT NULL;
ALTER TABLE api_tokens DROP COLUMN IF EXISTS publisher;
ALTER TABLE documents DROP COLUMN IF EXISTS publisher;
