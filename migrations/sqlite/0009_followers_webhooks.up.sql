-- Followers (`registry serve --follow URL`): per upstream, how far its log
-- was applied here and the last checkpoint verified, so a restart resumes
-- and a fork (a checkpoint inconsistent with this one) is caught.
CREATE TABLE follow_state (
    upstream     TEXT    PRIMARY KEY,
    applied      INTEGER NOT NULL DEFAULT 0 CHECK (applied >= 0),
    verifier_key TEXT    NOT NULL,
    checkpoint   BLOB    NOT NULL,
    forked       INTEGER NOT NULL DEFAULT 0,
    updated_at   INTEGER NOT NULL
) STRICT;

-- Webhooks (`registry webhook add`): each delivers the log's records in
-- order from its cursor; a failed delivery waits until next_at (backoff)
-- and is given up after a day. lease_until lets one process at a time
-- deliver a webhook's records. Times are Unix microseconds.
CREATE TABLE webhooks (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    url           TEXT    NOT NULL,
    secret        TEXT    NOT NULL,
    events        TEXT    NOT NULL, -- JSON array
    delivered     INTEGER NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    failing_since INTEGER,
    next_at       INTEGER NOT NULL DEFAULT 0,
    lease_until   INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL
) STRICT;
