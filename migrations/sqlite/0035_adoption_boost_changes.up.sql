-- A document's boost changes only when its adoption level does, so the
-- score triggers fire only then: a flush rewrites most scores without
-- changing a level. A document published after its score was written
-- (spoken by agents before it was here) takes its level when it is
-- inserted.
DROP TRIGGER adoption_scores_boost_insert;
DROP TRIGGER adoption_scores_boost_update;
DROP TRIGGER adoption_scores_boost_delete;
CREATE TRIGGER adoption_scores_boost_insert AFTER INSERT ON adoption_scores WHEN ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024)) <> 0 BEGIN
    UPDATE documents SET boost = ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024));
END;
CREATE TRIGGER adoption_scores_boost_update AFTER UPDATE OF score ON adoption_scores WHEN ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024)) <> ((OLD.score >= 16) + (OLD.score >= 32) + (OLD.score >= 64) + (OLD.score >= 128) + (OLD.score >= 256) + (OLD.score >= 512) + (OLD.score >= 1024)) BEGIN
    UPDATE documents SET boost = ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024));
END;
CREATE TRIGGER adoption_scores_boost_delete AFTER DELETE ON adoption_scores WHEN ((OLD.score >= 16) + (OLD.score >= 32) + (OLD.score >= 64) + (OLD.score >= 128) + (OLD.score >= 256) + (OLD.score >= 512) + (OLD.score >= 1024)) <> 0 BEGIN
    UPDATE documents SET boost = 0 WHERE hex = OLD.hex AND boost <> 0;
END;
CREATE TRIGGER documents_boost_insert AFTER INSERT ON documents
WHEN EXISTS (SELECT 1 FROM adoption_scores s WHERE s.hex = NEW.hex AND s.score >= 16) BEGIN
    UPDATE documents SET boost = (SELECT ((s.score >= 16) + (s.score >= 32) + (s.score >= 64) + (s.score >= 128) + (s.score >= 256) + (s.score >= 512) + (s.score >= 1024)) FROM adoption_scores s WHERE s.hex = NEW.hex) WHERE id = NEW.id;
END;

-- The levels the old triggers missed: documents published after their
-- score (through documents' triggers, which keep documents_adopted_fts).
UPDATE documents SET boost = (SELECT ((s.score >= 16) + (s.score >= 32) + (s.score >= 64) + (s.score >= 128) + (s.score >= 256) + (s.score >= 512) + (s.score >= 1024)) FROM adoption_scores s WHERE s.hex = documents.hex)
WHERE hex IN (SELECT hex FROM adoption_scores) AND boost <> (SELECT ((s.score >= 16) + (s.score >= 32) + (s.score >= 64) + (s.score >= 128) + (s.score >= 256) + (s.score >= 512) + (s.score >= 1024)) FROM adoption_scores s WHERE s.hex = documents.hex);
