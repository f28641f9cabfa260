ALTER TABLE api_tokens DROP COLUMN created_by;
DROP TABLE sessions;
