-- The name sort orders titles naturally ("v9" before "v10"): its key is
-- natural_key(title), store.NaturalKey in SQL (lower-cased, each run of
-- digits as its length in three digits and the digits without leading
-- zeros). The index replaces the plain lower-cased one; building it reads
-- every row once (no rewrite) and blocks writes meanwhile.
CREATE FUNCTION natural_key(title text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(CASE WHEN r.m[1] IS NULL THEN r.m[2]
        ELSE lpad(length(coalesce(nullif(ltrim(r.m[1], '0'), ''), '0'))::text, 3, '0') || coalesce(nullif(ltrim(r.m[1], '0'), ''), '0') END,
        '' ORDER BY r.n), '')
    FROM regexp_matches(lower(title), '([0-9]+)|([^0-9]+)', 'g') WITH ORDINALITY AS r(m, n)
$$;
CREATE INDEX documents_natural_name_idx ON documents ((natural_key(title) COLLATE "C"), digest);
DROP INDEX documents_name_idx;
