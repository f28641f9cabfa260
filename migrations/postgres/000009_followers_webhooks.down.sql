DROP TABLE webhooks;
DROP TABLE follow_state;
