// Package agent is the reference Agora agent: it receives transactions,
// resolves and verifies protocol documents, answers them with routines,
// publishes /.wellknown, keeps multi-round conversations, and sends
// transactions to other agents.
package agent

import (
	"github.com/agora-registry/registry/agora"
	"path/filepath"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/protocol"
)

// Config is the agent's configuration, read through its option table
// (Options): defaults, the YAML file (examples/agent.yaml), AGENT_*
// variables, flags.
type Config struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Kinds       []string `yaml:"kinds"` // kinds of protocols usually supported, shown in _meta
	Addr        string   `yaml:"addr"`
	CacheDir    string   `yaml:"cacheDir"`
	// Registries are trusted base URLs, asked when the sender's sources fail
	// and used for the sources this agent advertises. Their host:port is
	// added to the fetch allow-list automatically.
	Registries []string `yaml:"registries"`
	// RegistryLogKeys pin registries' transparency-log verifier keys (by
	// base URL, one of Registries): a document obtained through such a
	// registry is used only with a valid proof that its log includes it.
	RegistryLogKeys map[string]string `yaml:"registryLogKeys"`
	// Trust, when it names log keys, makes every protocol document need a
	// c2sp.org/tlog-proof from one of those logs with the witness quorum,
	// fetched from the registries, whatever source it came from.
	Trust TrustConfig `yaml:"trust"`
	// PublicRegistries are the same registries' public base URLs, used in
	// advertised sources, which whoever reads them must be able to reach;
	// empty means Registries.
	PublicRegistries []string `yaml:"publicRegistries"`
	// PublicURL is the agent's base URL as others reach it, announced to
	// the Announce registries; empty means http://<listen address>.
	PublicURL string   `yaml:"publicURL"`
	Announce  []string `yaml:"announce"`
	// Allow opens the SSRF guard: CIDRs, IPs, host names or host:port.
	Allow         []string           `yaml:"allow"`
	Limits        Limits             `yaml:"limits"`
	Conversations ConversationLimits `yaml:"conversations"`
	LLM           LLMConfig          `yaml:"llm"`
	Protocols     []ProtocolConfig   `yaml:"protocols"`
	Unsupported   []string           `yaml:"unsupported"` // explicitly unsupported hashes: rejected without any fetch
	LogLevel      string             `yaml:"logLevel"`
	baseDir       string             // directory of the config file, for relative paths

	// Negotiated is what becomes of a protocol negotiated here once it is
	// used: "list" (default) answers it with the LLM and lists it, "ignore" does not.
	Negotiated string `yaml:"negotiated"`
}

// TrustConfig is the agent's proof requirement: the logs it trusts (note
// verifier keys) and the witnesses, Quorum of which must have cosigned
// each proof's checkpoint.
type TrustConfig struct {
	LogKeys     []string `yaml:"logKeys"`
	WitnessKeys []string `yaml:"witnessKeys"`
	Quorum      int      `yaml:"quorum"`
}

// policies are the resolver's WitnessPolicy per trusted log, or none.
func (t TrustConfig) policies() []agora.WitnessPolicy {
	var out []agora.WitnessPolicy
	for _, k := range t.LogKeys {
		out = append(out, agora.WitnessPolicy{LogKey: k, WitnessKeys: t.WitnessKeys, Quorum: t.Quorum})
	}
	return out
}

// Limits bound everything the agent does on behalf of a stranger.
type Limits struct {
	MaxRequestBytes  int           `yaml:"maxRequestBytes"`  // request body; default RequestBytesFor(MaxDocumentBytes)
	MaxDocumentBytes int           `yaml:"maxDocumentBytes"` // protocol document; default 1 MiB
	MaxSources       int           `yaml:"maxSources"`       // sources tried per request; default 8
	FetchTimeout     time.Duration `yaml:"fetchTimeout"`     // one fetch incl. redirects; default 10s
	MaxRedirects     int           `yaml:"maxRedirects"`     // default 3
	RequestTimeout   time.Duration `yaml:"requestTimeout"`   // whole transaction; default 90s
	MaxCacheBytes    int           `yaml:"maxCacheBytes"`    // disk cache; default 64 MiB, least recently used evicted
	// Per client (IPv4 address or IPv6 /64), checked before the body is read.
	PerClientRate     float64 `yaml:"perClientRate"`     // transactions and follow-ups a second; default 20, negative: unlimited
	PerClientBurst    int     `yaml:"perClientBurst"`    // default 40
	PerClientInFlight int     `yaml:"perClientInFlight"` // requests in progress at once; default 4
}

// ConversationLimits bound multi-round state (conversation_budget.go).
type ConversationLimits struct {
	Max             int           `yaml:"max"`             // open at once; default 1000
	PerClient       int           `yaml:"perClient"`       // open at once per client address (IPv6: per /64); default 16
	IdleExpiry      time.Duration `yaml:"idleExpiry"`      // default 10m
	MaxTurns        int           `yaml:"maxTurns"`        // history kept per conversation; default 50
	MaxHistoryBytes int           `yaml:"maxHistoryBytes"` // history kept per conversation; default 256 KiB, oldest turns dropped
	MaxTotalBytes   int           `yaml:"maxTotalBytes"`   // documents and histories of all conversations; default 64 MiB
}

// LLMConfig points at an OpenAI-compatible endpoint; empty BaseURL means none.
type LLMConfig struct {
	BaseURL   string        `yaml:"baseURL"` // e.g. http://127.0.0.1:11434/v1
	Model     string        `yaml:"model"`
	APIKeyEnv string        `yaml:"apiKeyEnv"` // variable holding the key; default AGENT_LLM_API_KEY
	Timeout   time.Duration `yaml:"timeout"`
}

