-- The task match's index (store.MatchSearch): one weighted tsvector per
-- document of the fields a task is asked of: title and representative
-- queries (A), tags (B), description (C), headings (D). Rows of withdrawn
-- documents stay; the match query joins documents and skips them.
CREATE TABLE document_match (
    digest bytea    PRIMARY KEY REFERENCES documents (digest),
    doc    tsvector NOT NULL
);

-- Documents stored before this migration are indexed by the columns kept
-- in the table; their representative queries and headings join the index
-- when they are stored again (import, follow). Reads every listed row once.
INSERT INTO document_match (digest, doc)
SELECT digest, setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', array_to_string(tags, ' ')), 'B') ||
    setweight(to_tsvector('english', description), 'C')
FROM documents
WHERE withdrawn_at IS NULL;

CREATE INDEX document_match_doc ON document_match USING gin (doc);
