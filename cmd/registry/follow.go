package main

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agora-registry/registry/internal/auth"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// followTimeout bounds one request to an upstream; it must outlast the
// follower's long poll of the upstream's feed.
const followTimeout = 45 * time.Second

// followers builds one follower per --follow upstream.
func followers(cfg config.Serve, svc *registry.Service, st store.Store, log *slog.Logger) ([]*follow.Follower, error) {
	if len(cfg.Follow) == 0 {
		return nil, nil
	}
	hc, err := client.NewUpstreamHTTP(cfg.Follow, cfg.OutboundAllow, followTimeout, registry.DefaultMirrorRedirects)
	if err != nil {
		return nil, fmt.Errorf("follow: %w", err)
	}
	tokens, err := followTokens(cfg)
	if err != nil {
		return nil, err
	}
	var out []*follow.Follower
	for _, base := range cfg.Follow {
		c, err := client.New(base, hc)
		if err != nil {
			return nil, fmt.Errorf("follow: %w", err)
		}
		c.Token = tokens[base] // sent to this upstream's origin only, redirects included
		c.MaxDocumentBytes = cfg.MaxDocumentBytes
		c.UserAgent = "agora-registry-follower/1"
		out = append(out, follow.New(c, svc, st, log, follow.Timing{}))
	}
	follow.Link(out)
	return out, nil
}

// followTokens reads --follow-token-file's URL=FILE pairs into tokens by
// --follow URL; a pair naming no --follow upstream is an error, so a token
// meant for one is never left unused by a typo.
func followTokens(cfg config.Serve) (map[string]string, error) {
	tokens := map[string]string{}
	for _, pair := range cfg.FollowTokenFiles {
		base, file, ok := strings.Cut(pair, "=")
		if !ok || base == "" || file == "" {
			return nil, fmt.Errorf("follow: --follow-token-file takes URL=FILE pairs, not %q", pair)
		}
		if !slices.Contains(cfg.Follow, base) {
			return nil, fmt.Errorf("follow: --follow-token-file names %s, which is not one of --follow (%s)", base, strings.Join(cfg.Follow, ", "))
		}
		token, err := auth.ReadSecretFile("follow token", file)
		if err != nil {
			return nil, fmt.Errorf("follow: %w", err)
		}
		tokens[base] = token
	}
	return tokens, nil
}
