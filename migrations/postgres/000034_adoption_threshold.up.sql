-- Level 1 of adoption (store.AdoptionLevel) needs a score of 16, then one
-- more level each time it doubles: search reads every adopted match apart,
-- so the adopted must stay few. The trigger of 000027 calls this function;
-- only the rows whose level changes are rewritten.
CREATE OR REPLACE FUNCTION adoption_level(score bigint) RETURNS smallint LANGUAGE sql IMMUTABLE AS $$
    SELECT ((score >= 16)::int + (score >= 32)::int + (score >= 64)::int + (score >= 128)::int
        + (score >= 256)::int + (score >= 512)::int + (score >= 1024)::int)::smallint
$$;

UPDATE documents d SET boost = adoption_level(s.score)
FROM adoption_scores s WHERE s.digest = d.digest AND d.boost <> adoption_level(s.score);
