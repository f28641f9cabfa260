-- Keep description in the row, as the other metadata columns are (MAIN,
-- 000001). With the table's toast_tuple_target of 128 bytes, EXTENDED
-- moved nearly every description out of line, so each listed or searched
-- row cost a TOAST index lookup and fetch: the demo's GET / spent 5.5 of
-- its 6.5 µs of database CPU per listed row there (1.4 µs in the row;
-- docs/benchmarks/demo-list.md). Rows stored before keep their
-- out-of-line descriptions until they are rewritten (docs/operations.md).
ALTER TABLE documents ALTER COLUMN description SET STORAGE MAIN;
