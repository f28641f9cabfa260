-- Followers (`registry serve --follow URL`): per upstream, how far its log
-- was applied here and the last checkpoint verified, so a restart resumes
-- and a fork (a checkpoint inconsistent with this one) is caught.
CREATE TABLE follow_state (
    upstream     text        PRIMARY KEY,
    applied      bigint      NOT NULL DEFAULT 0 CHECK (applied >= 0),
    verifier_key text        NOT NULL,
    checkpoint   bytea       NOT NULL,
    forked       boolean     NOT NULL DEFAULT false,
    updated_at   timestamptz NOT NULL DEFAULT now()
);
