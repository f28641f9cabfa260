DROP INDEX documents_inactive;
