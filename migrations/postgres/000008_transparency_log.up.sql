-- The transparency log (docs/operations.md, "Transparency log"). A trigger
-- queues one event per publish and per first withdrawal in the writing
-- transaction, so no write path can skip the log; one integrator at a time
-- (a transaction-scoped advisory lock) numbers queued events, stores the
-- record text and the Merkle tree's hashes and signs the new tree head.

-- Events committed but not yet in the log, oldest first.
CREATE TABLE log_pending (
    seq    bigserial   PRIMARY KEY,
    event  text        NOT NULL,
    digest bytea       NOT NULL CHECK (length(digest) = 20),
    sha256 bytea       NOT NULL CHECK (length(sha256) = 32),
    size   integer     NOT NULL,
    at     timestamptz NOT NULL,
    status text        NOT NULL DEFAULT '',
    reason text        NOT NULL DEFAULT ''
);
CREATE INDEX log_pending_digest ON log_pending (digest);

-- The log's records: index (from 0, gap-free) and exact text.
CREATE TABLE log_records (
    idx    bigint PRIMARY KEY CHECK (idx >= 0),
    digest bytea  NOT NULL CHECK (length(digest) = 20),
    event  text   NOT NULL,
    text   bytea  NOT NULL
);
CREATE INDEX log_records_digest ON log_records (digest, idx);

-- The tree's stored hashes, at golang.org/x/mod/sumdb/tlog's StoredHashIndex.
CREATE TABLE log_hashes (
    id   bigint PRIMARY KEY CHECK (id >= 0),
    hash bytea  NOT NULL CHECK (length(hash) = 32)
);

-- The latest tree head and its signed checkpoint (one row).
CREATE TABLE log_head (
    one        boolean PRIMARY KEY DEFAULT true CHECK (one),
    size       bigint  NOT NULL,
    root       bytea   NOT NULL CHECK (length(root) = 32),
    checkpoint bytea   NOT NULL
);
INSERT INTO log_head (size, root, checkpoint) VALUES (0, decode(repeat('00', 32), 'hex'), '');

-- The signing key generated on first start (note format), unless the
-- operator gives one in a file.
CREATE TABLE log_key (
    one        boolean     PRIMARY KEY DEFAULT true CHECK (one),
    skey       text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION log_document_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO log_pending (event, digest, sha256, size, at)
        VALUES ('publish', NEW.digest, NEW.sha256, NEW.size, NEW.created_at);
    END IF;
    IF NEW.withdrawn_at IS NOT NULL AND (TG_OP = 'INSERT' OR OLD.withdrawn_at IS NULL) THEN
        INSERT INTO log_pending (event, digest, sha256, size, at, status, reason)
        VALUES ('withdraw', NEW.digest, NEW.sha256, NEW.size, NEW.withdrawn_at, 'withdrawn', NEW.withdraw_reason);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER documents_log_insert AFTER INSERT ON documents
    FOR EACH ROW EXECUTE FUNCTION log_document_event();
CREATE TRIGGER documents_log_withdraw AFTER UPDATE OF withdrawn_at ON documents
    FOR EACH ROW WHEN (OLD.withdrawn_at IS NULL AND NEW.withdrawn_at IS NOT NULL)
    EXECUTE FUNCTION log_document_event();

-- What was stored before the log enters it first, in creation order, then
-- its withdrawals in the order they happened.
INSERT INTO log_pending (event, digest, sha256, size, at)
    SELECT 'publish', digest, sha256, size, created_at FROM documents ORDER BY created_at, digest;
INSERT INTO log_pending (event, digest, sha256, size, at, status, reason)
    SELECT 'withdraw', digest, sha256, size, withdrawn_at, 'withdrawn', withdraw_reason
    FROM documents WHERE withdrawn_at IS NOT NULL ORDER BY withdrawn_at, digest;
