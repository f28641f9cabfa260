ALTER TABLE adoption_daily DROP COLUMN client_sketch;
ALTER TABLE adoption_daily DROP COLUMN clients;
DELETE FROM adoption_scores;
