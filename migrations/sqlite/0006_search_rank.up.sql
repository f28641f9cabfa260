-- Search ranking, the tag listing's key and the word list
-- (internal/store/sqlite/search.go).
--
-- demoted ranks a document after every live match of a search: bit 1 is
-- set while a listed newer version by the same publisher supersedes it
-- (kept by the trigger below and by Withdraw), bit 2 is reserved for a
-- publisher's "deprecated" status. Any bit set demotes.
ALTER TABLE documents ADD COLUMN demoted INTEGER NOT NULL DEFAULT 0;
UPDATE documents SET demoted = 1
WHERE EXISTS (SELECT 1 FROM documents n
              WHERE n.supersedes = documents.hex AND n.publisher = documents.publisher AND n.withdrawn_at IS NULL);
CREATE INDEX documents_demoted ON documents (id) WHERE demoted <> 0;

CREATE TRIGGER documents_supersede AFTER INSERT ON documents
    WHEN NEW.supersedes IS NOT NULL AND NEW.withdrawn_at IS NULL BEGIN
    UPDATE documents SET demoted = demoted | 1
    WHERE hex = NEW.supersedes AND publisher = NEW.publisher AND demoted & 1 = 0;
END;

-- A tag's rows carry their document's newest-first key, so a listing by
-- tag reads one index range in order and stops after a page.
ALTER TABLE document_tags ADD COLUMN created_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE document_tags ADD COLUMN hex TEXT NOT NULL DEFAULT '';
UPDATE document_tags SET (created_at, hex) = (SELECT d.created_at, d.hex FROM documents d WHERE d.id = document_tags.doc_id);
CREATE INDEX document_tags_newest ON document_tags (tag, created_at DESC, hex DESC);

-- search_words are the words of listed titles, descriptions and tags, as
-- written (lower-cased, not stemmed): the last query word's prefix
-- expands to some of them, and a search that finds nothing suggests the
-- nearest. The store adds a new document's words (store.HeadWords); words
-- are never removed. The stored documents' words are read here with
-- FTS5's unicode61 tokenizer (letters and digits, lower-cased, as
-- store.Terms splits), through a scratch table and its vocabulary.
CREATE TABLE search_words (word TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;
CREATE VIRTUAL TABLE search_words_scratch USING fts5 (text, tokenize = 'unicode61 remove_diacritics 0');
INSERT INTO search_words_scratch (text)
SELECT d.title || ' ' || d.description || ' ' || coalesce((SELECT group_concat(j.value, ' ') FROM json_each(d.tags) AS j), '')
FROM documents AS d WHERE d.withdrawn_at IS NULL;
CREATE VIRTUAL TABLE search_words_scratch_vocab USING fts5vocab (search_words_scratch, 'row');
INSERT OR IGNORE INTO search_words (word)
SELECT term FROM search_words_scratch_vocab WHERE length(term) BETWEEN 2 AND 40;
DROP TABLE search_words_scratch_vocab;
DROP TABLE search_words_scratch;
