DROP TABLE follow_state;
