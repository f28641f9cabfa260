DROP TRIGGER documents_boost_insert;
DROP TRIGGER adoption_scores_boost_insert;
DROP TRIGGER adoption_scores_boost_update;
DROP TRIGGER adoption_scores_boost_delete;
CREATE TRIGGER adoption_scores_boost_insert AFTER INSERT ON adoption_scores BEGIN
    UPDATE documents SET boost = ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024));
END;
CREATE TRIGGER adoption_scores_boost_update AFTER UPDATE OF score ON adoption_scores BEGIN
    UPDATE documents SET boost = ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 16) + (NEW.score >= 32) + (NEW.score >= 64) + (NEW.score >= 128) + (NEW.score >= 256) + (NEW.score >= 512) + (NEW.score >= 1024));
END;
CREATE TRIGGER adoption_scores_boost_delete AFTER DELETE ON adoption_scores BEGIN
    UPDATE documents SET boost = 0 WHERE hex = OLD.hex AND boost <> 0;
END;
