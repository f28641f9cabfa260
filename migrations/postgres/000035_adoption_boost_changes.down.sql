DROP TRIGGER documents_boost_insert ON documents;
DROP FUNCTION documents_boost_inserted();
DROP TRIGGER adoption_scores_boost_insert ON adoption_scores;
DROP TRIGGER adoption_scores_boost_update ON adoption_scores;
DROP TRIGGER adoption_scores_boost_delete ON adoption_scores;
CREATE OR REPLACE FUNCTION adoption_scores_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
