-- Log records attest the publisher (agora-registry/2 records): a queued
-- event carries the document's publisher as its account reads when the
-- event is queued (the domain only when verified) and a deprecation's
-- replacement. Events queued before this migration keep none and become
-- agora-registry/1 records, as before. Only the queue changes: records
-- already in the log are never rewritten.
ALTER TABLE log_pending ADD COLUMN publisher TEXT NOT NULL DEFAULT '';
ALTER TABLE log_pending ADD COLUMN publisher_display_name TEXT NOT NULL DEFAULT '';
ALTER TABLE log_pending ADD COLUMN publisher_domain TEXT NOT NULL DEFAULT '';
ALTER TABLE log_pending ADD COLUMN replaced_by TEXT NOT NULL DEFAULT '';

DROP TRIGGER documents_log_insert;
DROP TRIGGER documents_log_withdraw;
CREATE TRIGGER documents_log_insert AFTER INSERT ON documents BEGIN
    INSERT INTO log_pending (event, hex, sha256, size, at, publisher, publisher_display_name, publisher_domain)
    SELECT 'publish', NEW.hex, NEW.sha256, NEW.size, NEW.created_at, NEW.publisher,
        coalesce(p.display_name, ''), coalesce(p.verified_domain, '')
    FROM (SELECT 1) LEFT JOIN publishers p ON p.name = NEW.publisher;
    INSERT INTO log_pending (event, hex, sha256, size, at, status, reason, publisher, publisher_display_name, publisher_domain)
    SELECT 'withdraw', NEW.hex, NEW.sha256, NEW.size, NEW.withdrawn_at, 'withdrawn', NEW.withdraw_reason, NEW.publisher,
        coalesce(p.display_name, ''), coalesce(p.verified_domain, '')
    FROM (SELECT 1) LEFT JOIN publishers p ON p.name = NEW.publisher
    WHERE NEW.withdrawn_at IS NOT NULL;
END;
CREATE TRIGGER documents_log_withdraw AFTER UPDATE OF withdrawn_at ON documents
    WHEN OLD.withdrawn_at IS NULL AND NEW.withdrawn_at IS NOT NULL BEGIN
    INSERT INTO log_pending (event, hex, sha256, size, at, status, reason, publisher, publisher_display_name, publisher_domain)
    SELECT 'withdraw', NEW.hex, NEW.sha256, NEW.size, NEW.withdrawn_at, 'withdrawn', NEW.withdraw_reason, NEW.publisher,
        coalesce(p.display_name, ''), coalesce(p.verified_domain, '')
    FROM (SELECT 1) LEFT JOIN publishers p ON p.name = NEW.publisher;
END;
