DROP TABLE documents_match_fts;
