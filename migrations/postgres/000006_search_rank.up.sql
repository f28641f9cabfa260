-- Search ranking and the word list (internal/store/postgres/search.go).
--
-- demoted ranks a document after every live match of a search: bit 1 is
-- set while a listed newer version by the same publisher supersedes it
-- (kept by the trigger below and by Withdraw), bit 2 is reserved for a
-- publisher's "deprecated" status. Any bit set demotes. A constant
-- default makes ADD COLUMN a catalogue change, not a rewrite; the backfill
-- rewrites only superseded rows.
ALTER TABLE documents ADD COLUMN demoted smallint NOT NULL DEFAULT 0;
UPDATE documents d SET demoted = 1
WHERE EXISTS (SELECT FROM documents n
              WHERE n.supersedes = d.digest AND n.publisher = d.publisher AND n.withdrawn_at IS NULL);

-- search_words are the words of listed titles, descriptions and tags, as
-- written (lower-cased, not stemmed): the last query word's prefix
-- expands to some of them, and a search that finds nothing suggests the
-- nearest. Words are never removed (a suggestion of a withdrawn
-- document's word finds nothing, which is harmless).
CREATE TABLE search_words (word text COLLATE "C" PRIMARY KEY);
INSERT INTO search_words
SELECT DISTINCT w FROM documents,
    unnest(tsvector_to_array(to_tsvector('simple', title || ' ' || description || ' ' || array_to_string(tags, ' ')))) AS w
WHERE withdrawn_at IS NULL AND length(w) BETWEEN 2 AND 40
ON CONFLICT DO NOTHING;

-- New rows: their words join the list (in word order, so that concurrent
-- inserts lock words in one order) and the versions they supersede are
-- demoted.
CREATE FUNCTION documents_search_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_words
    SELECT DISTINCT w FROM new_rows,
        unnest(tsvector_to_array(to_tsvector('simple', title || ' ' || description || ' ' || array_to_string(tags, ' ')))) AS w
    WHERE withdrawn_at IS NULL AND length(w) BETWEEN 2 AND 40
    ORDER BY w
    ON CONFLICT DO NOTHING;
    UPDATE documents d SET demoted = d.demoted | 1
    FROM new_rows n
    WHERE n.supersedes = d.digest AND n.publisher = d.publisher AND n.withdrawn_at IS NULL AND d.demoted & 1 = 0;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_search_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_search_inserted();

-- Tell the planner how rare each word is: with the default target a word
-- outside the most common ~1,000 is guessed at 1 document in 200, and a
-- word in 1 of 1,000 was then searched by walking the newest index and
-- reading most rows' out-of-line lexemes (docs/benchmarks/postgres-search.md).
ALTER TABLE documents ALTER COLUMN search SET STATISTICS 1000;
ALTER TABLE documents ALTER COLUMN head SET STATISTICS 1000;
ANALYZE documents;
