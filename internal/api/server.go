// Package api is the registry's HTTP surface except the HTML pages: raw
// documents for protocolSources, the JSON API under /api/v1, the paper
// demo's protocol-DB endpoints, operations endpoints, and the middleware
// every route shares (request ids, logs, metrics, limits, auth, errors).
// Handlers stay thin: they decode, call registry.Service, encode.
package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/ard"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/registry"
)

// Pages is the HTML interface, written in internal/api/html. When set, the
// server hands it the browser-facing routes and HTML error pages.
type Pages interface {
	// Register adds the HTML routes (/protocols, /protocols/{hash},
	// /publish, /tags, /static/*); heavy is the server's bound on
	// concurrent searches, for the routes that search.
	Register(e *echo.Echo, heavy echo.MiddlewareFunc)
	// Home answers GET / for clients that prefer HTML.
	Home(c echo.Context) error
	// RenderError renders an error page for HTML-wanting requests outside
	// the machine paths (/api/, /protocol, …).
	RenderError(c echo.Context, status int, code, message string) error
}

// Config is the server's deployment settings. Zero values get the defaults
// noted beside each field.
type Config struct {
	Logger       *slog.Logger // nil: slog.Default()
	MaxBodyBytes int64        // 0: DefaultMaxBodyBytes
	// TrustedProxies are the peers whose X-Forwarded-For is believed. With
	// none, the TCP peer is the client: X-Forwarded-For is ignored, so it
	// cannot be forged to dodge rate limits.
	TrustedProxies []netip.Prefix
	// IPv6ClientPrefix is how many leading bits of an IPv6 address are one
	// client for the heavy-request lanes (0: DefaultIPv6ClientPrefix); the
	// rate limiters take theirs as IPv6Prefix.
	IPv6ClientPrefix int

	// HTTP server timeouts (Run); zero values get the defaults below.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration
	MaxHeaderBytes    int

	// MaxHeavyRequests bounds concurrent heavy requests (search, batch
	// resolve); 0: DefaultHeavyPerCPU × GOMAXPROCS. A request finding every
	// slot taken waits up to HeavyQueueWait (0: DefaultHeavyQueueWait),
	// then gets 503 with Retry-After; a client's second heavy request waits
	// as long for its first, then gets 429. HeavyWriteStall (0:
	// DefaultHeavyWriteStall) is how long a client may take to accept each
	// 64 KiB of a heavy answer before its connection is dropped.
	MaxHeavyRequests int
	HeavyQueueWait   time.Duration
	HeavyWriteStall  time.Duration

	// DemoListLimit is how many entries one answer of the demo's GET /
	// list holds before a Link header continues it; 0:
	// DefaultDemoListLimit.
	DemoListLimit int
}

// Defaults of Config.
const (
	DefaultMaxBodyBytes      = 3 << 20
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultShutdownTimeout   = 15 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultHeavyPerCPU       = 2
	DefaultHeavyQueueWait    = 250 * time.Millisecond
	DefaultHeavyWriteStall   = 5 * time.Second
)

// Server is the registry's HTTP server.
type Server struct {
	echo    *echo.Echo
	svc     *registry.Service
	cfg     Config
	log     *slog.Logger
	pages   Pages
	auth    *Authenticator
	limit   *RateLimiter // every request
	publish *RateLimiter // publishes
	metrics *metrics
	heavy   *heavyGate
	polls   *longPolls // the change feed's long polls per client (longpoll.go)
	// directory serves /api/v1/agents (agents.go); adoption counts raw
	// fetches and resolutions (nil: not counted).
	directory *directory.Directory
	adoption  *adoption.Counter
	mcp       bool // serve /mcp (mcp.go)
	// ard serves the ARD surface (ard.go); fed is its federation (nil:
	// none).
	ard *ard.Service
	fed *ard.Federation
	// private gates every read (readgate.go); sessions are the signed-in
	// browsers it admits besides read tokens.
	private  bool
	sessions Sessions
	follow   []*follow.Follower
	// draining ends when Run starts shutting down: long polls of the
	// change feed answer then instead of outliving the grace period.
	draining context.Context
	drain    context.CancelFunc
}

// Option configures a Server.
type Option func(*Server)

// WithFollowers exports the followers' lag and fork state as metrics.
func WithFollowers(fs []*follow.Follower) Option { return func(s *Server) { s.follow = fs } }

// WithPages adds the HTML pages.
func WithPages(p Pages) Option { return func(s *Server) { s.pages = p } }

// WithAuthenticator sets who may publish and withdraw; without it nobody
// can (no token is accepted).
func WithAuthenticator(a *Authenticator) Option { return func(s *Server) { s.auth = a } }

// WithRateLimit limits every request per client (nil: unlimited).
func WithRateLimit(l *RateLimiter) Option { return func(s *Server) { s.limit = l } }

