-- Distinct clients per hash and day (see the PostgreSQL migration 000016).
ALTER TABLE adoption_daily ADD COLUMN clients INTEGER NOT NULL DEFAULT 0;
ALTER TABLE adoption_daily ADD COLUMN client_sketch BLOB;
DELETE FROM adoption_scores;
