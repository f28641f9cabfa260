package config

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Database selects the store; shared by serve, migrate and token.
type Database struct {
	DatabaseURL string // postgres://… ; empty means embedded SQLite under DataDir
	DataDir     string
}

// Options lists the database options.
func (d *Database) Options() []Option {
	return []Option{
		{Flag: "database-url", Env: "REGISTRY_DATABASE_URL", Default: "", Usage: "PostgreSQL URL (postgres://…); empty means the embedded SQLite store under --data-dir", Value: URL(&d.DatabaseURL, true, "postgres", "postgresql")},
		{Flag: "data-dir", Env: "REGISTRY_DATA_DIR", Default: "./data", Usage: "directory of the embedded SQLite store", Value: Text(&d.DataDir)},
	}
}

// Serve is the configuration of `registry serve`.
type Serve struct {
	Database
	Directory
	MatchLLM
	Blobs
	OIDC
	Addr        string
	PublicURL   string // empty means http://<addr>
	OpenPublish bool
	NoExamples  bool

	LogFormat string // json, text or auto
	LogLevel  string

	MaxBodyBytes     int
	MaxDocumentBytes int
	CacheBytes       int
	CacheTTL         time.Duration

	RateLimit        float64 // requests/s per client, all routes; 0 disables
	RateBurst        int
	PublishRateLimit float64 // publishes/s per client; 0 disables
	PublishRateBurst int
	TrustedProxies   []netip.Prefix
	// RateLimitIPv6Prefix is how many leading bits of an IPv6 address are
	// one client for the rate limits and the heavy-request lanes.
	RateLimitIPv6Prefix int
	// RateLimitLoopback limits loopback clients too; by default they are
	// exempt when no trusted proxy is configured (LoopbackUnlimited).
	RateLimitLoopback bool

	Upstreams []string
	// Follow are upstream registries kept as verified replicas through
	// their transparency logs.
	Follow []string
	// FollowTokenFiles are URL=FILE pairs: the read token (a private
	// upstream's) in FILE is sent to that --follow upstream only.
	FollowTokenFiles []string
	// Witnesses are the witnesses asked to cosign the log's checkpoints
	// (VKEY@URL each); WitnessQuorum is how many cosignatures count as
	// enough (0: all of them).
	Witnesses     []string
	WitnessQuorum int
	// OutboundAllow opens the SSRF guard of the registry's own outbound
	// requests (upstream redirects) to private addresses.
	OutboundAllow []string

	// CSRFSecret keys the anti-forgery tokens of the HTML forms; replicas
	// behind one load balancer must share it.
	CSRFSecret string

	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration
	MaxHeaderBytes    int

	// MemoryBudget is the resident memory the server aims to stay under;
	// the Go runtime's soft memory limit is derived from it (GoMemoryLimit).
	// 0: no budget.
	MemoryBudget int
	// MemoryLimit is the Go runtime's soft memory limit in bytes, overriding
	// the one derived from MemoryBudget; 0: derived.
	MemoryLimit int
	// PprofAddr is a loopback address for /debug/pprof; empty: off.
	PprofAddr string
	// DemoListLimit caps one answer of the paper demo's GET / list.
	DemoListLimit int

	// LogKeyFile holds the transparency log's note signing key; empty:
	// the key stored in the database (generated on first start).
	LogKeyFile string
	// LogOrigin names a log whose key is generated; empty: the public
	// URL's host.
	LogOrigin string
}

