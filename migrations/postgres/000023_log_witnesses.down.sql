DROP TABLE log_witnesses;
