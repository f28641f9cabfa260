-- search_head in newest order within a tier again (migration 000014).
DROP TRIGGER documents_head_insert ON documents;
DROP FUNCTION documents_head_inserted();
DROP TABLE search_head;

CREATE TABLE search_head (
    lexeme text        COLLATE "C" NOT NULL,
    tier   smallint    NOT NULL,
    at     timestamptz NOT NULL,
    doc    bytea       NOT NULL
);

INSERT INTO search_head
SELECT u.lexeme, ('A' = ANY (u.weights))::int * 2 + ('B' = ANY (u.weights))::int, d.created_at, d.digest
FROM documents d, unnest(d.head) AS u;

ALTER TABLE search_head ADD PRIMARY KEY (lexeme, tier, at, doc);

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
