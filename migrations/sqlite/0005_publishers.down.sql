ALTER TABLE api_tokens DROP COLUMN publisher;
ALTER TABLE documents DROP COLUMN publisher;
