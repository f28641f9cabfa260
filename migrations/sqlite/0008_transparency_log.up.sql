-- The transparency log (docs/operations.md, "Transparency log"). Triggers
-- queue one event per publish and per first withdrawal in the writing
-- transaction, so no write path can skip the log; the integrator (on the
-- one write connection) numbers queued events, stores the record text and
-- the Merkle tree's hashes and signs the new tree head.

-- Events committed but not yet in the log, oldest first.
CREATE TABLE log_pending (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    event  TEXT    NOT NULL,
    hex    TEXT    NOT NULL CHECK (length(hex) = 40),
    sha256 BLOB    NOT NULL CHECK (length(sha256) = 32),
    size   INTEGER NOT NULL,
    at     INTEGER NOT NULL, -- Unix microseconds
    status TEXT    NOT NULL DEFAULT '',
    reason TEXT    NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX log_pending_hex ON log_pending (hex);

-- The log's records: index (from 0, gap-free) and exact text.
CREATE TABLE log_records (
    idx   INTEGER PRIMARY KEY CHECK (idx >= 0),
    hex   TEXT    NOT NULL CHECK (length(hex) = 40),
    event TEXT    NOT NULL,
    text  BLOB    NOT NULL
) STRICT;
CREATE INDEX log_records_hex ON log_records (hex, idx);

-- The tree's stored hashes, at golang.org/x/mod/sumdb/tlog's StoredHashIndex.
CREATE TABLE log_hashes (
    id   INTEGER PRIMARY KEY CHECK (id >= 0),
    hash BLOB    NOT NULL CHECK (length(hash) = 32)
) STRICT;

-- The latest tree head and its signed checkpoint (one row).
CREATE TABLE log_head (
    one        INTEGER PRIMARY KEY CHECK (one = 1),
    size       INTEGER NOT NULL,
    root       BLOB    NOT NULL CHECK (length(root) = 32),
    checkpoint BLOB    NOT NULL
) STRICT;
INSERT INTO log_head (one, size, root, checkpoint) VALUES (1, 0, zeroblob(32), X'');

-- The signing key generated on first start (note format), unless the
-- operator gives one in a file.
CREATE TABLE log_key (
    one        INTEGER PRIMARY KEY CHECK (one = 1),
    skey       TEXT    NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TRIGGER documents_log_insert AFTER INSERT ON documents BEGIN
    INSERT INTO log_pending (event, hex, sha256, size, at)
    VALUES ('publish', NEW.hex, NEW.sha256, NEW.size, NEW.created_at);
    INSERT INTO log_pending (event, hex, sha256, size, at, status, reason)
    SELECT 'withdraw', NEW.hex, NEW.sha256, NEW.size, NEW.withdrawn_at, 'withdrawn', NEW.withdraw_reason
    WHERE NEW.withdrawn_at IS NOT NULL;
END;
CREATE TRIGGER documents_log_withdraw AFTER UPDATE OF withdrawn_at ON documents
    WHEN OLD.withdrawn_at IS NULL AND NEW.withdrawn_at IS NOT NULL BEGIN
    INSERT INTO log_pending (event, hex, sha256, size, at, status, reason)
    VALUES ('withdraw', NEW.hex, NEW.sha256, NEW.size, NEW.withdrawn_at, 'withdrawn', NEW.withdraw_reason);
END;

-- What was stored before the log enters it first, in creation order, then
-- its withdrawals in the order they happened.
INSERT INTO log_pending (event, hex, sha256, size, at)
    SELECT 'publish', hex, sha256, size, created_at FROM documents ORDER BY created_at, hex;
INSERT INTO log_pending (event, hex, sha256, size, at, status, reason)
    SELECT 'withdraw', hex, sha256, size, withdrawn_at, 'withdrawn', withdraw_reason
    FROM documents WHERE withdrawn_at IS NOT NULL ORDER BY withdrawn_at, hex;