// ProtocolConfig maps one protocol to a routine.
type ProtocolConfig struct {
	Hash     string        `yaml:"hash"`     // either spelling; may be omitted when document is given
	Document string        `yaml:"document"` // local file with the document, seeded into the cache
	Sources  []string      `yaml:"sources"`  // advertised in /.wellknown; default: registry raw URLs
	Routine  RoutineConfig `yaml:"routine"`
}

// RoutineConfig names exactly one routine.
type RoutineConfig struct {
	Builtin string      `yaml:"builtin"` // "weather"
	Exec    *ExecConfig `yaml:"exec"`
	HTTP    *HTTPConfig `yaml:"http"`
	LLM     bool        `yaml:"llm"` // answer with the configured LLM
}

// ExecConfig runs a command: body on stdin, answer on stdout.
type ExecConfig struct {
	Command        string        `yaml:"command"`
	Args           []string      `yaml:"args"`
	Dir            string        `yaml:"dir"`
	Env            []string      `yaml:"env"`
	Timeout        time.Duration `yaml:"timeout"`        // default 10s
	MaxOutputBytes int           `yaml:"maxOutputBytes"` // default 1 MiB
}

// HTTPConfig forwards the body to a URL.
type HTTPConfig struct {
	URL              string        `yaml:"url"`
	Timeout          time.Duration `yaml:"timeout"`          // default 10s
	MaxResponseBytes int           `yaml:"maxResponseBytes"` // default 1 MiB
}

// Defaults: the binary's own, and agora.Handler's limits (one copy).
const (
	DefaultAddr            = "127.0.0.1:8081"
	DefaultName            = "agora-agent"
	DefaultCacheDir        = "agent-cache"
	DefaultMaxRequestBytes = 3*protocol.DefaultMaxDocumentBytes + RequestEnvelopeBytes
	DefaultRequestTimeout  = agora.DefaultRequestTimeout
	DefaultMaxConvs        = agora.DefaultMaxConvs
	DefaultIdleExpiry      = agora.DefaultIdleExpiry
	DefaultMaxTurns        = agora.DefaultMaxTurns
	DefaultConvsPerClient  = agora.DefaultConvsPerClient
	DefaultPerClientRate   = agora.DefaultPerClientRate
	DefaultPerClientBurst  = agora.DefaultPerClientBurst
	DefaultPerClientFlight = agora.DefaultPerClientFlight
	DefaultMaxHistoryBytes = agora.DefaultMaxHistoryBytes
	DefaultMaxConvBytes    = agora.DefaultMaxConvBytes
	DefaultLLMKeyEnv       = "AGENT_LLM_API_KEY"
)

// RequestEnvelopeBytes is what a transaction may carry beside one inlined
// protocol document: keys, hash, body and further sources.
const RequestEnvelopeBytes = 64 << 10

// RequestBytesFor is the request limit that lets a document of maxDocument
// bytes travel inline the way the SDK sends it: percent-encoded in a data:
// URI, where every byte outside A-Z a-z 0-9 _.-~/ becomes three characters
// (3x at worst, about 2.5x for typical Markdown), plus the envelope.
func RequestBytesFor(maxDocument int) int { return 3*maxDocument + RequestEnvelopeBytes }

// LoadConfig reads a YAML config file through the option table (Options):
// defaults, then the file; unknown keys are an error, so typos do not
// silently change behaviour.
func LoadConfig(path string) (Config, error) {
	var c Config
	opts := c.Options(new(string))
	if err := config.SetDefaults(opts); err != nil {
		return c, err
	}
	if err := config.ApplyFile(path, opts); err != nil {
		return c, err
	}
	return c, c.SetConfigPath(path)
}

// SetConfigPath records the config file's directory, against which the
// file's relative paths (protocol documents, exec directories) resolve.
func (c *Config) SetConfigPath(path string) error {
	if path == "" {
		c.baseDir = ""
		return nil
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	c.baseDir = abs
	return nil
}

// ApplyEnv overrides the config from AGENT_* variables (getenv is
// os.Getenv outside tests), as the option table lists them.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	return config.ApplyEnv(c.Options(new(string)), getenv)
}

// withDefaults fills every zero limit.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.CacheDir == "" {
		c.CacheDir = DefaultCacheDir
	}
	if c.Limits.MaxDocumentBytes <= 0 {
		c.Limits.MaxDocumentBytes = protocol.DefaultMaxDocumentBytes
	}
	if c.Limits.MaxRequestBytes <= 0 {
		c.Limits.MaxRequestBytes = RequestBytesFor(c.Limits.MaxDocumentBytes)
	}
	if c.Limits.RequestTimeout <= 0 {
		c.Limits.RequestTimeout = DefaultRequestTimeout
	}
	if c.Limits.PerClientRate == 0 {
		c.Limits.PerClientRate = DefaultPerClientRate
	}
	if c.Limits.PerClientBurst <= 0 {
		c.Limits.PerClientBurst = DefaultPerClientBurst
	}
	if c.Limits.PerClientInFlight <= 0 {
		c.Limits.PerClientInFlight = DefaultPerClientFlight
	}
	// Conversations left at zero take agora.Handler's defaults.
	if c.LLM.APIKeyEnv == "" {
		c.LLM.APIKeyEnv = DefaultLLMKeyEnv
	}
	for i, r := range c.Registries {
		c.Registries[i] = strings.TrimRight(r, "/")
	}
	for i, r := range c.PublicRegistries {
		c.PublicRegistries[i] = strings.TrimRight(r, "/")
	}
	return c
}

// path resolves a path from the config file relative to its directory.
func (c Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) || c.baseDir == "" {
		return p
	}
	return filepath.Join(c.baseDir, p)
}
