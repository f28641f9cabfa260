package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/examples"
	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/ard"
	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/translog"
)

func init() {
	register(command{Name: "serve", Summary: "run the registry server (default)", Synopsis: "registry [serve] [flags]", Run: serve})
}

func serve(ctx context.Context, env *environment, args []string) error {
	var cfg config.Serve
	if err := parseFlags(env, flagSet(env, "serve"), cfg.Options(), args); err != nil {
		return err
	}
	log := newLogger(env.Stderr, cfg.LogFormat, cfg.LogLevel)
	slog.SetDefault(log)
	applyMemoryLimit(&cfg, env.Getenv, log)
	if cfg.PprofAddr != "" {
		pln, err := api.ListenPprof(cfg.PprofAddr)
		if err != nil {
			return err
		}
		defer pln.Close()
		log.Info("profiling enabled", "addr", pln.Addr().String())
		go func() { _ = api.ServePprof(ctx, pln) }()
	}

	// Listen first, so --addr with port 0 gives the real port to the public
	// URL default.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if cfg.PublicURL == "" {
		cfg.Addr = ln.Addr().String()
	}

	st, embedded, err := openStore(ctx, cfg.Database)
	if err != nil {
		return fmt.Errorf("opening the database: %w", err)
	}
	defer st.Close()
	// Every background loop stops, in reverse order and waited for, before
	// the store closes.
	var bg workers
	defer bg.stop()

	up, err := upstream(cfg, log)
	if err != nil {
		return err
	}
	key, err := translog.LoadKey(ctx, st, cfg.LogKeyFile, cfg.EffectiveLogOrigin())
	if err != nil {
		return err
	}
	tlog := translog.New(st, key, log)
	cos, err := cosigner(cfg, tlog)
	if err != nil {
		return err
	}
	bg.start(ctx, func(ctx context.Context) { tlog.Run(ctx, translog.DefaultPollInterval) })
	if cos != nil {
		bg.start(ctx, func(ctx context.Context) { cos.Run(ctx, translog.DefaultPollInterval) })
		log.Info("transparency log: witnesses cosign its checkpoints", "witnesses", len(cfg.Witnesses), "quorum", cos.Quorum())
	}
	files, err := blobs.Open(cfg.Blobs.Dir(cfg.Database), int64(cfg.BlobCacheBytes))
	if err != nil && embedded {
		return err
	}
	if err != nil {
		// On PostgreSQL the directory is only a cache: serve without it.
		log.Warn("no blob directory; raw documents are served from the database", "error", err.Error())
		files = nil
	}
	svc := registry.New(st, registry.Config{
		PublicURL:        cfg.EffectivePublicURL(),
		MaxDocumentBytes: cfg.MaxDocumentBytes,
		CacheBytes:       cfg.CacheBytes,
		CacheTTL:         cfg.CacheTTL,
		Blobs:            files,
		Upstream:         up,
		Logger:           log,
		Log:              tlog,
		MatchLLM:         matchLLM(cfg.MatchLLM, env.Getenv),
	})
	if err := svc.RefreshInactive(ctx); err != nil {
		return fmt.Errorf("reading the withdrawn documents: %w", err)
	}
	fol, err := followers(cfg, svc, st, log)
	if err != nil {
		return err
	}
	for _, f := range fol {
		bg.start(ctx, f.Run)
	}
	hooks, err := webhooks(cfg, st, log)
	if err != nil {
		return err
	}
	bg.start(ctx, hooks.Run)
	if !cfg.NoExamples {
		n, err := svc.SeedExamples(ctx, examples.Protocols, "protocols")
		if err != nil {
			return fmt.Errorf("importing the example protocols: %w", err)
		}
		if n > 0 {
			log.Info("fresh store: imported example protocols", "count", n)
		}
	}

	auth := api.NewAuthenticator(svc, cfg.OpenPublish)
	limitOpts := []api.LimiterOption{api.IPv6Prefix(cfg.RateLimitIPv6Prefix)}
	if cfg.LoopbackUnlimited() {
		limitOpts = append(limitOpts, api.ExemptLoopback())
	}
	publishLimit := api.NewRateLimiter(cfg.PublishRateLimit, cfg.PublishRateBurst, "publishes", limitOpts...)
	dir, err := directory.New(st, directory.Config{Interval: cfg.AgentCrawlInterval, Concurrency: cfg.AgentCrawlConcurrency,
		MaxFailures: cfg.AgentMaxFailures, Timeout: cfg.AgentCrawlTimeout, MaxBytes: cfg.AgentWellKnownBytes,
		PerClientDay: cfg.AgentsPerClientDay, PerClientTotal: cfg.AgentsPerClient, ClientQueue: cfg.AgentClientQueue,
		RegisterWait: cfg.AgentRegisterWait, Allow: cfg.OutboundAllow, Logger: log})
	if err != nil {
		return fmt.Errorf("agent directory: %w", err)
	}
	bg.onStop(dir.Close) // its crawls end after its loop
	bg.start(ctx, dir.Run)
	counter := adoption.New(st, log, nil)
	// The counter outlives the server's context: its last flush runs after
	// the last request has finished, first of the shutdown steps.
	bg.start(context.WithoutCancel(ctx), func(ctx context.Context) { counter.Run(ctx, cfg.AdoptionFlush) })
	opts := []api.Option{
		api.WithDirectory(dir), api.WithAdoption(counter),
		api.WithFollowers(fol),
		api.WithAuthenticator(auth),
		api.WithRateLimit(api.NewRateLimiter(cfg.RateLimit, cfg.RateBurst, "requests", limitOpts...)),
		api.WithPublishRateLimit(publishLimit),
	}
	if cfg.MCP {
		opts = append(opts, api.WithMCP())
	}
	if len(cfg.Follow) > 0 {
		fed, err := ard.NewFederation(cfg.Follow, cfg.OutboundAllow)
		if err != nil {
			return err
		}
		opts = append(opts, api.WithFederation(fed))
	}
	formSecret, err := formKey(cfg)
	if err != nil {
		return err
	}
	signin, err := signIn(cfg, st, formSecret, log)
	if err != nil {
		return err
	}
	pages, err := htmlPages(svc, cfg, log, publishLimit, dir, formSecret, signin)
	if err != nil {
		return err
	}
	opts = append(opts, api.WithPages(pages), api.WithReadGate(cfg.Private, signin))
	srv := api.New(svc, api.Config{
		Logger: log, MaxBodyBytes: int64(cfg.MaxBodyBytes), TrustedProxies: cfg.TrustedProxies,
		IPv6ClientPrefix:  cfg.RateLimitIPv6Prefix,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout, ReadTimeout: cfg.ReadTimeout, WriteTimeout: cfg.WriteTimeout,
		IdleTimeout: cfg.IdleTimeout, ShutdownTimeout: cfg.ShutdownTimeout, MaxHeaderBytes: cfg.MaxHeaderBytes,
		DemoListLimit: cfg.DemoListLimit,
	}, opts...)
	log.Info("registry starting", "engine", st.Engine(), "publicUrl", cfg.EffectivePublicURL(), "openPublish", cfg.OpenPublish, "private", cfg.Private, "signIn", cfg.OIDCIssuer,
		"loopbackRateLimited", !cfg.LoopbackUnlimited(), "logOrigin", tlog.Origin(), "logKey", tlog.VerifierKey())
	log.Info("open " + cfg.EffectivePublicURL() + " in a browser")
	return srv.Run(ctx, ln)
}

// newLogger logs as format says; "auto" is text on a terminal (a person
// reads it) and JSON otherwise (a collector does).
func newLogger(w io.Writer, format, level string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	opts := &slog.HandlerOptions{Level: lv}
	if format == "text" || format == "auto" && isTerminal(w) {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// matchLLM is the model re-ranking matches, when one is configured.
func matchLLM(c config.MatchLLM, getenv func(string) string) registry.MatchLLM {
	m := registry.MatchLLM{Top: c.LLMRerank, Timeout: c.LLMTimeout, Concurrency: c.LLMConcurrency,
		PerMinute: c.LLMPerMinute, ClientPerMinute: c.LLMClientPerMinute, CacheEntries: c.LLMCacheEntries}
	if c.LLMBaseURL != "" {
		m.Model = &agora.LLM{BaseURL: c.LLMBaseURL, Model: c.LLMModel, APIKey: getenv("REGISTRY_LLM_API_KEY"),
			Timeout: c.LLMTimeout, MaxResponse: registry.MaxRerankAnswerBytes}
	}
	return m
}
