-- Protocol documents, keyed by the SHA-1 of their exact bytes.

-- Full-text search is PostgreSQL's own, with registry_english: the english
-- configuration's Snowball stemmer without its stop-word list, so it
-- answers like the SQLite engine's porter tokenizer (which stems and keeps
-- every word: "other" or "the" are searchable on both).
-- search holds the weighted lexemes of the title (A), description and tags
-- (B) and body (D); head holds only the A and B part. The registry computes
-- both in its INSERT (not as generated columns: the body is clipped and
-- content is bytea). Relevance is a tier read from head, which is small
-- and kept in the row, so ranking never decompresses a body's lexemes.

CREATE TEXT SEARCH DICTIONARY registry_english_stem (TEMPLATE = snowball, LANGUAGE = english);
CREATE TEXT SEARCH CONFIGURATION registry_english (COPY = english);
ALTER TEXT SEARCH CONFIGURATION registry_english ALTER MAPPING REPLACE english_stem WITH registry_english_stem;

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
    -- search: every lexeme, weighted (out of line, read through its GIN
    -- index). head: the title's (A) and description's and tags' (B).
    search          tsvector    NOT NULL DEFAULT '',
    head            tsvector    NOT NULL DEFAULT ''
)
-- Push content and the search lexemes out of the row as soon as the row is
-- larger than 128 bytes: the heap then holds metadata only, so listing,
-- ranking and resolving scan a dense table that stays in cache. Metadata
-- columns are MAIN (kept in the row unless it exceeds ~2 kB).
WITH (toast_tuple_target = 128);

ALTER TABLE documents
    ALTER COLUMN title SET STORAGE MAIN,
    ALTER COLUMN tags SET STORAGE MAIN,
    ALTER COLUMN authors SET STORAGE MAIN,
    ALTER COLUMN lints SET STORAGE MAIN,
    ALTER COLUMN head SET STORAGE MAIN;

-- Listing indexes are not partial: a partial index's predicate
-- (withdrawn_at IS NULL) gets a default selectivity of 0.5% on a table
-- not yet analysed, and the planner then scans it and filters the
-- out-of-line lexemes of every row. Withdrawn rows are rare; they are
-- filtered in the heap.
-- The GIN indexes take new rows into their pending list (fastupdate) and
-- merge it in bulk, which is far cheaper than one tree update per lexeme.
-- Every search through an index scans its whole pending list (a full 4 MB
-- list cost ~20 ms per query), so the lists are kept short: 1 MB for
-- search, 256 kB for head, whose rows have few lexemes.
CREATE INDEX documents_search_idx ON documents USING gin (search) WITH (fastupdate = on, gin_pending_list_limit = 1024);
CREATE INDEX documents_head_idx ON documents USING gin (head) WITH (fastupdate = on, gin_pending_list_limit = 256);
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
