-- boost is a document's adoption level (store.AdoptionLevel): 0 without
-- adoption, one more each time its adoption score (distinct clients per
-- day over the window plus speaking agents, adoption_scores) doubles, at
-- most 7. Search multiplies a head match's rank by 4 + boost
-- (internal/store/postgres/search.go). A constant default makes ADD
-- COLUMN a catalogue change; the backfill rewrites only scored rows.
ALTER TABLE documents ADD COLUMN boost smallint NOT NULL DEFAULT 0;

CREATE FUNCTION adoption_level(score bigint) RETURNS smallint LANGUAGE sql IMMUTABLE AS $$
    SELECT ((score >= 1)::int + (score >= 3)::int + (score >= 7)::int + (score >= 15)::int
        + (score >= 31)::int + (score >= 63)::int + (score >= 127)::int)::smallint
$$;

UPDATE documents d SET boost = adoption_level(s.score)
FROM adoption_scores s WHERE s.digest = d.digest AND adoption_level(s.score) <> 0;

-- Every write of a score keeps boost; a row is rewritten only when its
-- level changes, which a doubling takes.
CREATE FUNCTION adoption_scores_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE documents SET boost = 0 WHERE digest = OLD.digest AND boost <> 0;
    ELSE
        UPDATE documents SET boost = adoption_level(NEW.score)
        WHERE digest = NEW.digest AND boost <> adoption_level(NEW.score);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER adoption_scores_boost AFTER INSERT OR UPDATE OR DELETE ON adoption_scores
    FOR EACH ROW EXECUTE FUNCTION adoption_scores_changed();

-- The boosted head matches of a query, read and ranked apart from the
-- others (which search_head keeps in page order): a small index while
-- few documents are adopted.
CREATE INDEX documents_boosted_head_idx ON documents USING gin (head) WHERE boost > 0;
