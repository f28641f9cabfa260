-- Batch resolve reads the title and the withdrawal of up to 1,000 digests.
-- Through the unique hex index each digest cost two B-tree descents (index,
-- then table row), most of them page reads at 100,000 documents; this index
-- answers from one (6.2 -> 3.1 ms CPU per 1,000 digests at 100,000
-- documents, docs/BENCHMARKS.md). The resolve query names it (INDEXED BY):
-- without statistics SQLite prefers the unique index for an equality.
CREATE INDEX documents_resolve ON documents (hex, withdrawn_at, title);
