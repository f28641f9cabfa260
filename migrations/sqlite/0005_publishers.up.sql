-- Publishers: every API token publishes as one, every document records the
-- one that first published it. What predates publishers is 'default'; the
-- examples the registry seeded itself are 'examples', a name no token can
-- take, so no token holder's document counts as their newer version.
ALTER TABLE documents ADD COLUMN publisher TEXT NOT NULL DEFAULT 'default';
UPDATE documents SET publisher = 'examples' WHERE origin = 'example';
ALTER TABLE api_tokens ADD COLUMN publisher TEXT NOT NULL DEFAULT 'default';
-- A page's lineage reads the publisher's own successors and, apart, the
-- others' claims, each oldest first and capped: one index each, so a
-- document that thousands claim to supersede still costs a capped walk.
DROP INDEX documents_supersedes;
CREATE INDEX documents_supersedes_own ON documents (supersedes, publisher, created_at, hex) WHERE supersedes IS NOT NULL AND withdrawn_at IS NULL;
CREATE INDEX documents_supersedes ON documents (supersedes, created_at, hex) WHERE supersedes IS NOT NULL AND withdrawn_at IS NULL;
