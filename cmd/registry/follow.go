package main

import (
	"fmt"
	"log/slog"
	"time"

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
	var out []*follow.Follower
	for _, base := range cfg.Follow {
		c, err := client.New(base, hc)
		if err != nil {
			return nil, fmt.Errorf("follow: %w", err)
		}
		c.MaxDocumentBytes = cfg.MaxDocumentBytes
		c.UserAgent = "agora-registry-follower/1"
		out = append(out, follow.New(c, svc, st, log, follow.Timing{}))
	}
	follow.Link(out)
	return out, nil
}
