-- An agent is an origin (scheme, host, port): the directory now registers
-- and crawls https://host:port, never a path of it, and caps what one
-- client may register. registrant is the client (its address, or its IPv6
-- /64) whose registration added the agent ('' for agents older than this
-- migration); agent_registrations keeps when each registrant added one,
-- for the per-day cap, and is pruned of rows older than a day as new ones
-- come in.
ALTER TABLE agents ADD COLUMN registrant text NOT NULL DEFAULT '';
CREATE INDEX agents_registrant_idx ON agents (registrant) WHERE registrant <> '';
CREATE TABLE agent_registrations (
    registrant    text        NOT NULL,
    registered_at timestamptz NOT NULL
);
CREATE INDEX agent_registrations_registrant_idx ON agent_registrations (registrant, registered_at);
CREATE INDEX agent_registrations_at_idx ON agent_registrations (registered_at);

-- Rows registered at several paths of one origin become one agent: the
-- oldest registration (lowest id) stays, so its links keep working; the
-- others and their lists go. Every agent whose URL had a path (or spelled
-- a default port) takes its origin as its URL and is due for a crawl at
-- once, since its well-known list now lives at the origin's root. The old
-- normaliser had already lower-cased scheme and host and dropped queries.
CREATE TEMPORARY TABLE agent_origins AS
SELECT id, url, regexp_replace(regexp_replace(
           coalesce(lower(substring(url FROM '^[A-Za-z][A-Za-z0-9+.-]*://[^/]*')), url),
           '^(http://.*):80$', '\1'), '^(https://.*):443$', '\1') AS origin
FROM agents;

DELETE FROM agents a USING agent_origins o, agent_origins keep
WHERE a.id = o.id AND keep.origin = o.origin AND keep.id < o.id;

-- text_key ends with the lower-cased URL (store.AgentTextKey; old URLs are
-- ASCII): swap that tail for the origin until the next crawl rewrites it.
UPDATE agents a
SET url = o.origin,
    text_key = left(a.text_key, length(a.text_key) - length(o.url)) || o.origin,
    next_crawl_at = least(a.next_crawl_at, now())
FROM agent_origins o
WHERE a.id = o.id AND a.url <> o.origin;

DROP TABLE agent_origins;
