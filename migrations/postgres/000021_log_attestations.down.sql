CREATE OR REPLACE FUNCTION log_document_event() RETURNS trigger LANGUAGE plpgsql AS $$
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

ALTER TABLE log_pending
    DROP COLUMN publisher,
    DROP COLUMN publisher_display_name,
    DROP COLUMN publisher_domain,
    DROP COLUMN replaced_by;
