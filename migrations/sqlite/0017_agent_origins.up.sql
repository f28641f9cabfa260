-- An agent is an origin; registrant and agent_registrations back the
-- per-client caps (see the PostgreSQL migration 000017 for the why). Times
-- are Unix microseconds.
ALTER TABLE agents ADD COLUMN registrant TEXT NOT NULL DEFAULT '';
CREATE INDEX agents_registrant ON agents (registrant) WHERE registrant <> '';
CREATE TABLE agent_registrations (
    registrant    TEXT    NOT NULL,
    registered_at INTEGER NOT NULL
) STRICT;
CREATE INDEX agent_registrations_registrant ON agent_registrations (registrant, registered_at);
CREATE INDEX agent_registrations_at ON agent_registrations (registered_at);

-- Rows of one origin merge into the oldest (lowest id); every URL with a
-- path or a default port becomes its origin and is due for a crawl now.
-- The merged rows' lists go with them (ON DELETE CASCADE: migrations run
-- with foreign keys on).
CREATE TEMP TABLE agent_origins AS
WITH parts AS (
    SELECT id, url, lower(substr(url, 1, instr(url, '://') + 2)) AS scheme, substr(url, instr(url, '://') + 3) AS rest
    FROM agents WHERE instr(url, '://') > 0
), hosts AS (
    SELECT id, url, scheme,
           lower(CASE WHEN instr(rest, '/') > 0 THEN substr(rest, 1, instr(rest, '/') - 1) ELSE rest END) AS host
    FROM parts
)
SELECT id, url, scheme || CASE
    WHEN scheme = 'http://' AND host LIKE '%:80' THEN substr(host, 1, length(host) - 3)
    WHEN scheme = 'https://' AND host LIKE '%:443' THEN substr(host, 1, length(host) - 4)
    ELSE host END AS origin
FROM hosts;

DELETE FROM agents WHERE id IN (
    SELECT o.id FROM agent_origins o WHERE EXISTS (SELECT 1 FROM agent_origins k WHERE k.origin = o.origin AND k.id < o.id));

UPDATE agents
SET url = (SELECT origin FROM agent_origins o WHERE o.id = agents.id),
    text_key = substr(text_key, 1, length(text_key) - length(url)) || (SELECT origin FROM agent_origins o WHERE o.id = agents.id),
    next_crawl_at = min(next_crawl_at, CAST(unixepoch('now') AS INTEGER) * 1000000)
WHERE id IN (SELECT id FROM agent_origins o WHERE o.url <> o.origin);

DROP TABLE agent_origins;
