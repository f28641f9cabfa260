CREATE INDEX documents_name_idx ON documents ((lower(title) COLLATE "C"), digest);
DROP INDEX IF EXISTS documents_natural_name_idx;
DROP FUNCTION IF EXISTS natural_key(text);
