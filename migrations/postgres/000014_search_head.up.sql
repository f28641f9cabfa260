-- search_head holds every lexeme of every document's head with the rank a
-- query of that lexeme alone gives the document (3 title and description
-- or tags, 2 title, 1 description or tags), so that a one-lexeme search
-- reads its head matches in page order (rank, newest, digest) from the
-- primary key instead of ranking and sorting every one of them
-- (internal/store/postgres/search.go). Documents are never deleted and
-- their heads never change, so rows are only added; withdrawn and demoted
-- documents are filtered by the join with documents.
CREATE TABLE search_head (
    lexeme text        COLLATE "C" NOT NULL,
    tier   smallint    NOT NULL,
    at     timestamptz NOT NULL,
    doc    bytea       NOT NULL,
    PRIMARY KEY (lexeme, tier, at, doc)
);

INSERT INTO search_head
SELECT u.lexeme, ('A' = ANY (u.weights))::int * 2 + ('B' = ANY (u.weights))::int, d.created_at, d.digest
FROM documents d, unnest(d.head) AS u;

CREATE FUNCTION documents_head_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_head
    SELECT u.lexeme, ('A' = ANY (u.weights))::int * 2 + ('B' = ANY (u.weights))::int, n.created_at, n.digest
    FROM new_rows n, unnest(n.head) AS u;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_head_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_head_inserted();

ANALYZE search_head;
