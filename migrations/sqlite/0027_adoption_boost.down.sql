DROP TRIGGER IF EXISTS adoption_scores_boost_delete;
DROP TRIGGER IF EXISTS adoption_scores_boost_update;
DROP TRIGGER IF EXISTS adoption_scores_boost_insert;
DROP TRIGGER IF EXISTS documents_adopted_delete;
DROP TRIGGER IF EXISTS documents_adopted_insert;
DROP TABLE IF EXISTS documents_adopted_fts;
DROP INDEX IF EXISTS documents_boosted;
ALTER TABLE documents DROP COLUMN boost;
