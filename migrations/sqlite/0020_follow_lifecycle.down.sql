DROP TABLE follow_docs;
ALTER TABLE follow_state DROP COLUMN evidence;
