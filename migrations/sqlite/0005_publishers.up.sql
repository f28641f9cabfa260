-- Publishers: every API token publishes as one, every document records the
-- one that first published it. What predates publishers is 'default'; the
-- examples the registry seeded itself are 'examples', a name no token can
-- take, so no token holder's document counts as their newer version.
ALTER TABLE documents ADD COLUMN publisher TEXT NOT NULL DEFAULT 'default';
UPDATE documents SET publisher = 'examples' WHERE origin = 'example';
ALTER TABLE api_tokens ADD COLUMN publisher TEXT NOT NULL DEFAULT 'default';
