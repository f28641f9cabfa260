-- search_head orders each tier's rows by natural name (natural_key, the
-- name sort's key, migration 000028), then digest, instead of newest
-- first: a one-lexeme search reads equal ranks in that order from the
-- primary key, a page's worth of rows (internal/store/postgres/search.go).
-- The table is rebuilt from documents, its key computed once a document.
DROP TRIGGER documents_head_insert ON documents;
DROP FUNCTION documents_head_inserted();
DROP TABLE search_head;

CREATE TABLE search_head (
    lexeme text     COLLATE "C" NOT NULL,
    tier   smallint NOT NULL,
    name   text     COLLATE "C" NOT NULL,
    doc    bytea    NOT NULL
);

-- OFFSET 0 keeps the subquery apart, so natural_key runs once a document
-- rather than once a lexeme.
INSERT INTO search_head
SELECT u.lexeme, ('A' = ANY (u.weights))::int * 2 + ('B' = ANY (u.weights))::int, d.name, d.digest
FROM (SELECT digest, head, natural_key(title) AS name FROM documents OFFSET 0) AS d, unnest(d.head) AS u;

ALTER TABLE search_head ADD PRIMARY KEY (lexeme, tier, name, doc);

CREATE FUNCTION documents_head_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_head
    SELECT u.lexeme, ('A' = ANY (u.weights))::int * 2 + ('B' = ANY (u.weights))::int, n.name, n.digest
    FROM (SELECT digest, head, natural_key(title) AS name FROM new_rows OFFSET 0) AS n, unnest(n.head) AS u;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_head_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_head_inserted();

ANALYZE search_head;
