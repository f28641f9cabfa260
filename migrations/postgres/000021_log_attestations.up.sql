-- Log records attest the publisher (agora-registry/2 records): a queued
-- event carries the document's publisher as its account reads when the
-- event is queued (the pub_domain only when verified) and a deprecation's
-- replacement. Events queued before this migration keep none and become
-- agora-registry/1 records, as before. Only the queue changes: records
-- already in the log are never rewritten.
ALTER TABLE log_pending
    ADD COLUMN publisher              text NOT NULL DEFAULT '',
    ADD COLUMN publisher_display_name text NOT NULL DEFAULT '',
    ADD COLUMN publisher_domain       text NOT NULL DEFAULT '',
    ADD COLUMN replaced_by            text NOT NULL DEFAULT '';

CREATE OR REPLACE FUNCTION log_document_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    pub_display text := '';
    pub_domain  text := '';
BEGIN
    SELECT p.display_name, p.verified_domain INTO pub_display, pub_domain FROM publishers p WHERE p.name = NEW.publisher;
    pub_display := coalesce(pub_display, '');
    pub_domain := coalesce(pub_domain, '');
    IF TG_OP = 'INSERT' THEN
        INSERT INTO log_pending (event, digest, sha256, size, at, publisher, publisher_display_name, publisher_domain)
        VALUES ('publish', NEW.digest, NEW.sha256, NEW.size, NEW.created_at, NEW.publisher, pub_display, pub_domain);
    END IF;
    IF NEW.withdrawn_at IS NOT NULL AND (TG_OP = 'INSERT' OR OLD.withdrawn_at IS NULL) THEN
        INSERT INTO log_pending (event, digest, sha256, size, at, status, reason, publisher, publisher_display_name, publisher_domain)
        VALUES ('withdraw', NEW.digest, NEW.sha256, NEW.size, NEW.withdrawn_at, 'withdrawn', NEW.withdraw_reason, NEW.publisher, pub_display, pub_domain);
    END IF;
    RETURN NULL;
END $$;
