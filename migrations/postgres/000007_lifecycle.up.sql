-- Publishers become accounts (a display name, an optional verified
-- domain), documents get a lifecycle (active or deprecated, with a message
-- and a replacement; withdrawal stays withdrawn_at) and every status change
-- is kept in document_history with its time and actor.
-- Cost on a large store: the ADD COLUMNs have constant defaults (catalogue
-- changes, no rewrite); the publisher index is built with one scan under a
-- SHARE lock (writes wait for it, reads do not).
CREATE TABLE publishers (
    name             text        PRIMARY KEY,
    display_name     text        NOT NULL DEFAULT '',
    verified_domain  text        NOT NULL DEFAULT '',
    verified_at      timestamptz,
    challenge_domain text        NOT NULL DEFAULT '',
    challenge        text        NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now()
);
-- Every name a token or document already carries becomes an account, so
-- no existing token or document points nowhere ('default' among them).
INSERT INTO publishers (name, display_name) VALUES
    ('default', 'Default publisher'), ('examples', 'Registry examples'),
    ('mirror', 'Mirrored from upstream registries'), ('anonymous', 'Anonymous (tokenless) publishes');
INSERT INTO publishers (name)
    SELECT publisher FROM documents UNION SELECT publisher FROM api_tokens
    ON CONFLICT (name) DO NOTHING;

ALTER TABLE documents
    ADD COLUMN status text NOT NULL DEFAULT 'active',
    ADD COLUMN status_message text NOT NULL DEFAULT '',
    ADD COLUMN replacement bytea,
    ADD COLUMN status_at timestamptz;
ALTER TABLE documents
    ALTER COLUMN status SET STORAGE MAIN,
    ALTER COLUMN status_message SET STORAGE MAIN;

-- A publisher's page and ?publisher= walk the publisher's own documents,
-- newest first.
CREATE INDEX documents_publisher_idx ON documents (publisher, created_at, digest);

CREATE TABLE document_history (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    digest      bytea       NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text        NOT NULL,
    status      text        NOT NULL,
    message     text        NOT NULL DEFAULT '',
    replacement bytea
);
CREATE INDEX document_history_digest_idx ON document_history (digest, id);