// Options lists every option of `registry serve`.
func (c *Serve) Options() []Option {
	opts := append(append(append(c.Database.Options(), c.Blobs.Options()...), c.Directory.Options()...), c.MatchLLM.Options()...)
	opts = append(opts, c.OIDC.Options()...)
	return append(opts, []Option{
		addrOption(&c.Addr),
		{Flag: "public-url", Env: "REGISTRY_PUBLIC_URL", Default: "", Usage: "base of the absolute URLs handed out (protocolSources); empty means http://<addr>", Value: Text(&c.PublicURL)},
		{Flag: "open-publish", Env: "REGISTRY_OPEN_PUBLISH", Default: "false", Usage: "allow publishing without a token (private networks only)", Value: Bool(&c.OpenPublish)},
		{Flag: "no-examples", Env: "REGISTRY_NO_EXAMPLES", Default: "false", Usage: "leave a fresh store (either engine) empty instead of importing the example protocols; a store that ever held a document never gets them again", Value: Bool(&c.NoExamples)},
		{Flag: "log-format", Env: "REGISTRY_LOG_FORMAT", Default: "auto", Usage: "log format: json, text, or auto (text on a terminal, JSON otherwise)", Value: Choice(&c.LogFormat, "auto", "json", "text")},
		{Flag: "log-level", Env: "REGISTRY_LOG_LEVEL", Default: "info", Usage: "log level: debug, info, warn or error", Value: Choice(&c.LogLevel, "debug", "info", "warn", "error")},
		{Flag: "max-body-bytes", Env: "REGISTRY_MAX_BODY_BYTES", Default: "3MiB", Usage: "largest request body accepted (413 above)", Value: Size(&c.MaxBodyBytes, 1<<10, 1<<30)},
		maxDocumentBytesOption(&c.MaxDocumentBytes),
		{Flag: "cache-bytes", Env: "REGISTRY_CACHE_BYTES", Default: "8MiB", Usage: "document bytes the cache of hot raw documents may hold (allocator rounding and bookkeeping add about 15%), part of --memory-budget; 0 disables it", Value: Size(&c.CacheBytes, 0, 1<<32-1)},
		{Flag: "cache-ttl", Env: "REGISTRY_CACHE_TTL", Default: "1m", Usage: "how long a cached raw document is served before the store is asked again, and how often the set of documents that are not plainly active (checked before a blob file is served) is reloaded (bounds how long a withdrawal on another replica takes to show)", Value: Duration(&c.CacheTTL)},
		{Flag: "rate-limit", Env: "REGISTRY_RATE_LIMIT", Default: "100", Usage: "requests per second per client on all routes; 0 disables", Value: Rate(&c.RateLimit, false)},
		{Flag: "rate-burst", Env: "REGISTRY_RATE_BURST", Default: "200", Usage: "burst of requests per client above --rate-limit", Value: Count(&c.RateBurst, 1, 1<<20)},
		{Flag: "publish-rate-limit", Env: "REGISTRY_PUBLISH_RATE_LIMIT", Default: "5", Usage: "publishes per second per client; 0 disables", Value: Rate(&c.PublishRateLimit, false)},
		{Flag: "publish-rate-burst", Env: "REGISTRY_PUBLISH_RATE_BURST", Default: "50", Usage: "burst of publishes per client above --publish-rate-limit", Value: Count(&c.PublishRateBurst, 1, 1<<20)},
		{Flag: "trusted-proxies", Env: "REGISTRY_TRUSTED_PROXIES", Default: "", Usage: "comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed; empty means the peer address is the client", Value: Prefixes(&c.TrustedProxies)},
		{Flag: "rate-limit-ipv6-prefix", Env: "REGISTRY_RATE_LIMIT_IPV6_PREFIX", Default: "64", Usage: "leading bits of an IPv6 address that count as one client for the rate limits and the one-search-at-a-time rule (64: a subscriber's network)", Value: Count(&c.RateLimitIPv6Prefix, 1, 128)},
		{Flag: "rate-limit-loopback", Env: "REGISTRY_RATE_LIMIT_LOOPBACK", Default: "false", Usage: "rate-limit loopback clients too; by default, when no --trusted-proxies are set, clients on 127.0.0.0/8 and ::1 (agents on the registry's own host) are not rate-limited", Value: Bool(&c.RateLimitLoopback)},
		{Flag: "upstreams", Env: "REGISTRY_UPSTREAMS", Default: "", Usage: "comma-separated upstream registry base URLs asked on a miss (pull-through mirror)", Value: List(&c.Upstreams)},
		{Flag: "follow", Env: "REGISTRY_FOLLOW", Default: "", Usage: "comma-separated upstream registry base URLs to keep a verified replica of, through their transparency logs (docs/operations.md, followers); the upstreams themselves are always allowed", Value: List(&c.Follow)},
		{Flag: "follow-token-file", Env: "REGISTRY_FOLLOW_TOKEN_FILE", Default: "", Usage: "comma-separated URL=FILE pairs: FILE (a regular file, never a flag value) holds a read token sent to that --follow upstream only, for a private upstream", Value: List(&c.FollowTokenFiles)},
		{Flag: "witness", Env: "REGISTRY_WITNESS", Default: "", Usage: "witnesses asked to cosign each new checkpoint of the transparency log (c2sp.org/tlog-witness), VKEY@URL each (the witness's cosignature verifier key and base URL), comma-separated or repeated; the checkpoint is served with their valid cosignatures (docs/operations.md, witnesses); the witnesses themselves are always allowed", Value: List(&c.Witnesses)},
		{Flag: "witness-quorum", Env: "REGISTRY_WITNESS_QUORUM", Default: "0", Usage: "cosignatures of the newest checkpoint the registry reports as enough (registry_witness_quorum_met, a warning below it); 0: every --witness", Value: Count(&c.WitnessQuorum, 0, 1000)},
		outboundAllowOption(&c.OutboundAllow),
		{Flag: "csrf-secret", Env: "REGISTRY_CSRF_SECRET", Default: "", Usage: "secret keying the HTML forms' CSRF tokens (at least 32 characters); replicas behind one load balancer must share it; empty means a random per-process secret", Value: Text(&c.CSRFSecret)},
		{Flag: "read-header-timeout", Env: "REGISTRY_READ_HEADER_TIMEOUT", Default: "5s", Usage: "time allowed to read request headers", Value: Duration(&c.ReadHeaderTimeout)},
		{Flag: "read-timeout", Env: "REGISTRY_READ_TIMEOUT", Default: "30s", Usage: "time allowed to read a whole request", Value: Duration(&c.ReadTimeout)},
		{Flag: "write-timeout", Env: "REGISTRY_WRITE_TIMEOUT", Default: "30s", Usage: "time allowed to write a response", Value: Duration(&c.WriteTimeout)},
		{Flag: "idle-timeout", Env: "REGISTRY_IDLE_TIMEOUT", Default: "120s", Usage: "keep-alive idle time", Value: Duration(&c.IdleTimeout)},
		{Flag: "shutdown-timeout", Env: "REGISTRY_SHUTDOWN_TIMEOUT", Default: "15s", Usage: "time in-flight requests get on SIGINT/SIGTERM", Value: Duration(&c.ShutdownTimeout)},
		{Flag: "max-header-bytes", Env: "REGISTRY_MAX_HEADER_BYTES", Default: "64KiB", Usage: "largest request header block", Value: Size(&c.MaxHeaderBytes, 1<<10, 1<<24)},
		{Flag: "memory-budget", Env: "REGISTRY_MEMORY_BUDGET", Default: "96MiB", Usage: "resident memory the server aims to stay under (set it below the container's limit): the Go runtime's soft memory limit is derived from it, leaving room for the program's code and, on SQLite, the database's page caches; 0 means no budget (the garbage collector's defaults)", Value: Size(&c.MemoryBudget, 0, 1<<40)},
		{Flag: "memory-limit", Env: "REGISTRY_MEMORY_LIMIT", Default: "0", Usage: "soft memory limit of the Go runtime (the garbage collector works harder near it), overriding the one derived from --memory-budget; 0 means derived (a GOMEMLIMIT environment variable, when set, is kept)", Value: Size(&c.MemoryLimit, 0, 1<<40)},
		{Flag: "demo-list-limit", Env: "REGISTRY_DEMO_LIST_LIMIT", Default: "10000", Usage: "entries one answer of the paper demo's JSON list (GET /, every listed document oldest first) holds at most; past it a Link: <…>; rel=\"next\" header continues the list", Value: Count(&c.DemoListLimit, 1, 1000000)},
		{Flag: "log-key-file", Env: "REGISTRY_LOG_KEY_FILE", Default: "", Usage: "file holding the transparency log's signing key (a note signer key, PRIVATE+KEY+origin+…); empty means the key stored in the database, generated on first start (docs/operations.md, key custody)", Value: Text(&c.LogKeyFile)},
		{Flag: "log-origin", Env: "REGISTRY_LOG_ORIGIN", Default: "", Usage: "name (origin line) of the transparency log when its key is generated on first start; empty means the public URL's host; a stored or given key keeps its own name", Value: Text(&c.LogOrigin)},
		{Flag: "pprof-addr", Env: "REGISTRY_PPROF_ADDR", Default: "", Usage: "loopback address (e.g. 127.0.0.1:6060) of a separate listener serving /debug/pprof for profiling; empty disables it; non-loopback addresses are refused", Value: Text(&c.PprofAddr)},
	}...)
}

