package config

import "time"

// Directory configures the agent directory's crawler and the adoption
// counters of `registry serve`.
type Directory struct {
	AgentCrawlInterval    time.Duration
	AgentCrawlConcurrency int
	AgentMaxFailures      int
	AgentCrawlTimeout     time.Duration
	AgentWellKnownBytes   int
	AgentsPerClientDay    int
	AgentsPerClient       int
	AgentClientQueue      int
	AgentRegisterWait     time.Duration
	AdoptionFlush         time.Duration
	// MCP serves /mcp (read-only tools for LLM clients).
	MCP bool
}

// Options lists the directory's options.
func (d *Directory) Options() []Option {
	return []Option{
		{Flag: "agent-crawl-interval", Env: "REGISTRY_AGENT_CRAWL_INTERVAL", Default: "1h", Usage: "time between crawls of one registered agent's well-known documents (each spread by ±10%)", Value: Duration(&d.AgentCrawlInterval)},
		{Flag: "agent-crawl-concurrency", Env: "REGISTRY_AGENT_CRAWL_CONCURRENCY", Default: "4", Usage: "agent crawls at once: registrations hold at most all but a quarter of them (at least one is the scheduled re-crawls'), one client's one at a time", Value: Count(&d.AgentCrawlConcurrency, 1, 256)},
		{Flag: "agent-max-failures", Env: "REGISTRY_AGENT_MAX_FAILURES", Default: "5", Usage: "failed crawls in a row after which an agent is removed from the directory", Value: Count(&d.AgentMaxFailures, 1, 1000)},
		{Flag: "agent-crawl-timeout", Env: "REGISTRY_AGENT_CRAWL_TIMEOUT", Default: "10s", Usage: "time one crawl of an agent may take: its Agora list, A2A card (with its key set) and ARD manifest, read at once, and their redirects (at most 3 each)", Value: Duration(&d.AgentCrawlTimeout)},
		{Flag: "agent-wellknown-bytes", Env: "REGISTRY_AGENT_WELLKNOWN_BYTES", Default: "1MiB", Usage: "largest answer read from an agent: a well-known list, an A2A card, its key set or an ARD manifest", Value: Size(&d.AgentWellKnownBytes, 1<<10, 16<<20)},
		{Flag: "agents-per-client-day", Env: "REGISTRY_AGENTS_PER_CLIENT_DAY", Default: "20", Usage: "new agents one client (address, or IPv6 /64) may add to the directory in 24 hours; beyond, 429 agent_daily_limit", Value: Count(&d.AgentsPerClientDay, 1, 1000000)},
		{Flag: "agents-per-client", Env: "REGISTRY_AGENTS_PER_CLIENT", Default: "100", Usage: "agents one client's registrations may hold in the directory at once; beyond, 429 agent_total_limit", Value: Count(&d.AgentsPerClient, 1, 1000000)},
		{Flag: "agent-client-queue", Env: "REGISTRY_AGENT_CLIENT_QUEUE", Default: "4", Usage: "registrations one client may have waiting for their crawl; beyond, 429 agent_queue_full", Value: Count(&d.AgentClientQueue, 1, 1000)},
		{Flag: "agent-register-wait", Env: "REGISTRY_AGENT_REGISTER_WAIT", Default: "2s", Usage: "how long a registration waits for its crawl before answering 202 (crawl pending; the agent's record shows the outcome)", Value: Duration(&d.AgentRegisterWait)},
		{Flag: "adoption-flush", Env: "REGISTRY_ADOPTION_FLUSH", Default: "5s", Usage: "how often the in-memory counts of raw fetches, resolutions and distinct clients are written to the store (and on shutdown)", Value: Duration(&d.AdoptionFlush)},
		{Flag: "mcp", Env: "REGISTRY_MCP", Default: "true", Usage: "serve the read-only MCP endpoint /mcp (streamable HTTP) for LLM clients", Value: Bool(&d.MCP)},
	}
}

// MCP is the configuration of `registry mcp`.
type MCP struct {
	Registry string
}

// Options lists the options of `registry mcp`.
func (m *MCP) Options() []Option {
	return []Option{
		{Flag: "registry", Env: "REGISTRY_MCP_REGISTRY", Default: "http://127.0.0.1:8080", Usage: "registry base URL the stdio MCP server (registry mcp) asks", Value: URL(&m.Registry, false, "http", "https")},
	}
}
