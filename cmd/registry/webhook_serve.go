package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/webhook"
)

// webhooks is the delivery of the registered webhooks, through the SSRF
// guard that --outbound-allow opens; webhooks are never redirected.
func webhooks(cfg config.Serve, st store.Store, log *slog.Logger) (*webhook.Dispatcher, error) {
	hc, err := agora.NewHTTPClient(agora.FetchPolicy{Allow: cfg.OutboundAllow, MaxRedirects: -1, Timeout: webhookTimeout})
	if err != nil {
		return nil, fmt.Errorf("webhooks: %w", err)
	}
	return webhook.New(st, hc, cfg.EffectivePublicURL(), log, webhook.Timing{}), nil
}

// webhookTimeout bounds one delivery.
const webhookTimeout = 10 * time.Second
