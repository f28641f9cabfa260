-- The task match's index (store.MatchSearch): the fields a task is asked
-- of, each weighted by bm25 at query time. Contentless like documents_fts;
-- same tokenizer (porter stems "booking" and "books" to "book"). Rows are
-- listed documents; a withdrawal deletes its row.
CREATE VIRTUAL TABLE documents_match_fts USING fts5 (
    title, tags, description, queries, headings,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Documents stored before this migration are indexed by the columns kept
-- in the table; their representative queries and headings join the index
-- when they are stored again (import, follow).
INSERT INTO documents_match_fts (rowid, title, tags, description, queries, headings)
SELECT d.id, d.title, coalesce((SELECT group_concat(j.value, ' ') FROM json_each(d.tags) AS j), ''), d.description, '', ''
FROM documents AS d
WHERE d.withdrawn_at IS NULL;
