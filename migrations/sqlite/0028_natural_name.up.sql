-- The name sort orders titles naturally ("v9" before "v10"): title_key
-- becomes store.NaturalKey(title) (the lower-cased title, each run of
-- digits as its length in three digits and the digits without leading
-- zeros), written by Put from now on. Here the keys of titles with a
-- digit are rewritten, one character at a time: out is the key so far,
-- run the digits not yet written.
WITH RECURSIVE walk (id, rest, out, run) AS (
    SELECT id, title_key, '', '' FROM documents WHERE title_key GLOB '*[0-9]*'
    UNION ALL
    SELECT id, substr(rest, 2),
        CASE WHEN substr(rest, 1, 1) GLOB '[0-9]' THEN out ELSE out || CASE WHEN run = '' THEN '' ELSE printf('%03d', length(coalesce(nullif(ltrim(run, '0'), ''), '0'))) || coalesce(nullif(ltrim(run, '0'), ''), '0') END || substr(rest, 1, 1) END,
        CASE WHEN substr(rest, 1, 1) GLOB '[0-9]' THEN run || substr(rest, 1, 1) ELSE '' END
    FROM walk WHERE rest <> ''
)
UPDATE documents SET title_key = k.key
FROM (SELECT id, out || CASE WHEN run = '' THEN '' ELSE printf('%03d', length(coalesce(nullif(ltrim(run, '0'), ''), '0'))) || coalesce(nullif(ltrim(run, '0'), ''), '0') END AS key FROM walk WHERE rest = '') AS k
WHERE k.id = documents.id;
