CREATE OR REPLACE FUNCTION adoption_level(score bigint) RETURNS smallint LANGUAGE sql IMMUTABLE AS $$
    SELECT ((score >= 1)::int + (score >= 3)::int + (score >= 7)::int + (score >= 15)::int
        + (score >= 31)::int + (score >= 63)::int + (score >= 127)::int)::smallint
$$;

UPDATE documents d SET boost = adoption_level(s.score)
FROM adoption_scores s WHERE s.digest = d.digest AND d.boost <> adoption_level(s.score);
