-- Followers replicate lifecycle per upstream: what each upstream's log says
-- of each document it logged (status, message, replacement, attested
-- publisher), and which of its documents were quarantined (bytes that do
-- not match the record). A fork's evidence is kept until an operator
-- resets the upstream (registry follow reset).
ALTER TABLE follow_state ADD COLUMN evidence text NOT NULL DEFAULT '';

CREATE TABLE follow_docs (
    digest                 bytea  NOT NULL,
    upstream               text   NOT NULL,
    idx                    bigint NOT NULL CHECK (idx >= 0),
    status                 text   NOT NULL CHECK (status IN ('active', 'deprecated', 'withdrawn')),
    message                text   NOT NULL DEFAULT '',
    replacement            bytea,
    publisher              text   NOT NULL DEFAULT '',
    publisher_display_name text   NOT NULL DEFAULT '',
    publisher_domain       text   NOT NULL DEFAULT '',
    quarantine             text   NOT NULL DEFAULT '',
    PRIMARY KEY (digest, upstream)
);
CREATE INDEX follow_docs_quarantine ON follow_docs (upstream, idx DESC) WHERE quarantine <> '';
CREATE INDEX follow_docs_publisher ON follow_docs (upstream, publisher) WHERE publisher <> '';
CREATE INDEX follow_docs_withdrawn ON follow_docs (upstream, idx) WHERE status = 'withdrawn';
