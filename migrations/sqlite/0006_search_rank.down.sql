DROP TABLE search_words;
DROP INDEX document_tags_newest;
ALTER TABLE document_tags DROP COLUMN hex;
ALTER TABLE document_tags DROP COLUMN created_at;
DROP TRIGGER documents_supersede;
DROP INDEX documents_demoted;
ALTER TABLE documents DROP COLUMN demoted;
