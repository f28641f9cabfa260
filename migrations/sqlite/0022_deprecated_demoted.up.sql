-- A deprecated document ranks after every live search match: bit 2 of
-- demoted (store.DemotedDeprecated), which SetStatus keeps from now on.
-- Documents deprecated before it get the bit here.
UPDATE documents SET demoted = demoted | 2 WHERE status = 'deprecated' AND demoted & 2 = 0;
