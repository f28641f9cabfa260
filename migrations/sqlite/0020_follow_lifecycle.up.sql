-- Followers replicate lifecycle per upstream: what each upstream's log says
-- of each document it logged (status, message, replacement, attested
-- publisher), and which of its documents were quarantined (bytes that do
-- not match the record). A fork's evidence is kept until an operator
-- resets the upstream (registry follow reset).
ALTER TABLE follow_state ADD COLUMN evidence TEXT NOT NULL DEFAULT '';

CREATE TABLE follow_docs (
    hex                    TEXT    NOT NULL,
    upstream               TEXT    NOT NULL,
    idx                    INTEGER NOT NULL CHECK (idx >= 0),
    status                 TEXT    NOT NULL CHECK (status IN ('active', 'deprecated', 'withdrawn')),
    message                TEXT    NOT NULL DEFAULT '',
    replacement            TEXT,
    publisher              TEXT    NOT NULL DEFAULT '',
    publisher_display_name TEXT    NOT NULL DEFAULT '',
    publisher_domain       TEXT    NOT NULL DEFAULT '',
    quarantine             TEXT    NOT NULL DEFAULT '',
    PRIMARY KEY (hex, upstream)
) STRICT;
CREATE INDEX follow_docs_quarantine ON follow_docs (upstream, idx DESC) WHERE quarantine <> '';
CREATE INDEX follow_docs_publisher ON follow_docs (upstream, publisher) WHERE publisher <> '';
CREATE INDEX follow_docs_withdrawn ON follow_docs (upstream, idx) WHERE status = 'withdrawn';
