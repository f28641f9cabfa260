-- Browser sessions of users signed in with OpenID Connect: the cookie holds
-- a random id, the table only its SHA-256. Expired rows are deleted when a
-- new session is created (the expires_at index finds them). Times are Unix
-- microseconds; publishers is a JSON array.
CREATE TABLE sessions (
    id_hash    BLOB    PRIMARY KEY CHECK (length(id_hash) = 32),
    subject    TEXT    NOT NULL,
    email      TEXT    NOT NULL,
    admin      INTEGER NOT NULL,
    publishers TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_expires_at ON sessions (expires_at);
-- Who made a token in the browser ("" for tokens made on the command line).
ALTER TABLE api_tokens ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
