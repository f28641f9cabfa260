package main

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/api/html"
	"github.com/agora-registry/registry/internal/auth"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/registry"
)

// formKey is the key of the HTML forms' CSRF tokens and of the sign-in's
// login cookie: --csrf-secret, else random for this process.
func formKey(cfg config.Serve) ([]byte, error) {
	if cfg.CSRFSecret != "" && len(cfg.CSRFSecret) < 32 {
		return nil, fmt.Errorf("--csrf-secret must be at least 32 characters")
	}
	if cfg.CSRFSecret != "" {
		return []byte(cfg.CSRFSecret), nil
	}
	key := make([]byte, 32)
	_, err := rand.Read(key)
	return key, err
}

// signIn is the OpenID Connect sign-in, or nil when no issuer is set.
func signIn(cfg config.Serve, st auth.Store, key []byte, log *slog.Logger) (*auth.OIDC, error) {
	if cfg.OIDCIssuer == "" {
		return nil, nil
	}
	ac := auth.Config{Issuer: cfg.OIDCIssuer, ClientID: cfg.OIDCClientID, Scopes: cfg.OIDCScopes, PublicURL: cfg.EffectivePublicURL(),
		AdminGroups: cfg.OIDCAdminGroup, SessionTTL: cfg.OIDCSessionTTL, Key: key, Logger: log}
	for _, r := range cfg.OIDCPublisher {
		rule, err := auth.ParseRule(r)
		if err != nil {
			return nil, err
		}
		ac.Rules = append(ac.Rules, rule)
	}
	if cfg.OIDCClientSecretFile != "" {
		secret, err := auth.ReadSecretFile("OpenID Connect client secret", cfg.OIDCClientSecretFile)
		if err != nil {
			return nil, err
		}
		ac.ClientSecret = secret
	}
	hc, err := client.NewUpstreamHTTP([]string{cfg.OIDCIssuer}, cfg.OutboundAllow, 10*time.Second, 3)
	if err != nil {
		return nil, fmt.Errorf("--oidc-issuer: %w", err)
	}
	ac.HTTPClient = hc
	return auth.New(ac, st)
}

// htmlPages builds the browser interface.
func htmlPages(svc *registry.Service, cfg config.Serve, log *slog.Logger, publishLimit *api.RateLimiter, dir *directory.Directory, key []byte, signin *auth.OIDC) (api.Pages, error) {
	opts := html.Options{
		CSRFSecret:    key,
		Auth:          signin,
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
