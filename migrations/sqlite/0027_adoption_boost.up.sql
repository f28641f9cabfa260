-- boost is a document's adoption level (store.AdoptionLevel): 0 without
-- adoption, one more each time its adoption score (distinct clients per
-- day over the window plus speaking agents, adoption_scores) doubles, at
-- most 7. Search multiplies a head match's rank by 4 + boost
-- (internal/store/sqlite/search.go).
ALTER TABLE documents ADD COLUMN boost INTEGER NOT NULL DEFAULT 0;

UPDATE documents SET boost = (SELECT ((s.score >= 1) + (s.score >= 3) + (s.score >= 7) + (s.score >= 15) + (s.score >= 31) + (s.score >= 63) + (s.score >= 127)) FROM adoption_scores s WHERE s.hex = documents.hex)
WHERE hex IN (SELECT hex FROM adoption_scores WHERE score >= 1);

-- The adopted documents' titles, descriptions and tags, as in
-- documents_meta_fts: search ranks their matches apart from the walks of
-- the others, from doclists as long as the adopted set (a probe of the
-- whole index per adopted row cost 80 µs). Kept by the triggers below
-- while boost is not 0.
CREATE INDEX documents_boosted ON documents (id) WHERE boost <> 0;
CREATE VIRTUAL TABLE documents_adopted_fts USING fts5 (
    title, description, tags,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO documents_adopted_fts (rowid, title, description, tags)
SELECT d.id, d.title, d.description, coalesce((SELECT group_concat(j.value, ' ') FROM json_each(d.tags) AS j), '')
FROM documents AS d WHERE d.boost <> 0;
CREATE TRIGGER documents_adopted_insert AFTER UPDATE OF boost ON documents WHEN OLD.boost = 0 AND NEW.boost <> 0 BEGIN
    INSERT INTO documents_adopted_fts (rowid, title, description, tags)
    VALUES (NEW.id, NEW.title, NEW.description, coalesce((SELECT group_concat(j.value, ' ') FROM json_each(NEW.tags) AS j), ''));
END;
CREATE TRIGGER documents_adopted_delete AFTER UPDATE OF boost ON documents WHEN OLD.boost <> 0 AND NEW.boost = 0 BEGIN
    DELETE FROM documents_adopted_fts WHERE rowid = OLD.id;
END;

-- Every write of a score keeps boost; a row is rewritten only when its
-- level changes, which a doubling takes.
CREATE TRIGGER adoption_scores_boost_insert AFTER INSERT ON adoption_scores BEGIN
    UPDATE documents SET boost = ((NEW.score >= 1) + (NEW.score >= 3) + (NEW.score >= 7) + (NEW.score >= 15) + (NEW.score >= 31) + (NEW.score >= 63) + (NEW.score >= 127)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 1) + (NEW.score >= 3) + (NEW.score >= 7) + (NEW.score >= 15) + (NEW.score >= 31) + (NEW.score >= 63) + (NEW.score >= 127));
END;
CREATE TRIGGER adoption_scores_boost_update AFTER UPDATE OF score ON adoption_scores BEGIN
    UPDATE documents SET boost = ((NEW.score >= 1) + (NEW.score >= 3) + (NEW.score >= 7) + (NEW.score >= 15) + (NEW.score >= 31) + (NEW.score >= 63) + (NEW.score >= 127)) WHERE hex = NEW.hex AND boost <> ((NEW.score >= 1) + (NEW.score >= 3) + (NEW.score >= 7) + (NEW.score >= 15) + (NEW.score >= 31) + (NEW.score >= 63) + (NEW.score >= 127));
END;
CREATE TRIGGER adoption_scores_boost_delete AFTER DELETE ON adoption_scores BEGIN
    UPDATE documents SET boost = 0 WHERE hex = OLD.hex AND boost <> 0;
END;
