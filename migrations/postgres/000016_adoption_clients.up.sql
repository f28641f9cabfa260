-- Distinct clients per hash and day: clients is the day's count, read by
-- the views and sort=popular; client_sketch the keyed hashes (or
-- HyperLogLog registers) later flushes merge into, never an address.
-- Sketches of days before yesterday are dropped by the daily refresh.
ALTER TABLE adoption_daily ADD COLUMN clients bigint NOT NULL DEFAULT 0,
    ADD COLUMN client_sketch bytea;
-- Scores were by requests; the first flush of a registry rebuilds them by
-- clients and speaking agents.
DELETE FROM adoption_scores;