// EffectivePublicURL is PublicURL, or HTTPURLOf(addr) when unset; anything
// reached from other machines needs --public-url.
func (c *Serve) EffectivePublicURL() string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	return HTTPURLOf(c.Addr)
}

// HTTPURLOf is http://<addr> for a listen address. A wildcard address
// (":8080", "0.0.0.0:8080", "[::]:8080") names no host a client could
// reach, so it becomes localhost.
func HTTPURLOf(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip, perr := netip.ParseAddr(host); host == "" || (perr == nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// EffectiveLogOrigin is LogOrigin, or the public URL's host (with port).
func (c *Serve) EffectiveLogOrigin() string {
	if c.LogOrigin != "" {
		return c.LogOrigin
	}
	u, err := url.Parse(c.EffectivePublicURL())
	if err != nil || u.Host == "" {
		return "agora-registry"
	}
	return u.Host
}

// LoopbackUnlimited reports whether loopback clients skip the rate limits:
// with no trusted proxy the TCP peer is the client, so a loopback peer is a
// program on this machine (a demo network on one host), never an internet
// client; behind a proxy on the same host the proxy must be listed in
// --trusted-proxies, which turns this off.
func (c *Serve) LoopbackUnlimited() bool {
	return !c.RateLimitLoopback && len(c.TrustedProxies) == 0
}

// Client is the configuration of the client commands (publish, get).
type Client struct {
	Server string
	Token  string // from REGISTRY_TOKEN only: never a flag, so it stays out of shell history and ps
}

// Options lists the client options.
func (c *Client) Options() []Option {
	return []Option{
		{Flag: "server", Env: "REGISTRY_SERVER", Default: "http://127.0.0.1:8080", Usage: "registry base URL for client commands (publish, get); the token comes from REGISTRY_TOKEN", Value: URL(&c.Server, false, "http", "https")},
	}
}

// outboundAllowOption is the one allow-list of the registry's own outbound
// requests (the SSRF guard's exceptions), shared by every command that makes them.
func outboundAllowOption(p *[]string) Option {
	return Option{Flag: "outbound-allow", Env: "REGISTRY_OUTBOUND_ALLOW", Default: "", Usage: "comma-separated CIDRs, IPs, hosts or host:port pairs the registry's own outbound requests may reach although private, loopback or reserved (the upstreams themselves are always allowed)", Value: List(p)}
}
