-- Publishers become accounts (a display name, an optional verified
-- domain), documents get a lifecycle (active or deprecated, with a message
-- and a replacement; withdrawal stays withdrawn_at) and every status change
-- is kept in document_history with its time and actor.
CREATE TABLE publishers (
    name             TEXT    PRIMARY KEY,
    display_name     TEXT    NOT NULL DEFAULT '',
    verified_domain  TEXT    NOT NULL DEFAULT '',
    verified_at      INTEGER,          -- Unix microseconds
    challenge_domain TEXT    NOT NULL DEFAULT '',
    challenge        TEXT    NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL  -- Unix microseconds
) STRICT;
-- Every name a token or document already carries becomes an account, so
-- no existing token or document points nowhere ('default' among them).
INSERT INTO publishers (name, display_name, created_at) VALUES
    ('default', 'Default publisher', CAST(unixepoch('subsec') * 1000000 AS INTEGER)),
    ('examples', 'Registry examples', CAST(unixepoch('subsec') * 1000000 AS INTEGER)),
    ('mirror', 'Mirrored from upstream registries', CAST(unixepoch('subsec') * 1000000 AS INTEGER)),
    ('anonymous', 'Anonymous (tokenless) publishes', CAST(unixepoch('subsec') * 1000000 AS INTEGER));
INSERT OR IGNORE INTO publishers (name, created_at)
    SELECT publisher, CAST(unixepoch('subsec') * 1000000 AS INTEGER) FROM (SELECT publisher FROM documents UNION SELECT publisher FROM api_tokens);

ALTER TABLE documents ADD COLUMN status TEXT NOT NULL DEFAULT 'active';
ALTER TABLE documents ADD COLUMN status_message TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN replacement TEXT; -- hex digest or NULL
ALTER TABLE documents ADD COLUMN status_at INTEGER; -- Unix microseconds

-- Resolve reports the lifecycle too; the index keeps answering it alone
-- (0003). Active rows add 'active', NULL and '' to it.
DROP INDEX documents_resolve;
CREATE INDEX documents_resolve ON documents (hex, withdrawn_at, title, status, replacement, status_message);

-- A publisher's page and ?publisher= walk the publisher's own documents,
-- newest first.
CREATE INDEX documents_publisher ON documents (publisher, created_at DESC, hex DESC) WHERE withdrawn_at IS NULL;

CREATE TABLE document_history (
    id          INTEGER PRIMARY KEY,
    hex         TEXT    NOT NULL,
    at          INTEGER NOT NULL, -- Unix microseconds
    actor       TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    message     TEXT    NOT NULL DEFAULT '',
    replacement TEXT
) STRICT;
CREATE INDEX document_history_hex ON document_history (hex, id);
