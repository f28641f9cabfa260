package main

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/api/html"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/registry"
)

// htmlPages builds the browser interface.
func htmlPages(svc *registry.Service, cfg config.Serve, log *slog.Logger, publishLimit *api.RateLimiter, dir *directory.Directory) (api.Pages, error) {
	if cfg.CSRFSecret != "" && len(cfg.CSRFSecret) < 32 {
		return nil, fmt.Errorf("--csrf-secret must be at least 32 characters")
	}
	opts := html.Options{
		CSRFSecret:    []byte(cfg.CSRFSecret),
		OpenPublish:   cfg.OpenPublish,
		SecureCookies: strings.HasPrefix(cfg.EffectivePublicURL(), "https://"),
		Logger:        log,
		Directory:     dir,
	}
	if publishLimit != nil {
		opts.PublishLimit = publishLimit.Middleware
	}
	p, err := html.New(svc, opts)
	if err != nil {
		return nil, fmt.Errorf("loading the HTML pages: %w", err)
	}
	return p, nil
}

// upstream returns the pull-through mirror over --upstreams, or nil when
// none are configured.
func upstream(cfg config.Serve, log *slog.Logger) (registry.Upstream, error) {
	if len(cfg.Upstreams) == 0 {
		return nil, nil
	}
	hc, err := client.NewUpstreamHTTP(cfg.Upstreams, cfg.OutboundAllow, registry.DefaultMirrorTimeout, registry.DefaultMirrorRedirects)
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	ups := make([]registry.UpstreamRegistry, 0, len(cfg.Upstreams))
	for _, base := range cfg.Upstreams {
		c, err := client.New(base, hc)
		if err != nil {
			return nil, fmt.Errorf("mirror: upstream: %w", err)
		}
		c.MaxBytes = cfg.MaxDocumentBytes
		c.UserAgent = "agora-registry-mirror/1"
		ups = append(ups, c)
	}
	m, err := registry.NewMirror(registry.MirrorConfig{Upstreams: ups, MaxDocumentBytes: cfg.MaxDocumentBytes, Logger: log})
	if err != nil {
		return nil, err
	}
	return m, nil
}
