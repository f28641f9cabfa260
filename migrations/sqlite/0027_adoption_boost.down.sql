DROP TRIGGER IF EXISTS adoption_scores_boost_delete;
DROP TRIGGER IF EXISTS adoption_scores_boost_update;
DROP TRIGGER IF EXISTS adoption_scores_boost_insert;
DROP INDEX IF EXISTS documents_boosted;
ALTER TABLE documents DROP COLUMN boost;
