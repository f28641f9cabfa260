-- Publishers: every API token publishes as one, every document records the
-- one that first published it. What predates publishers is 'default'; the
-- examples the registry seeded itself are 'examples', a name no token can
-- take, so no token holder's document counts as their newer version.
-- A constant default makes ADD COLUMN a catalogue change, not a rewrite.
ALTER TABLE documents ADD COLUMN publisher text NOT NULL DEFAULT 'default';
ALTER TABLE documents ALTER COLUMN publisher SET STORAGE MAIN;
UPDATE documents SET publisher = 'examples' WHERE origin = 'example';
ALTER TABLE api_tokens ADD COLUMN publisher text NOT NULL DEFAULT 'default';
