-- Publishers: every API token publishes as one, every document records the
-- one that first published it. What predates publishers is 'default'; the
-- examples the registry seeded itself are 'examples', a name no token can
-- take, so no token holder's document counts as their newer version.
-- A constant default makes ADD COLUMN a catalogue change, not a rewrite.
ALTER TABLE documents ADD COLUMN publisher text NOT NULL DEFAULT 'default';
ALTER TABLE documents ALTER COLUMN publisher SET STORAGE MAIN;
UPDATE documents SET publisher = 'examples' WHERE origin = 'example';
ALTER TABLE api_tokens ADD COLUMN publisher text NOT NULL DEFAULT 'default';
-- A page's lineage reads the publisher's own successors and, apart, the
-- others' claims, each oldest first and capped: one index each, so a
-- document that thousands claim to supersede still costs a capped walk.
DROP INDEX IF EXISTS documents_supersedes_idx;
CREATE INDEX documents_supersedes_own_idx ON documents (supersedes, publisher, created_at, digest) WHERE supersedes IS NOT NULL;
CREATE INDEX documents_supersedes_idx ON documents (supersedes, created_at, digest) WHERE supersedes IS NOT NULL;
