DROP INDEX documents_withdrawn;
