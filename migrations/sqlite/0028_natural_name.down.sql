-- The plain lower-cased key again (SQLite's lower() folds ASCII only; a
-- key written by Put folded every letter).
UPDATE documents SET title_key = lower(title) WHERE title GLOB '*[0-9]*';
