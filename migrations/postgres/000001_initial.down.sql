DROP TABLE IF EXISTS api_tokens;
DROP TABLE IF EXISTS documents;
DROP FUNCTION IF EXISTS agora_indexed_text(bytea);
DROP FUNCTION IF EXISTS agora_tags_text(text[]);
