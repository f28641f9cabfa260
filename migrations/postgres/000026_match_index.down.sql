DROP TABLE document_match;
