ALTER TABLE documents ALTER COLUMN head SET STATISTICS -1;
ALTER TABLE documents ALTER COLUMN search SET STATISTICS -1;
DROP TRIGGER documents_search_insert ON documents;
DROP FUNCTION documents_search_inserted();
DROP TABLE search_words;
ALTER TABLE documents DROP COLUMN demoted;
