-- The agent directory (see the PostgreSQL migration 000010 for the why).
-- Times are Unix microseconds; kinds and sources are JSON arrays.
CREATE TABLE agents (
    id                INTEGER PRIMARY KEY,
    url               TEXT    NOT NULL UNIQUE,
    name              TEXT    NOT NULL DEFAULT '',
    description       TEXT    NOT NULL DEFAULT '',
    kinds             TEXT    NOT NULL DEFAULT '[]',
    well_known_url    TEXT    NOT NULL DEFAULT '',
    text_key          TEXT    NOT NULL DEFAULT '',
    registered_at     INTEGER NOT NULL,
    last_crawled_at   INTEGER,
    last_seen_at      INTEGER,
    last_error        TEXT    NOT NULL DEFAULT '',
    failures          INTEGER NOT NULL DEFAULT 0,
    next_crawl_at     INTEGER NOT NULL,
    supported_count   INTEGER NOT NULL DEFAULT 0,
    unsupported_count INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX agents_next_crawl ON agents (next_crawl_at, id);

CREATE TABLE agent_protocols (
    agent_id  INTEGER NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    hex       TEXT    NOT NULL CHECK (length(hex) = 40),
    supported INTEGER NOT NULL,
    sources   TEXT    NOT NULL DEFAULT '[]',
    PRIMARY KEY (agent_id, hex)
) STRICT;
CREATE INDEX agent_protocols_hex ON agent_protocols (hex, supported, agent_id);

-- day is the UTC day number since 1970-01-01.
CREATE TABLE adoption_daily (
    hex         TEXT    NOT NULL CHECK (length(hex) = 40),
    day         INTEGER NOT NULL,
    fetches     INTEGER NOT NULL DEFAULT 0,
    resolutions INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (hex, day)
) STRICT, WITHOUT ROWID;
CREATE TABLE adoption_scores (
    hex   TEXT    PRIMARY KEY CHECK (length(hex) = 40),
    score INTEGER NOT NULL,
    since INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX adoption_scores_rank ON adoption_scores (score DESC, hex);
