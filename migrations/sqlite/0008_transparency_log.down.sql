DROP TRIGGER documents_log_withdraw;
DROP TRIGGER documents_log_insert;
DROP TABLE log_key;
DROP TABLE log_head;
DROP TABLE log_hashes;
DROP TABLE log_records;
DROP TABLE log_pending;
