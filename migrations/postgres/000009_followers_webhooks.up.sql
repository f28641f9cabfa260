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

-- Webhooks (`registry webhook add`): each delivers the log's records in
-- order from its cursor; a failed delivery waits until next_at (backoff)
-- and is given up after a day. lease_until lets one process at a time
-- deliver a webhook's records.
CREATE TABLE webhooks (
    id            bigserial   PRIMARY KEY,
    url           text        NOT NULL,
    secret        text        NOT NULL,
    events        text[]      NOT NULL,
    delivered     bigint      NOT NULL,
    attempts      integer     NOT NULL DEFAULT 0,
    failing_since timestamptz,
    next_at       timestamptz NOT NULL DEFAULT now(),
    lease_until   timestamptz NOT NULL DEFAULT '-infinity',
    created_at    timestamptz NOT NULL DEFAULT now()
);
