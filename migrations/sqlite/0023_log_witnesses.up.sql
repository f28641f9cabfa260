-- What the log knows of each witness it asks for cosignatures
-- (c2sp.org/tlog-witness), keyed by the witness's verifier key: the tree
-- size the witness holds (the old size of the next request) and its
-- cosignature line of the checkpoint of cosigned_size.
CREATE TABLE log_witnesses (
    witness_key   TEXT PRIMARY KEY,
    size          INTEGER NOT NULL CHECK (size >= 0),
    cosigned_size INTEGER NOT NULL DEFAULT 0 CHECK (cosigned_size >= 0),
    cosignature   TEXT NOT NULL DEFAULT '',
    updated_at    INTEGER NOT NULL DEFAULT 0
);
