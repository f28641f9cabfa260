-- Protocol documents, keyed by the SHA-1 of their exact bytes.

-- Full-text search works on word arrays the registry computes in Go (the
-- lower-cased runs of letters and digits, as store.Terms splits a query):
-- PostgreSQL's own to_tsvector parses at about 1 MB/s per core, which would
-- cap publishing at a few hundred documents per second. Matching is array
-- containment on a GIN index; there is no stemming and no stop-word list.

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
    -- words: every distinct word of title, description, tags and body
    -- (out of line, read through its GIN index). title_words and
    -- meta_words (description and tags) rank the matches.
    words           text[]      NOT NULL DEFAULT '{}',
    title_words     text[]      NOT NULL DEFAULT '{}',
    meta_words      text[]      NOT NULL DEFAULT '{}'
)
-- Push content and the word list out of the row as soon as the row is
-- larger than 128 bytes: the heap then holds metadata only, so listing,
-- ranking and resolving scan a dense table that stays in cache. Metadata
-- columns are MAIN (kept in the row unless it exceeds ~2 kB).
WITH (toast_tuple_target = 128);

ALTER TABLE documents
    ALTER COLUMN title SET STORAGE MAIN,
    ALTER COLUMN tags SET STORAGE MAIN,
    ALTER COLUMN authors SET STORAGE MAIN,
    ALTER COLUMN lints SET STORAGE MAIN,
    ALTER COLUMN title_words SET STORAGE MAIN,
    ALTER COLUMN meta_words SET STORAGE MAIN;

-- Listing indexes are not partial: a partial index's predicate
-- (withdrawn_at IS NULL) gets a default selectivity of 0.5% on a table
-- not yet analysed, and the planner then scans it and filters the
-- out-of-line word arrays of every row. Withdrawn rows are rare; they are
-- filtered in the heap.
CREATE INDEX documents_words_idx ON documents USING gin (words);
CREATE INDEX documents_tags_idx ON documents USING gin (tags);
CREATE INDEX documents_newest_idx ON documents (created_at, digest);
CREATE INDEX documents_name_idx ON documents ((lower(title) COLLATE "C"), digest);
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
