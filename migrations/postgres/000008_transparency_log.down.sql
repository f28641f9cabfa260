DROP TRIGGER documents_log_withdraw ON documents;
DROP TRIGGER documents_log_insert ON documents;
DROP FUNCTION log_document_event();
DROP TABLE log_key;
DROP TABLE log_head;
DROP TABLE log_hashes;
DROP TABLE log_records;
DROP TABLE log_pending;
