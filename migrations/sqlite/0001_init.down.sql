DROP TABLE api_tokens;
DROP TABLE documents_fts;
DROP TABLE document_tags;
DROP TABLE contents;
DROP TABLE documents;
