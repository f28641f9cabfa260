DROP INDEX IF EXISTS documents_boosted_head_idx;
DROP TRIGGER IF EXISTS adoption_scores_boost ON adoption_scores;
DROP FUNCTION IF EXISTS adoption_scores_changed();
DROP FUNCTION IF EXISTS adoption_level(bigint);
ALTER TABLE documents DROP COLUMN IF EXISTS boost;
