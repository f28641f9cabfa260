package agora

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"
)

// Defaults of Announcer.
const (
	DefaultAnnounceMinBackoff = time.Second
	DefaultAnnounceMaxBackoff = 5 * time.Minute
	DefaultAnnounceTimeout    = 30 * time.Second
)

// Announcer keeps a registry's agent directory told about an agent: it
// registers URL when it starts and again after every change of the
// Handler's lists (a negotiated protocol adopted, a routine added), so
// the directory need not wait for its next crawl. A failure is logged and
// retried with exponential backoff; nothing of it reaches the agent's
// serving.
type Announcer struct {
	Registry *Registry
	URL      string   // the agent's public base URL, as the registry can reach it
	Handler  *Handler // whose Changed signals a new announcement
	Log      *slog.Logger
	// MinBackoff and MaxBackoff bound the wait before a retry (doubled
	// after each failure, ±25% jitter); 0 means the defaults.
	MinBackoff, MaxBackoff time.Duration
	// Timeout bounds one registration (the registry crawls the agent
	// before it answers); 0 means DefaultAnnounceTimeout.
	Timeout time.Duration
}

// Run announces until ctx ends.
func (a *Announcer) Run(ctx context.Context) {
	lo, hi := firstDuration(a.MinBackoff, DefaultAnnounceMinBackoff), firstDuration(a.MaxBackoff, DefaultAnnounceMaxBackoff)
	log := a.Log
	if log == nil {
		log = slog.Default()
	}
	backoff := lo
	for {
		// Taken before announcing: a change while the registry crawls us
		// closes it, and we announce again.
		changed := a.Handler.Changed()
		agent, err := a.announce(ctx)
		if ctx.Err() != nil {
			return
		}
		var retry <-chan time.Time
		if err != nil {
			wait := time.Duration(float64(backoff) * (0.75 + rand.Float64()/2))
			log.Warn("announcing to the registry failed", "registry", a.Registry.Origin(), "url", a.URL, "error", RedactError(err), "retryIn", wait.Round(time.Millisecond).String())
			retry = time.After(wait)
			backoff = min(2*backoff, hi)
		} else {
			backoff = lo
			log.Info("announced to the registry", "registry", a.Registry.Origin(), "url", a.URL, "agent", agent.ID, "supported", agent.SupportedCount)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-retry: // nil after a success: only a change wakes us
		}
	}
}

func (a *Announcer) announce(ctx context.Context) (Agent, error) {
	if a.Registry == nil || a.Handler == nil || a.URL == "" {
		return Agent{}, errors.New("announcer: Registry, Handler and URL are required")
	}
	ctx, cancel := context.WithTimeout(ctx, firstDuration(a.Timeout, DefaultAnnounceTimeout))
	defer cancel()
	return a.Registry.RegisterAgent(ctx, a.URL)
}

func firstDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
