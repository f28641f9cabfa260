-- Counts for Stats and Tags, kept by triggers in the writing transaction,
-- so neither call reads the documents table (Stats counted every row twice
-- and unnested every row's tags on each call).
--
-- Each write statement appends one row of changes to document_counts, and
-- the rows are folded into one from time to time (fold_document_counts):
-- readers sum a few rows. Appending to a table without indexes is the
-- cheapest exact counting measured (server CPU per single-row insert:
-- +55 µs; updating per-process counter rows with INSERT … ON CONFLICT:
-- +175 µs for the document count alone, +265 µs with the tag counts; one
-- counter row shared by all writers also makes concurrent commits queue on
-- its lock: 16 clients, ~415 commits/s against ~2,450 without it).
CREATE TABLE document_counts (
    listed     bigint   NOT NULL,  -- listed documents gained (negative: lost)
    withdrawn  bigint   NOT NULL,  -- withdrawn documents gained
    tags       text[]   NOT NULL,  -- distinct tags whose listed count changed
    tag_deltas bigint[] NOT NULL,  -- by how much, element by element
    CHECK (cardinality(tags) = cardinality(tag_deltas))
);

-- A document as counted: before a change it counts -1, after it +1.
CREATE TYPE document_count_change AS (listed boolean, tags text[], sign integer);

CREATE FUNCTION count_document_changes(changes document_count_change[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    listed_delta    bigint;
    withdrawn_delta bigint;
    tag_names       text[];
    tag_deltas      bigint[];
BEGIN
    SELECT coalesce(sum(sign) FILTER (WHERE listed), 0), coalesce(sum(sign) FILTER (WHERE NOT listed), 0)
    INTO listed_delta, withdrawn_delta
    FROM unnest(changes);
    SELECT coalesce(array_agg(tag ORDER BY tag), '{}'), coalesce(array_agg(n ORDER BY tag), '{}')
    INTO tag_names, tag_deltas
    FROM (SELECT tag, sum(sign) AS n
          FROM unnest(changes) AS c, LATERAL (SELECT DISTINCT unnest(c.tags)) AS t (tag)
          WHERE c.listed
          GROUP BY tag
          HAVING sum(sign) <> 0) AS per_tag;
    IF listed_delta <> 0 OR withdrawn_delta <> 0 OR cardinality(tag_names) > 0 THEN
        INSERT INTO document_counts VALUES (listed_delta, withdrawn_delta, tag_names, tag_deltas);
    END IF;
END $$;

-- fold_document_counts replaces the rows of document_counts by their sum.
-- One caller folds at a time; a concurrent call returns at once.
CREATE FUNCTION fold_document_counts() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('agora-registry fold_document_counts')) THEN
        RETURN;
    END IF;
    WITH folded AS (
        DELETE FROM document_counts RETURNING *
    ), per_tag AS (
        SELECT tag, sum(n) AS n
        FROM folded, unnest(folded.tags, folded.tag_deltas) AS t (tag, n)
        GROUP BY tag
        HAVING sum(n) <> 0
    )
    INSERT INTO document_counts
    SELECT (SELECT coalesce(sum(listed), 0) FROM folded),
           (SELECT coalesce(sum(withdrawn), 0) FROM folded),
           coalesce((SELECT array_agg(tag ORDER BY tag) FROM per_tag), '{}'),
           coalesce((SELECT array_agg(n ORDER BY tag) FROM per_tag), '{}');
END $$;

-- Inserts, the frequent case, are counted in one statement; the rarer
-- updates and deletes through count_document_changes.
CREATE FUNCTION documents_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO document_counts
    SELECT c.listed, c.withdrawn, coalesce(t.tags, '{}'), coalesce(t.deltas, '{}')
    FROM (SELECT count(*) FILTER (WHERE withdrawn_at IS NULL) AS listed,
                 count(*) FILTER (WHERE withdrawn_at IS NOT NULL) AS withdrawn
          FROM new_rows) AS c,
         (SELECT array_agg(tag ORDER BY tag) AS tags, array_agg(n ORDER BY tag) AS deltas
          FROM (SELECT tag, count(*) AS n
                FROM new_rows, LATERAL (SELECT DISTINCT unnest(tags)) AS t (tag)
                WHERE withdrawn_at IS NULL
                GROUP BY tag) AS per_tag) AS t
    WHERE c.listed + c.withdrawn > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION documents_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM count_document_changes(ARRAY(
        SELECT (withdrawn_at IS NULL, tags, 1)::document_count_change FROM new_rows
        UNION ALL
        SELECT (withdrawn_at IS NULL, tags, -1)::document_count_change FROM old_rows));
    RETURN NULL;
END $$;

CREATE FUNCTION documents_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM count_document_changes(ARRAY(
        SELECT (withdrawn_at IS NULL, tags, -1)::document_count_change FROM old_rows));
    RETURN NULL;
END $$;

CREATE FUNCTION documents_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM document_counts;
    RETURN NULL;
END $$;

-- The triggers come before the backfill: creating them locks documents
-- against writes until this migration commits, so the backfill counts
-- every committed row and no write is counted twice or missed.
CREATE TRIGGER documents_counted_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_count_inserted();
CREATE TRIGGER documents_counted_update AFTER UPDATE ON documents
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_count_updated();
CREATE TRIGGER documents_counted_delete AFTER DELETE ON documents
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_count_deleted();
CREATE TRIGGER documents_counted_truncate AFTER TRUNCATE ON documents
    FOR EACH STATEMENT EXECUTE FUNCTION documents_count_truncated();

-- The backfill is documents_count_inserted's statement over every row.
INSERT INTO document_counts
SELECT c.listed, c.withdrawn, coalesce(t.tags, '{}'), coalesce(t.deltas, '{}')
FROM (SELECT count(*) FILTER (WHERE withdrawn_at IS NULL) AS listed,
             count(*) FILTER (WHERE withdrawn_at IS NOT NULL) AS withdrawn
      FROM documents) AS c,
     (SELECT array_agg(tag ORDER BY tag) AS tags, array_agg(n ORDER BY tag) AS deltas
      FROM (SELECT tag, count(*) AS n
            FROM documents, LATERAL (SELECT DISTINCT unnest(tags)) AS t (tag)
            WHERE withdrawn_at IS NULL
            GROUP BY tag) AS per_tag) AS t;

-- Export (Each) now walks documents_newest_idx, in (created_at, digest)
-- order as on SQLite, so the second index on created_at and the insertion
-- sequence it ordered ties by are gone: one index less to maintain per
-- insert.
DROP INDEX documents_created_idx;
ALTER TABLE documents DROP COLUMN seq;

-- New rows compress content and search with lz4 rather than pglz: a cold
-- fetch costs a fifth less server CPU (88 µs against 108 µs per fetch at
-- 100,000 documents), and inserts compress faster. Rows already stored keep pglz; both stay readable. A
-- server built without lz4 keeps pglz for everything.
DO $$
BEGIN
    ALTER TABLE documents ALTER COLUMN content SET COMPRESSION lz4, ALTER COLUMN search SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL server has no lz4: documents stay compressed with pglz';
END $$;

-- search holds head's lexemes and, without positions, the lexemes of the
-- body's distinct words (see internal/store/postgres/textsearch.go): rows
-- written before this migration keep their body positions, which nothing
-- reads.
COMMENT ON COLUMN documents.search IS 'the lexemes of head (with positions) and of the body''s distinct words (without)';
