-- A document's boost changes only when its adoption level does, so the
-- score triggers fire only then: a flush rewrites most scores without
-- changing a level, and looking up every rescored document would be
-- three quarters of a flush (45 µs a hash at 1,000,000 documents). A
-- document published after its score was written (spoken by agents
-- before it was here) takes its level when it is inserted.
DROP TRIGGER adoption_scores_boost ON adoption_scores;

CREATE OR REPLACE FUNCTION adoption_scores_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.digest <> NEW.digest) THEN
        UPDATE documents SET boost = 0 WHERE digest = OLD.digest AND boost <> 0;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        UPDATE documents SET boost = adoption_level(NEW.score)
        WHERE digest = NEW.digest AND boost <> adoption_level(NEW.score);
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER adoption_scores_boost_insert AFTER INSERT ON adoption_scores
    FOR EACH ROW WHEN (adoption_level(NEW.score) <> 0) EXECUTE FUNCTION adoption_scores_changed();
CREATE TRIGGER adoption_scores_boost_update AFTER UPDATE ON adoption_scores
    FOR EACH ROW WHEN (adoption_level(NEW.score) <> adoption_level(OLD.score) OR NEW.digest <> OLD.digest)
    EXECUTE FUNCTION adoption_scores_changed();
CREATE TRIGGER adoption_scores_boost_delete AFTER DELETE ON adoption_scores
    FOR EACH ROW WHEN (adoption_level(OLD.score) <> 0) EXECUTE FUNCTION adoption_scores_changed();

CREATE FUNCTION documents_boost_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents d SET boost = adoption_level(s.score)
    FROM new_rows n JOIN adoption_scores s ON s.digest = n.digest
    WHERE d.digest = n.digest AND adoption_level(s.score) <> 0;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_boost_insert AFTER INSERT ON documents
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION documents_boost_inserted();

-- The levels the old triggers missed: documents published after their
-- score.
UPDATE documents d SET boost = adoption_level(s.score)
FROM adoption_scores s WHERE s.digest = d.digest AND d.boost <> adoption_level(s.score);
