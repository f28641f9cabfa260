package config

import "time"

// MatchLLM configures the optional LLM re-rank of /api/v1/match in
// `registry serve`; the API key is REGISTRY_LLM_API_KEY (a secret, never a flag).
type MatchLLM struct {
	LLMBaseURL     string
	LLMModel       string
	LLMTimeout     time.Duration
	LLMRerank      int
	LLMConcurrency int
	// The re-rank's budget and cache (docs/SECURITY.md).
	LLMPerMinute       int
	LLMClientPerMinute int
	LLMCacheEntries    int
}

// Options lists the re-rank's options.
func (m *MatchLLM) Options() []Option {
	return []Option{
		{Flag: "llm-base-url", Env: "REGISTRY_LLM_BASE_URL", Default: "", Usage: "OpenAI-compatible endpoint (e.g. http://127.0.0.1:11434/v1) that re-ranks the top candidates of /api/v1/match; empty means the deterministic ranking only", Value: URL(&m.LLMBaseURL, true, "http", "https")},
		{Flag: "llm-model", Env: "REGISTRY_LLM_MODEL", Default: "", Usage: "model name sent to --llm-base-url", Value: Text(&m.LLMModel)},
		{Flag: "llm-timeout", Env: "REGISTRY_LLM_TIMEOUT", Default: "10s", Usage: "time one match's re-rank may take; past it the deterministic order is answered", Value: Duration(&m.LLMTimeout)},
		{Flag: "llm-rerank", Env: "REGISTRY_LLM_RERANK", Default: "10", Usage: "top candidates of a match the model may reorder (one completion per match)", Value: Count(&m.LLMRerank, 2, 20)},
		{Flag: "llm-concurrency", Env: "REGISTRY_LLM_CONCURRENCY", Default: "2", Usage: "match re-ranks in flight at once; a match arriving when all are busy is answered in the deterministic order", Value: Count(&m.LLMConcurrency, 1, 64)},
		{Flag: "llm-per-minute", Env: "REGISTRY_LLM_PER_MINUTE", Default: "30", Usage: "completions the match re-rank may make in any minute, all clients together; beyond them a match is answered in the deterministic order and says rerankSkipped: budget", Value: Count(&m.LLMPerMinute, 1, 100000)},
		{Flag: "llm-client-per-minute", Env: "REGISTRY_LLM_CLIENT_PER_MINUTE", Default: "5", Usage: "completions one client address (an IPv6 client is its --rate-limit-ipv6-prefix network; behind a proxy set --trusted-proxies) may cause in any minute, at most --llm-per-minute; beyond them its matches say rerankSkipped: client_budget", Value: Count(&m.LLMClientPerMinute, 1, 100000)},
		{Flag: "llm-cache-entries", Env: "REGISTRY_LLM_CACHE_ENTRIES", Default: "1000", Usage: "re-ranks remembered by task and candidate set (least recently used dropped); a remembered one costs no completion", Value: Count(&m.LLMCacheEntries, 1, 1000000)},
	}
}
