-- Browser sessions of users signed in with OpenID Connect: the cookie holds
-- a random id, the table only its SHA-256. Expired rows are deleted when a
-- new session is created (the expires_at index finds them).
CREATE TABLE sessions (
    id_hash    bytea       PRIMARY KEY CHECK (length(id_hash) = 32),
    subject    text        NOT NULL,
    email      text        NOT NULL,
    admin      boolean     NOT NULL,
    publishers text[]      NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);
-- Who made a token in the browser ("" for tokens made on the command line).
ALTER TABLE api_tokens ADD COLUMN created_by text NOT NULL DEFAULT '';
