DROP TRIGGER documents_head_insert ON documents;
DROP FUNCTION documents_head_inserted();
DROP TABLE search_head;
