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
}

// Options lists the re-rank's options.
func (m *MatchLLM) Options() []Option {
	return []Option{
		{Flag: "llm-base-url", Env: "REGISTRY_LLM_BASE_URL", Default: "", Usage: "OpenAI-compatible endpoint (e.g. http://127.0.0.1:11434/v1) that re-ranks the top candidates of /api/v1/match; empty means the deterministic ranking only", Value: URL(&m.LLMBaseURL, true, "http", "https")},
		{Flag: "llm-model", Env: "REGISTRY_LLM_MODEL", Default: "", Usage: "model name sent to --llm-base-url", Value: Text(&m.LLMModel)},
		{Flag: "llm-timeout", Env: "REGISTRY_LLM_TIMEOUT", Default: "10s", Usage: "time one match's re-rank may take; past it the deterministic order is answered", Value: Duration(&m.LLMTimeout)},
		{Flag: "llm-rerank", Env: "REGISTRY_LLM_RERANK", Default: "10", Usage: "top candidates of a match the model may reorder (one completion per match)", Value: Count(&m.LLMRerank, 2, 20)},
		{Flag: "llm-concurrency", Env: "REGISTRY_LLM_CONCURRENCY", Default: "2", Usage: "match re-ranks in flight at once; a match arriving when all are busy is answered in the deterministic order", Value: Count(&m.LLMConcurrency, 1, 64)},
	}
}
