-- Every dialect an agent speaks (see the PostgreSQL migration 000029 for
-- the why). The card and the manifest are JSON text.
ALTER TABLE agents ADD COLUMN agora_error TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN agora_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN a2a_card TEXT;
ALTER TABLE agents ADD COLUMN a2a_signature TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN a2a_skill_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN a2a_error TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN a2a_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN ard_manifest TEXT;
ALTER TABLE agents ADD COLUMN ard_entry_count INTEGER NOT NULL DEFAULT -1;
ALTER TABLE agents ADD COLUMN ard_error TEXT NOT NULL DEFAULT '';
ALTER TABLE agents ADD COLUMN ard_failures INTEGER NOT NULL DEFAULT 0;
