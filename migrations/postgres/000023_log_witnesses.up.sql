-- What the log knows of each witness it asks for cosignatures
-- (c2sp.org/tlog-witness), keyed by the witness's verifier key: the tree
-- size the witness holds (the old size of the next request) and its
-- cosignature line of the checkpoint of cosigned_size. A new, empty table:
-- no lock on existing ones.
CREATE TABLE log_witnesses (
    witness_key   text PRIMARY KEY,
    size          bigint NOT NULL CHECK (size >= 0),
    cosigned_size bigint NOT NULL DEFAULT 0 CHECK (cosigned_size >= 0),
    cosignature   text NOT NULL DEFAULT '',
    updated_at    timestamptz NOT NULL DEFAULT now()
);
