-- An agent record holds every dialect the agent speaks: its Agora
-- well-known list (the columns of 000010), its A2A agent card and its ARD
-- manifest. The card and the manifest are JSON documents the directory
-- writes and reads whole (store.AgentCard, store.AgentManifest); beside
-- them, the few figures list views show. Each dialect counts its own failed
-- reads: one failing keeps its last good data while the others update.
-- ard_entry_count is -1 without a manifest, a2a_signature '' without a card.
ALTER TABLE agents
    ADD COLUMN agora_error     text    NOT NULL DEFAULT '',
    ADD COLUMN agora_failures  integer NOT NULL DEFAULT 0,
    ADD COLUMN a2a_card        jsonb,
    ADD COLUMN a2a_signature   text    NOT NULL DEFAULT '',
    ADD COLUMN a2a_skill_count integer NOT NULL DEFAULT 0,
    ADD COLUMN a2a_error       text    NOT NULL DEFAULT '',
    ADD COLUMN a2a_failures    integer NOT NULL DEFAULT 0,
    ADD COLUMN ard_manifest    jsonb,
    ADD COLUMN ard_entry_count integer NOT NULL DEFAULT -1,
    ADD COLUMN ard_error       text    NOT NULL DEFAULT '',
    ADD COLUMN ard_failures    integer NOT NULL DEFAULT 0;
