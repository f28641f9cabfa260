DROP TRIGGER adoption_scores_boost_insert;
DROP TRIGGER adoption_scores_boost_update;
CREATE TRIGGER adoption_scores_boost_insert AFTER INSERT ON adoption_scores BEGIN
    UPDATE documents SET boost = ((NEW.score >= 1) + (NEW.score >= 3) + (NEW.score >= 7) + (NEW.score >= 15) + (NEW.score >= 31) + (NEW.score >= 63) + (NEW.score >= 127)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 1) + (NEW.score >= 3) + (NEW.score >= 7) + (NEW.score >= 15) + (NEW.score >= 31) + (NEW.score >= 63) + (NEW.score >= 127));
END;
CREATE TRIGGER adoption_scores_boost_update AFTER UPDATE OF score ON adoption_scores BEGIN
    UPDATE documents SET boost = ((NEW.score >= 1) + (NEW.score >= 3) + (NEW.score >= 7) + (NEW.score >= 15) + (NEW.score >= 31) + (NEW.score >= 63) + (NEW.score >= 127)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 1) + (NEW.score >= 3) + (NEW.score >= 7) + (NEW.score >= 15) + (NEW.score >= 31) + (NEW.score >= 63) + (NEW.score >= 127));
END;
UPDATE documents SET boost = (SELECT ((s.score >= 1) + (s.score >= 3) + (s.score >= 7) + (s.score >= 15) + (s.score >= 31) + (s.score >= 63) + (s.score >= 127)) FROM adoption_scores s WHERE s.hex = documents.hex)
WHERE hex IN (SELECT hex FROM adoption_scores) AND boost <> (SELECT ((s.score >= 1) + (s.score >= 3) + (s.score >= 7) + (s.score >= 15) + (s.score >= 31) + (s.score >= 63) + (s.score >= 127)) FROM adoption_scores s WHERE s.hex = documents.hex);
