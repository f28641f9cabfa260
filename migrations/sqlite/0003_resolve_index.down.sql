DROP INDEX documents_resolve;
