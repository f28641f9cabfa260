package agent

import (
	"fmt"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/config"
)

// Options is the agent's option table (internal/config): every key of the
// YAML file, with the flags and AGENT_* variables that override it, read
// flags > environment > file > default like the registry's options. file
// receives the --config path.
func (c *Config) Options(file *string) []config.Option {
	l, cv := &c.Limits, &c.Conversations
	return []config.Option{
		{Flag: "config", Env: "AGENT_CONFIG", Usage: "YAML config file (examples/agent.yaml shows every key); empty means defaults, variables and flags only", Value: config.File(file)},
		{Flag: "addr", Env: "AGENT_ADDR", Key: "addr", Default: DefaultAddr, Usage: "address to listen on", Value: config.HostPort(&c.Addr)},
		{Env: "AGENT_NAME", Key: "name", Default: DefaultName, Usage: "agent name shown in /.wellknown _meta", Value: config.Text(&c.Name)},
		{Key: "description", Usage: "what the agent does, shown in /.wellknown _meta", Value: config.Text(&c.Description)},
		{Key: "kinds", Usage: "kinds of protocols usually supported, shown in /.wellknown _meta", Value: config.List(&c.Kinds)},
		{Flag: "cache-dir", Env: "AGENT_CACHE_DIR", Key: "cacheDir", Default: DefaultCacheDir, Usage: "directory of the verified protocol-document cache", Value: config.Text(&c.CacheDir)},
		{Flag: "log-level", Env: "AGENT_LOG_LEVEL", Key: "logLevel", Default: "info", Usage: "log level (logs are JSON on stderr)", Value: config.Choice(&c.LogLevel, "debug", "info", "warn", "error")},
		registriesOption(&c.Registries),
		{Flag: "registry-log-key", Env: "AGENT_REGISTRY_LOG_KEYS", Key: "registryLogKeys", Usage: "URL=KEY: pin a registry's transparency-log verifier key (the log.verifierKey of its /.well-known/agora, checked out of band); a document obtained through that registry (one of the registries) is used only with a valid proof that its log includes it, else rejected with protocol_unproved", Value: config.URLPairs(&c.RegistryLogKeys)},
		{Flag: "trust-log-key", Env: "AGENT_TRUST_LOG_KEYS", Key: "trust.logKeys", Usage: "transparency-log verifier keys (note format) this agent trusts; when set, a protocol document from any source (a sender's URL or data: URI, the cache, a registry) is used only with a valid c2sp.org/tlog-proof from one of these logs, fetched from {registry}/protocol/{hash}.tlog-proof of the registries, else rejected with protocol_unproved; documents of this config's protocols are taken as given", Value: config.List(&c.Trust.LogKeys)},
		{Flag: "trust-witness-key", Env: "AGENT_TRUST_WITNESS_KEYS", Key: "trust.witnessKeys", Usage: "witness cosignature verifier keys (c2sp.org/tlog-cosignature); trust.quorum of them must have cosigned a proof's checkpoint", Value: config.List(&c.Trust.WitnessKeys)},
		{Flag: "trust-quorum", Env: "AGENT_TRUST_QUORUM", Key: "trust.quorum", Default: "0", Usage: "how many distinct trust.witnessKeys witnesses must have cosigned a proof's checkpoint (0: the log's signature alone)", Value: config.Count(&c.Trust.Quorum, 0, 100)},
		{Flag: "public-url", Env: "AGENT_PUBLIC_URL", Key: "publicURL", Usage: "the agent's base URL as others reach it, given to the registries it announces itself to; empty means http://<listen address> (a wildcard host becomes localhost)", Value: config.URL(&c.PublicURL, true, "http", "https")},
		{Flag: "announce", Env: "AGENT_ANNOUNCE", Key: "announce", Usage: "registry base URLs to register this agent with (POST /api/v1/agents, token in AGENT_REGISTRY_TOKEN) at start and after every change of its supported list; failures are logged and retried with backoff", Value: config.List(&c.Announce)},
		{Flag: "public-registry", Env: "AGENT_PUBLIC_REGISTRIES", Key: "publicRegistries", Usage: "the registries' public base URLs, used in the sources this agent advertises (set it when the agent reaches its registry by an internal name, e.g. http://registry:8080 in compose); empty means the registries", Value: config.List(&c.PublicRegistries)},
		{Flag: "allow", Env: "AGENT_ALLOW", Key: "allow", Usage: "hosts, host:port pairs, IPs or CIDRs the fetcher may reach despite the SSRF guard", Value: config.List(&c.Allow)},
		{Env: "AGENT_MAX_REQUEST_BYTES", Key: "limits.maxRequestBytes", Default: "0", Usage: "largest transaction body accepted; 0 means 3 × limits.maxDocumentBytes + 64KiB, so a document at the limit fits in the SDK's percent-encoded data: URI", Value: config.Size(&l.MaxRequestBytes, 0, 1<<30)},
		{Env: "AGENT_MAX_DOCUMENT_BYTES", Key: "limits.maxDocumentBytes", Default: "1MiB", Usage: "largest protocol document accepted", Value: config.Size(&l.MaxDocumentBytes, 1, 1<<28)},
		{Key: "limits.maxSources", Default: "8", Usage: "sources tried per request", Value: config.Count(&l.MaxSources, 1, 64)},
		{Key: "limits.fetchTimeout", Default: "10s", Usage: "one fetch of a source, redirects included", Value: config.Duration(&l.FetchTimeout)},
		{Key: "limits.maxRedirects", Default: "3", Usage: "redirects followed per fetch", Value: config.Count(&l.MaxRedirects, 0, 20)},
		{Key: "limits.requestTimeout", Default: "90s", Usage: "one whole transaction", Value: config.Duration(&l.RequestTimeout)},
		{Key: "limits.maxCacheBytes", Default: "64MiB", Usage: "disk cache; the least recently used documents are deleted first", Value: config.Size(&l.MaxCacheBytes, 0, 1<<40)},
		{Key: "limits.perClientRate", Default: fmt.Sprint(DefaultPerClientRate), Usage: "transactions and follow-ups a second per client (IPv4 address or IPv6 /64), checked before the body is read; negative means unlimited", Value: config.Rate(&l.PerClientRate, true)},
		{Key: "limits.perClientBurst", Default: fmt.Sprint(DefaultPerClientBurst), Usage: "burst per client above limits.perClientRate", Value: config.Count(&l.PerClientBurst, 1, 1<<20)},
		{Key: "limits.perClientInFlight", Default: fmt.Sprint(DefaultPerClientFlight), Usage: "requests per client in progress at once", Value: config.Count(&l.PerClientInFlight, 1, 1<<16)},
		{Key: "conversations.max", Default: fmt.Sprint(DefaultMaxConvs), Usage: "multi-round conversations open at once", Value: config.Count(&cv.Max, 1, 1<<24)},
		{Key: "conversations.perClient", Default: fmt.Sprint(DefaultConvsPerClient), Usage: "conversations open at once per client address (IPv6: per /64)", Value: config.Count(&cv.PerClient, 1, 1<<24)},
		{Key: "conversations.idleExpiry", Default: DefaultIdleExpiry.String(), Usage: "a conversation without a turn for this long ends", Value: config.Duration(&cv.IdleExpiry)},
		{Key: "conversations.maxTurns", Default: fmt.Sprint(DefaultMaxTurns), Usage: "history turns kept per conversation", Value: config.Count(&cv.MaxTurns, 1, 1<<20)},
		{Key: "conversations.maxHistoryBytes", Default: "256KiB", Usage: "history kept per conversation; the oldest turns are dropped", Value: config.Size(&cv.MaxHistoryBytes, 1<<10, 1<<30)},
		{Key: "conversations.maxTotalBytes", Default: "64MiB", Usage: "documents and histories of all conversations together", Value: config.Size(&cv.MaxTotalBytes, 1<<10, 1<<40)},
		{Env: "AGENT_LLM_BASE_URL", Key: "llm.baseURL", Usage: "OpenAI-compatible endpoint for natural-language requests (e.g. http://127.0.0.1:11434/v1); empty answers them with failure", Value: config.URL(&c.LLM.BaseURL, true, "http", "https")},
		{Env: "AGENT_LLM_MODEL", Key: "llm.model", Usage: "model name sent to the LLM endpoint", Value: config.Text(&c.LLM.Model)},
		{Key: "llm.apiKeyEnv", Default: DefaultLLMKeyEnv, Usage: "the variable holding the LLM endpoint's API key (" + DefaultLLMKeyEnv + " unless changed here)", Value: config.Text(&c.LLM.APIKeyEnv)},
		{Key: "llm.timeout", Default: "0s", Usage: "one call of the LLM endpoint; 0 means 60s", Value: config.Duration(&c.LLM.Timeout)},
		{Key: "protocols", Usage: "the protocols this agent implements, each with its routine (hash or document, sources, routine: builtin, exec, http or llm); see docs/agent.md", Value: config.Section(&c.Protocols)},
		{Key: "negotiated", Default: "list", Usage: "what becomes of a protocol negotiated with this agent once the sender uses it: list (answer it with the LLM, cache its document, list it in the well-known documents) or ignore", Value: config.Choice(&c.Negotiated, "list", "ignore")},
		{Key: "unsupported", Usage: "hashes refused without any fetch, listed in /.wellknown as unsupported", Value: config.List(&c.Unsupported)},
	}
}

