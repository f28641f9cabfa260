-- Level 1 of adoption (store.AdoptionLevel) needs a score of 16, then one
-- more level each time it doubles: search reads every adopted match apart
-- (documents_adopted_fts), so the adopted must stay few. The score
-- triggers of 0027 are replaced with the new levels.
DROP TRIGGER adoption_scores_boost_insert;
DROP TRIGGER adoption_scores_boost_update;
CREATE TRIGGER adoption_scores_boost_insert AFTER INSERT ON adoption_scores BEGIN
    UPDATE documents SET boost = ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024));
END;
CREATE TRIGGER adoption_scores_boost_update AFTER UPDATE OF score ON adoption_scores BEGIN
    UPDATE documents SET boost = ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024));
END;

-- Existing levels, through documents' triggers (an unadopted row leaves
-- documents_adopted_fts).
UPDATE documents SET boost = (SELECT ((s.score >= 16) + (s.score >= 32) + (s.score >= 64) + (s.score >= 128) + (s.score >= 256) + (s.score >= 512) + (s.score >= 1024)) FROM adoption_scores s WHERE s.hex = documents.hex)
WHERE hex IN (SELECT hex FROM adoption_scores) AND boost <> (SELECT ((s.score >= 16) + (s.score >= 32) + (s.score >= 64) + (s.score >= 128) + (s.score >= 256) + (s.score >= 512) + (s.score >= 1024)) FROM adoption_scores s WHERE s.hex = documents.hex);