// WithPublishRateLimit limits publishes per client (nil: unlimited).
func WithPublishRateLimit(l *RateLimiter) Option { return func(s *Server) { s.publish = l } }

// New builds the server and its routes.
func New(svc *registry.Service, cfg Config, opts ...Option) *Server {
	cfg = withDefaults(cfg)
	s := &Server{svc: svc, cfg: cfg, log: cfg.Logger}
	s.draining, s.drain = context.WithCancel(context.Background())
	for _, o := range opts {
		o(s)
	}
	if s.auth == nil {
		s.auth = NewAuthenticator(svc, false)
	}
	s.metrics = newMetrics(svc)
	s.metrics.follow(s.follow)
	s.polls = newLongPolls(cfg.IPv6ClientPrefix)
	s.metrics.longPolls(s.polls)
	s.heavy = newHeavyGate(cfg)
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.IPExtractor = ipExtractor(cfg.TrustedProxies)
	e.HTTPErrorHandler = s.handleError
	e.Use(s.common)
	s.echo = e
	s.routes()
	if s.pages != nil {
		s.pages.Register(e, s.heavy.middleware)
	}
	return s
}

func withDefaults(c Config) Config {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	def(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&c.ReadTimeout, DefaultReadTimeout)
	def(&c.WriteTimeout, DefaultWriteTimeout)
	def(&c.IdleTimeout, DefaultIdleTimeout)
	def(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if c.IPv6ClientPrefix <= 0 || c.IPv6ClientPrefix > 128 {
		c.IPv6ClientPrefix = DefaultIPv6ClientPrefix
	}
	if c.MaxHeavyRequests <= 0 {
		c.MaxHeavyRequests = DefaultHeavyPerCPU * runtime.GOMAXPROCS(0)
	}
	def(&c.HeavyQueueWait, DefaultHeavyQueueWait)
	def(&c.HeavyWriteStall, DefaultHeavyWriteStall)
	if c.DemoListLimit <= 0 {
		c.DemoListLimit = DefaultDemoListLimit
	}
	return c
}

// Echo exposes the router (tests, embedding).
func (s *Server) Echo() *echo.Echo { return s.echo }

// ServeHTTP answers through the router: every request, raw documents
// included, takes the same middleware.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// Handler is the server's http.Handler.
func (s *Server) Handler() http.Handler { return s }

func (s *Server) routes() {
	e := s.echo
	// Raw documents. The wildcard takes the rest of the path, so a Base64
	// hash works whether its '/' arrives escaped (%2F, kept by echo since it
	// routes on the raw path) or not.
	e.GET("/protocol/*", s.rawByPath)
	e.HEAD("/protocol/*", s.rawByPath)
	e.GET("/protocol", s.rawByQuery)
	e.HEAD("/protocol", s.rawByQuery)
	e.GET("/metadata", s.demoMetadataByQuery)
	// The demo derives a metadata URL from a source by replacing
	// "protocol" with "metadata", so /protocol/{hash} becomes this.
	e.GET("/metadata/*", s.demoMetadataByPath)

	// The JSON list streams up to DemoListLimit entries in a per-client
	// lane; the HTML home page searches under the heavy gate (home).
	e.GET("/", s.home)
	e.HEAD("/", s.home) // net/http drops the body of a HEAD answer
	e.POST("/", s.demoPublish, s.requireScope("publish"), s.publishLimit)

	v1 := e.Group("/api/v1")
	v1.POST("/protocols", s.publishProtocol, s.requireScope("publish"), s.publishLimit)
	v1.GET("/protocols", s.searchProtocols, s.heavy.middleware)
	v1.GET("/protocols/*", s.getProtocol)
	v1.POST("/protocols/*", s.postProtocolSub, s.requireScope("publish"), s.publishLimit)
	v1.DELETE("/protocols/*", s.withdrawProtocol, s.requireScope("admin"))
	v1.GET("/publishers/:name", s.getPublisher)
	v1.POST("/resolve", s.resolve, s.heavy.middleware)
	v1.GET("/tags", s.tags)
	v1.GET("/stats", s.stats)
	v1.GET("/followers", s.followers)
	v1.GET("/openapi.json", s.openAPI)
	s.agentRoutes(v1)
	v1.POST("/match", s.match, s.heavy.middleware)
	s.mcpRoute()
	v1.GET("/changes", s.changes)

	// The transparency log, at sum.golang.org's paths under /log.
	e.GET("/log/checkpoint", s.logCheckpoint)
	e.GET("/log/tile/*", s.logTile)
	e.GET("/log/lookup/*", s.logLookup)
	e.GET("/log/record/:id", s.logRecord)
	e.GET("/.well-known/agora", s.wellKnown)
	s.ardRoutes()

	e.GET("/llms.txt", s.llmsTxt)
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
	e.GET("/metrics", s.metricsHandler())
}
