DROP TABLE documents_meta_fts;
