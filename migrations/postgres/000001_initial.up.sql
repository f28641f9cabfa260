-- Protocol documents, keyed by the SHA-1 of their exact bytes.

-- The text of a document for full-text indexing. convert_from is only
-- STABLE (it consults the conversion catalog), but decoding UTF-8 into a
-- UTF-8 database never changes, so declaring the wrapper IMMUTABLE lets the
-- search vector be a generated column without storing a text copy of every
-- document. Only the first 100,000 characters are indexed: a tsvector is
-- limited to 1 MB, and a 1 MiB document of distinct words could exceed it.
CREATE FUNCTION agora_indexed_text(content bytea) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN left(convert_from(content, 'UTF8'), 100000);

-- array_to_string is STABLE for arbitrary element types; for text[] it is
-- immutable in fact.
CREATE FUNCTION agora_tags_text(tags text[]) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN array_to_string(tags, ' ');

-- Search configuration: English stemming without a stop-word list. Every
-- word a user types must be able to match (a search for "other" or "the"
-- finds documents holding it), as the SQLite engine's FTS5 does.
CREATE TEXT SEARCH DICTIONARY agora_english_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION agora_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION agora_english
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH agora_english_stem;

CREATE TABLE documents (
    digest          bytea       PRIMARY KEY CHECK (length(digest) = 20),
    sha256          bytea       NOT NULL CHECK (length(sha256) = 32),
    content         bytea       NOT NULL,
    size            integer     NOT NULL CHECK (size = length(content)),
    title           text        NOT NULL DEFAULT '',
    description     text        NOT NULL DEFAULT '',
    multiround      boolean     NOT NULL DEFAULT false,
    tags            text[]      NOT NULL DEFAULT '{}',
    version         text        NOT NULL DEFAULT '',
    supersedes      bytea       CHECK (length(supersedes) = 20),
    authors         text[]      NOT NULL DEFAULT '{}',
    license         text        NOT NULL DEFAULT '',
    front_matter    boolean     NOT NULL DEFAULT false,
    lints           jsonb       NOT NULL DEFAULT '[]',
    origin          text        NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- seq is the order of insertion, for export.
    seq             bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
    withdrawn_at    timestamptz,
    withdraw_reason text        NOT NULL DEFAULT '',
    search          tsvector    GENERATED ALWAYS AS (
        setweight(to_tsvector('agora_english', title), 'A') ||
        setweight(to_tsvector('agora_english', description), 'B') ||
        setweight(to_tsvector('agora_english', agora_tags_text(tags)), 'B') ||
        setweight(to_tsvector('agora_english', agora_indexed_text(content)), 'D')
    ) STORED
);

-- Listing indexes cover listed (not withdrawn) rows only: every browse and
-- search excludes withdrawn rows.
CREATE INDEX documents_search_idx ON documents USING gin (search) WHERE withdrawn_at IS NULL;
CREATE INDEX documents_tags_idx ON documents USING gin (tags) WHERE withdrawn_at IS NULL;
CREATE INDEX documents_newest_idx ON documents (created_at, digest) WHERE withdrawn_at IS NULL;
CREATE INDEX documents_name_idx ON documents ((lower(title) COLLATE "C"), digest) WHERE withdrawn_at IS NULL;
-- Export walks every row, withdrawn too, in creation order.
CREATE INDEX documents_created_idx ON documents (created_at, seq);
CREATE INDEX documents_supersedes_idx ON documents (supersedes) WHERE supersedes IS NOT NULL;

CREATE TABLE api_tokens (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text        NOT NULL,
    scopes       text[]      NOT NULL,
    secret_hash  bytea       NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
