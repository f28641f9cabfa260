DROP TABLE IF EXISTS adoption_scores;
DROP TABLE IF EXISTS adoption_daily;
DROP TABLE IF EXISTS agent_protocols;
DROP TABLE IF EXISTS agents;
