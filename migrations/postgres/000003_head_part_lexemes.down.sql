DROP INDEX IF EXISTS documents_meta_lexemes_idx;
DROP INDEX IF EXISTS documents_title_lexemes_idx;
