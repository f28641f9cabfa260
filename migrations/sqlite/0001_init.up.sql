-- Agora Registry schema for SQLite.

-- One row per stored document. Metadata columns only: the bytes live in
-- contents so scans of this table (browse, search) stay dense.
CREATE TABLE documents (
    id              INTEGER PRIMARY KEY,
    hex             TEXT    NOT NULL UNIQUE CHECK (length(hex) = 40),
    sha256          BLOB    NOT NULL CHECK (length(sha256) = 32),
    size            INTEGER NOT NULL CHECK (size > 0),
    title           TEXT    NOT NULL,
    -- title_key is the lower-cased title (lowered in Go, Unicode-aware): the
    -- key of the name sort.
    title_key       TEXT    NOT NULL,
    description     TEXT    NOT NULL,
    multiround      INTEGER NOT NULL,
    tags            TEXT    NOT NULL, -- JSON array: front-matter tags then extra tags
    version         TEXT    NOT NULL,
    supersedes      TEXT,             -- hex digest or NULL
    authors         TEXT    NOT NULL, -- JSON array
    license         TEXT    NOT NULL,
    front_matter    INTEGER NOT NULL,
    lints           TEXT    NOT NULL, -- JSON array of {code, message}
    origin          TEXT    NOT NULL,
    created_at      INTEGER NOT NULL, -- Unix microseconds
    withdrawn_at    INTEGER,          -- Unix microseconds; NULL while listed
    withdraw_reason TEXT    NOT NULL DEFAULT ''
) STRICT;

-- Browse newest first, and the keyset of that order.
CREATE INDEX documents_newest ON documents (created_at DESC, hex DESC) WHERE withdrawn_at IS NULL;
-- Browse by name.
CREATE INDEX documents_name ON documents (title_key, hex) WHERE withdrawn_at IS NULL;
-- Export in creation order, and the next creation time.
CREATE INDEX documents_created ON documents (created_at, hex);
CREATE INDEX documents_supersedes ON documents (supersedes) WHERE supersedes IS NOT NULL;

-- The exact bytes of each document.
CREATE TABLE contents (
    id      INTEGER PRIMARY KEY REFERENCES documents (id),
    content BLOB    NOT NULL
) STRICT;

-- Tags of listed documents only: a withdrawal deletes its rows, so tag
-- filters and counts never see withdrawn documents.
CREATE TABLE document_tags (
    tag    TEXT    NOT NULL,
    doc_id INTEGER NOT NULL REFERENCES documents (id),
    PRIMARY KEY (tag, doc_id)
) STRICT, WITHOUT ROWID;
-- Withdrawal deletes a document's tag rows by document.
CREATE INDEX document_tags_doc ON document_tags (doc_id);

-- Full-text index of listed documents (rowid = documents.id). Contentless:
-- the text is in documents/contents already; contentless_delete lets a
-- withdrawal remove its row. remove_diacritics folds "météo" to "meteo".
CREATE VIRTUAL TABLE documents_fts USING fts5 (
    title, description, tags, body,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE api_tokens (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT    NOT NULL,
    scopes       TEXT    NOT NULL, -- JSON array
    secret_hash  BLOB    NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;
