DROP TRIGGER documents_withdrawal_counted;
DROP TRIGGER documents_counted;
DROP TABLE document_counts;
DROP TRIGGER document_tags_uncounted;
DROP TRIGGER document_tags_counted;
DROP TABLE tag_counts;