func registriesOption(p *[]string) config.Option {
	return config.Option{Flag: "registry", Env: "AGENT_REGISTRIES", Key: "registries", Usage: "trusted registry base URLs: asked when a sender's sources fail, used for advertised sources, opened in the SSRF guard", Value: config.List(p)}
}

// SendConfig is the configuration of `agent send`.
type SendConfig struct {
	To, Body, BodyFile, Task string
	// Speaking picks the target from the registries' directories instead
	// of To; Allow opens the SSRF guard for a target so picked.
	Speaking                string
	Allow                   []string
	Publish, Natural, Multi bool
	Conversation, End       string
	Timeout                 time.Duration
	HashSpelling            string
	Protocols, Registries   []string
	// Negotiation (--negotiate) and the LLM suitability check.
	Negotiate                 bool
	InputSchema, OutputSchema string
	LLMBaseURL, LLMModel      string
	MaxRounds, MaxChecks      int
}

// Options lists the options of `agent send`.
func (s *SendConfig) Options() []config.Option {
	return []config.Option{
		{Flag: "to", Usage: "the receiving agent's URL (or --speaking)", Value: config.URL(&s.To, true, "http", "https")},
		{Flag: "speaking", Usage: "instead of --to: a protocol hash; the target is an agent the --registry directories list as speaking it (the most recently seen first, its /.wellknown checked), reached through the SSRF guard; the hash is also the first --protocol", Value: config.Text(&s.Speaking)},
		{Flag: "allow", Usage: "hosts, host:port pairs, IPs or CIDRs a target picked with --speaking may be at although private or loopback", Value: config.List(&s.Allow)},
		{Flag: "body", Usage: "the request body (or --body-file)", Value: config.Text(&s.Body)},
		{Flag: "body-file", Usage: "read the body from this file (- for stdin)", Value: config.Text(&s.BodyFile)},
		{Flag: "task", Usage: "words describing the task, matched against protocol metadata", Value: config.Text(&s.Task)},
		{Flag: "protocol", Usage: "a protocol we implement: a document file, a hash, or a hex prefix of 8+ digits the registries know, repeatable, in order of preference", Value: config.Paths(&s.Protocols)},
		registriesOption(&s.Registries),
		{Flag: "publish", Default: "false", Usage: "publish the chosen or negotiated document to the first registry if it is not there yet (token in AGENT_REGISTRY_TOKEN); without it a negotiated one goes inline", Value: config.Bool(&s.Publish)},
		{Flag: "natural", Default: "false", Usage: "send a natural-language request (protocolHash null) when no protocol fits", Value: config.Bool(&s.Natural)},
		{Flag: "multiround", Default: "false", Usage: "open a multi-round conversation", Value: config.Bool(&s.Multi)},
		{Flag: "conversation", Usage: "continue this conversation instead of starting a transaction", Value: config.Text(&s.Conversation)},
		{Flag: "end", Usage: "end this conversation", Value: config.Text(&s.End)},
		{Flag: "timeout", Default: "2m", Usage: "give up after this long", Value: config.Duration(&s.Timeout)},
		{Flag: "hash-spelling", Usage: "write protocolHash as hex or base64; empty means as the target lists its hashes, else base64 (the SDK's)", Value: config.Choice(&s.HashSpelling, "", "hex", "base64")},
		{Flag: "negotiate", Default: "false", Usage: "when no protocol fits, negotiate one with the target's LLM (needs an LLM: --llm-base-url), publish it, then send", Value: config.Bool(&s.Negotiate)},
		{Flag: "input-schema", Usage: "JSON Schema file of the task's input, for the LLM", Value: config.Text(&s.InputSchema)},
		{Flag: "output-schema", Usage: "JSON Schema file of the task's output, for the LLM", Value: config.Text(&s.OutputSchema)},
		{Flag: "llm-base-url", Env: "AGENT_LLM_BASE_URL", Usage: "OpenAI-compatible endpoint for --negotiate and the suitability check", Value: config.URL(&s.LLMBaseURL, true, "http", "https")},
		{Flag: "llm-model", Env: "AGENT_LLM_MODEL", Usage: "model name sent to the LLM endpoint", Value: config.Text(&s.LLMModel)},
		{Flag: "max-rounds", Default: fmt.Sprint(agora.DefaultNegotiationRounds), Usage: "messages the LLM may write in a negotiation", Value: config.Count(&s.MaxRounds, 1, 100)},
		{Flag: "max-checks", Default: fmt.Sprint(agora.DefaultMaxSuitabilityChecks), Usage: "candidates the LLM judges before negotiating", Value: config.Count(&s.MaxChecks, 0, 50)},
	}
}

