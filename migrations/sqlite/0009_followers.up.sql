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
