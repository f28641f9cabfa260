-- Merged agents do not come back: the rows a path variant held were
-- removed by the up migration (each is re-added by registering it again).
DROP TABLE IF EXISTS agent_registrations;
DROP INDEX IF EXISTS agents_registrant_idx;
ALTER TABLE agents DROP COLUMN IF EXISTS registrant;