// WellknownConfig is the configuration of `agent wellknown`.
type WellknownConfig struct{ Timeout time.Duration }

// Options lists the options of `agent wellknown`.
func (w *WellknownConfig) Options() []config.Option {
	return []config.Option{{Flag: "timeout", Default: "30s", Usage: "give up after this long", Value: config.Duration(&w.Timeout)}}
}

// HealthcheckConfig is the configuration of `agent healthcheck`: the listen
// address read as serve reads it (the config file is not read, so a file
// the probe cannot see cannot fail the container's health).
type HealthcheckConfig struct{ Addr string }

// Options lists the options of `agent healthcheck`.
func (h *HealthcheckConfig) Options() []config.Option {
	return []config.Option{{Flag: "addr", Env: "AGENT_ADDR", Default: DefaultAddr, Usage: "the agent's listen address; the probe asks 127.0.0.1 on its port", Value: config.HostPort(&h.Addr)}}
}

// Commands lists the agent's subcommands that take options.
func Commands() []config.Command {
	var file string
	return []config.Command{
		{Name: "serve", Options: (&Config{}).Options(&file)},
		{Name: "send", Options: (&SendConfig{}).Options()},
		{Name: "wellknown", Options: (&WellknownConfig{}).Options()},
		{Name: "healthcheck", Options: (&HealthcheckConfig{}).Options()},
	}
}

// SecretVariables are read outside the table: secrets never become flags,
// so they stay out of shell history and ps.
var SecretVariables = []struct{ Name, Commands, Usage string }{
	{DefaultLLMKeyEnv, "serve", "API key for the LLM endpoint (the variable's name can be changed with llm.apiKeyEnv)"},
	{"AGENT_REGISTRY_TOKEN", "send, serve", "bearer token `agent send --publish` publishes a missing document with, and `agent serve --announce` registers the agent with"},
}
