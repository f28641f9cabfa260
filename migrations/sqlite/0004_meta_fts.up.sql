-- The relevance tiers above "body only" ask whether a query word is in the
-- title or in the description/tags. Asked of documents_fts, FTS5 walks the
-- word's whole doclist and decodes every position list to check the
-- column, so a word common in bodies (and absent from titles) cost time
-- linear in its matches (docs/benchmarks/sqlite-common-word-search.md).
-- This index holds only those short columns, so its doclists hold only
-- documents with the word there. Same tokenizer, same rows (listed
-- documents), same row ids as documents_fts.
CREATE VIRTUAL TABLE documents_meta_fts USING fts5 (
    title, description, tags,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO documents_meta_fts (rowid, title, description, tags)
SELECT d.id, d.title, d.description, coalesce((SELECT group_concat(j.value, ' ') FROM json_each(d.tags) AS j), '')
FROM documents AS d
WHERE d.withdrawn_at IS NULL;
