DROP TRIGGER documents_log_insert;
DROP TRIGGER documents_log_withdraw;
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

ALTER TABLE log_pending DROP COLUMN publisher;
ALTER TABLE log_pending DROP COLUMN publisher_display_name;
ALTER TABLE log_pending DROP COLUMN publisher_domain;
ALTER TABLE log_pending DROP COLUMN replaced_by;
