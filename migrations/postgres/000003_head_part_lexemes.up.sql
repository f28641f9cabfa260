-- The title's lexemes (head's A part) and the description's and tags' (B
-- part), each in a GIN index, for relevance search: tiers 3 and 2 need a
-- query word in the title, tiers 3 and 1 one in the description or tags,
-- so one index lookup each tells a search which tiers cannot hold a row
-- (a word in tags and no title, or in every title and no description)
-- instead of walking them in vain. Short pending lists, as for head: every
-- index search scans them, and the store only merges search's and head's
-- after bulk imports.
CREATE INDEX documents_title_lexemes_idx ON documents USING gin (ts_filter(head, '{a}')) WITH (fastupdate = on, gin_pending_list_limit = 64);
CREATE INDEX documents_meta_lexemes_idx ON documents USING gin (ts_filter(head, '{b}')) WITH (fastupdate = on, gin_pending_list_limit = 64);
