package agent

import "fmt"

// Option documents one setting of the agent binary: its flag (if any), its
// environment variable (if any), its YAML key (if any), type, default and
// meaning. ApplyEnv and cmd/agent read the settings; this table describes
// them for docs/configuration.md, and a test checks every AGENT_* variable
// ApplyEnv reads is listed here, so the two cannot drift apart.
type Option struct {
	Command string // "serve", "send" or "" for both
	Flag    string // without dashes; "" when there is none
	Env     string // "" when there is none
	YAML    string // key in the config file; "" when there is none
	Type    string
	Default string
	Usage   string
}

// Describe lists the agent's options.
func Describe() []Option {
	return []Option{
		{Command: "serve", Flag: "addr", Env: "AGENT_ADDR", YAML: "addr", Type: "host:port", Default: DefaultAddr, Usage: "address to listen on"},
		{Command: "serve", Flag: "config", Env: "AGENT_CONFIG", Type: "path", Default: "", Usage: "YAML config file (examples/agent.yaml documents every key); empty means built-in defaults only"},
		{Command: "serve", Flag: "cache-dir", Env: "AGENT_CACHE_DIR", YAML: "cacheDir", Type: "path", Default: DefaultCacheDir, Usage: "directory of the verified protocol-document cache"},
		{Command: "serve", Flag: "log-level", Env: "AGENT_LOG_LEVEL", YAML: "logLevel", Type: "debug|info|warn|error", Default: "info", Usage: "log level (logs are JSON on stderr)"},
		{Command: "", Flag: "registry", Env: "AGENT_REGISTRIES", YAML: "registries", Type: "list of URLs (flag repeatable, variable comma-separated)", Default: "", Usage: "trusted registries: asked when a sender's sources fail, used for advertised sources, opened in the SSRF guard"},
		{Command: "serve", Flag: "public-registry", Env: "AGENT_PUBLIC_REGISTRIES", YAML: "publicRegistries", Type: "list of URLs (flag repeatable, variable comma-separated)", Default: "the registries", Usage: "the registries' public base URLs, used in the sources this agent advertises (set it when the agent reaches its registry by an internal name, e.g. http://registry:8080 in compose)"},
		{Command: "serve", Flag: "allow", Env: "AGENT_ALLOW", YAML: "allow", Type: "list of hosts, host:port, IPs or CIDRs", Default: "", Usage: "destinations the fetcher may reach despite the SSRF guard (the flag adds to the file's list)"},
		{Command: "serve", Env: "AGENT_NAME", YAML: "name", Type: "string", Default: DefaultName, Usage: "agent name shown in /.wellknown _meta"},
		{Command: "serve", Env: "AGENT_MAX_REQUEST_BYTES", YAML: "limits.maxRequestBytes", Type: "positive integer (bytes)", Default: fmt.Sprint(DefaultMaxRequestBytes), Usage: "largest transaction body accepted; unset, it is 3 × limits.maxDocumentBytes + 64 KiB, so a document at the limit fits in the SDK's percent-encoded data: URI"},
		{Command: "", Env: "AGENT_LLM_BASE_URL", YAML: "llm.baseURL", Type: "URL", Default: "", Usage: "OpenAI-compatible endpoint (serve: natural-language requests, negotiation, protocols without a routine; empty answers them with failure. send: --negotiate and the suitability check)"},
		{Command: "", Env: "AGENT_LLM_MODEL", YAML: "llm.model", Type: "string", Default: "", Usage: "model name sent to the LLM endpoint"},
		{Command: "", Env: DefaultLLMKeyEnv, Type: "secret string", Default: "", Usage: "API key for the LLM endpoint (the variable's name can be changed with llm.apiKeyEnv)"},
		{Command: "serve", YAML: "negotiated", Type: "list|ignore", Default: "list", Usage: "what becomes of a protocol negotiated with this agent once the sender uses it: list (answer it with the LLM, cache its document, list it in the well-known documents) or ignore"},
		{Command: "send", Env: "AGENT_REGISTRY_TOKEN", Type: "secret string", Default: "", Usage: "bearer token used by `agent send --publish` and `--negotiate` to publish a document"},
	}
}
