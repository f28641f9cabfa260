ALTER TABLE adoption_daily DROP COLUMN client_sketch, DROP COLUMN clients;
-- Scores by clients mean nothing to the older code; it rebuilds them.
DELETE FROM adoption_scores;
