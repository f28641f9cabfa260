-- Merged agents do not come back (see the PostgreSQL 000017 down file).
DROP TABLE IF EXISTS agent_registrations;
DROP INDEX IF EXISTS agents_registrant;
ALTER TABLE agents DROP COLUMN registrant;
