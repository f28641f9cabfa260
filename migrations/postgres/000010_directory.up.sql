-- The agent directory: agents registered by URL, the last good state their
-- well-known lists gave, and which hashes each lists as supported or as
-- explicitly unsupported (a hash need not be stored here).
CREATE TABLE agents (
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    url               text        NOT NULL UNIQUE,
    name              text        NOT NULL DEFAULT '',
    description       text        NOT NULL DEFAULT '',
    kinds             text[]      NOT NULL DEFAULT '{}',
    well_known_url    text        NOT NULL DEFAULT '',
    -- text_key is name, description and URL lower-cased in Go, so both
    -- engines fold case alike for ?q=.
    text_key          text        NOT NULL DEFAULT '',
    registered_at     timestamptz NOT NULL,
    last_crawled_at   timestamptz,
    last_seen_at      timestamptz,
    last_error        text        NOT NULL DEFAULT '',
    failures          integer     NOT NULL DEFAULT 0,
    next_crawl_at     timestamptz NOT NULL,
    supported_count   integer     NOT NULL DEFAULT 0,
    unsupported_count integer     NOT NULL DEFAULT 0
);
CREATE INDEX agents_next_crawl_idx ON agents (next_crawl_at, id);

CREATE TABLE agent_protocols (
    agent_id  bigint  NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    digest    bytea   NOT NULL CHECK (length(digest) = 20),
    supported boolean NOT NULL,
    sources   text[]  NOT NULL DEFAULT '{}',
    PRIMARY KEY (agent_id, digest)
);
-- Who speaks (or refuses) a hash, in registration order.
CREATE INDEX agent_protocols_digest_idx ON agent_protocols (digest, supported, agent_id);

-- Adoption: per-hash daily counts of raw fetches and resolutions (no
-- addresses, no user agents), added to in batches.
CREATE TABLE adoption_daily (
    digest      bytea  NOT NULL CHECK (length(digest) = 20),
    day         date   NOT NULL,
    fetches     bigint NOT NULL DEFAULT 0,
    resolutions bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (digest, day)
);
-- The 30-day score of sort=popular, kept beside the days so the sort
-- walks an index instead of summing every day of every hash per page.
CREATE TABLE adoption_scores (
    digest bytea  PRIMARY KEY CHECK (length(digest) = 20),
    score  bigint NOT NULL,
    since  date   NOT NULL
);
CREATE INDEX adoption_scores_rank_idx ON adoption_scores (score DESC, digest);
