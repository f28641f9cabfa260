// Package directory is the registry's agent directory: agents registered
// by URL, crawled through the SSRF guard for what their well-known lists
// say they speak, re-crawled on a jittered schedule with bounded
// concurrency, and dropped after repeated failures.
package directory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Store is what the directory needs from the store.
type Store interface {
	store.Agents
}

// Defaults of Config.
const (
	DefaultInterval       = time.Hour
	DefaultConcurrency    = 4
	DefaultMaxFailures    = 5
	DefaultTimeout        = 10 * time.Second
	DefaultWellKnownBytes = 1 << 20
	// jitter spreads re-crawls over ±10% of the interval, so agents
	// registered together are not crawled together forever.
	jitter = 0.1
	// dueBatch caps the agents one scheduling round reads.
	dueBatch = 100
)

// Config configures a Directory. Zero values get the defaults.
type Config struct {
	Interval    time.Duration // between crawls of one agent
	Concurrency int           // crawls at once, registrations included
	MaxFailures int           // failed crawls in a row that remove an agent
	Timeout     time.Duration // one crawl, all well-known paths and redirects
	MaxBytes    int           // one well-known answer
	// Allow opens the SSRF guard (--outbound-allow).
	Allow  []string
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Errors of registration.
var (
	ErrBadURL      = apperr.New(apperr.Invalid, "invalid_agent_url", "an agent URL is an absolute http or https URL without credentials, query or fragment")
	ErrUnreachable = apperr.New(apperr.Invalid, "agent_unreachable", "the agent's well-known list could not be read")
)

// Directory registers and crawls agents.
type Directory struct {
	store Store
	cfg   Config
	fetch *agora.Fetcher
	log   *slog.Logger
	slots chan struct{}
	mu    sync.Mutex
	rng   *rand.Rand
}

// New builds a directory; it fails on a malformed allow-list.
func New(s Store, cfg Config) (*Directory, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.MaxFailures <= 0 {
		cfg.MaxFailures = DefaultMaxFailures
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultWellKnownBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	fetch, err := agora.NewFetcher(agora.FetchPolicy{Allow: cfg.Allow, Timeout: cfg.Timeout})
	if err != nil {
		return nil, err
	}
	return &Directory{store: s, cfg: cfg, fetch: fetch, log: cfg.Logger, slots: make(chan struct{}, cfg.Concurrency),
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))}, nil
}

// NormalizeURL checks an agent URL and returns its one spelling: lower-case
// scheme and host, no trailing '/' on the path, nothing after it.
func NormalizeURL(raw string) (string, error) {
	if len(raw) > store.MaxAgentURLBytes {
		return "", ErrBadURL.With(fmt.Sprintf("an agent URL is at most %d bytes", store.MaxAgentURLBytes))
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "", ErrBadURL
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", ErrBadURL
	}
	u.Host = strings.ToLower(u.Host)
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String(), nil
}

// next is when an agent crawled at now is crawled again.
func (d *Directory) next(now time.Time) time.Time {
	d.mu.Lock()
	f := 1 + jitter*(2*d.rng.Float64()-1)
	d.mu.Unlock()
	return now.Add(time.Duration(float64(d.cfg.Interval) * f))
}

// Register crawls the agent at rawURL and records it; an agent whose list
// cannot be read is not registered.
func (d *Directory) Register(ctx context.Context, rawURL string) (store.Agent, bool, error) {
	u, err := NormalizeURL(rawURL)
	if err != nil {
		return store.Agent{}, false, err
	}
	if err := d.acquire(ctx); err != nil {
		return store.Agent{}, false, err
	}
	crawl, err := d.Crawl(ctx, u)
	d.release()
	if err != nil {
		return store.Agent{}, false, err
	}
	now := d.cfg.Now()
	return d.store.RegisterAgent(ctx, u, now, crawl, d.next(now))
}

func (d *Directory) acquire(ctx context.Context) error {
	select {
	case d.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *Directory) release() { <-d.slots }

// Crawl reads an agent's well-known list: /.well-known/agora, then
// /.wellknown, then /wellknown, the first that answers one wins.
func (d *Directory) Crawl(ctx context.Context, agentURL string) (store.AgentCrawl, error) {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	var failures []string
	for _, wk := range wellKnownPaths {
		u := agentURL + wk.path
		body, err := d.fetch.Get(ctx, u, d.cfg.MaxBytes)
		if err == nil {
			var c store.AgentCrawl
			if c, err = wk.parse(body); err == nil {
				c.WellKnownURL = u
				return c, nil
			}
		}
		failures = append(failures, wk.path+": "+reason(err))
		if ctx.Err() != nil {
			break
		}
	}
	return store.AgentCrawl{}, ErrUnreachable.With("reading the agent's well-known list failed: " + strings.Join(failures, "; "))
}

// reason is a failure in words fit to show anyone (the guard's classified
// messages; never a raw dial error naming what a host resolved to).
func reason(err error) string {
	if errors.Is(err, agora.ErrFetchBlocked) {
		return agora.ErrFetchBlocked.Message + " (the registry's --outbound-allow opens private addresses)"
	}
	if e := apperr.As(err); e != nil {
		return e.Message
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	if errors.Is(err, errNotObject) {
		return err.Error()
	}
	return "the fetch failed"
}

// CrawlDue crawls every agent whose crawl is due, at most Concurrency at
// once, and returns how many it crawled.
func (d *Directory) CrawlDue(ctx context.Context) (int, error) {
	due, err := d.store.DueAgents(ctx, d.cfg.Now(), dueBatch)
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	for _, a := range due {
		if err := d.acquire(ctx); err != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer d.release()
			d.recrawl(ctx, a)
		}()
	}
	wg.Wait()
	return len(due), ctx.Err()
}

func (d *Directory) recrawl(ctx context.Context, a store.DueAgent) {
	crawl, err := d.Crawl(ctx, a.URL)
	now := d.cfg.Now()
	if err == nil {
		err = d.store.RecordCrawl(ctx, a.ID, now, crawl, d.next(now))
		if err != nil && !errors.Is(err, store.ErrAgentNotFound) {
			d.log.Warn("recording an agent crawl failed", "agent", a.ID, "error", err)
		}
		return
	}
	if ctx.Err() != nil {
		return // shutting down: not the agent's failure
	}
	msg := err.Error()
	if e := apperr.As(err); e != nil {
		msg = e.Message
	}
	removed, rerr := d.store.RecordCrawlFailure(ctx, a.ID, now, msg, d.next(now), d.cfg.MaxFailures)
	switch {
	case rerr != nil && !errors.Is(rerr, store.ErrAgentNotFound):
		d.log.Warn("recording an agent's failed crawl failed", "agent", a.ID, "error", rerr)
	case removed:
		d.log.Info("agent removed from the directory after failed crawls", "agent", a.ID, "url", a.URL, "failures", d.cfg.MaxFailures)
	}
}

// Run re-crawls due agents until ctx ends, looking for due agents every
// tenth of the interval (at most every minute).
func (d *Directory) Run(ctx context.Context) {
	tick := min(d.cfg.Interval/10, time.Minute)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		if n, err := d.CrawlDue(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("crawling due agents failed", "error", err)
		} else if n == dueBatch {
			continue // more are due: no wait
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Get returns one agent with its lists.
func (d *Directory) Get(ctx context.Context, id int64) (store.Agent, error) {
	return d.store.GetAgent(ctx, id)
}

// List lists agents.
func (d *Directory) List(ctx context.Context, q store.AgentQuery) (store.AgentPage, error) {
	return d.store.ListAgents(ctx, q)
}

// For lists who speaks and who refuses a protocol.
func (d *Directory) For(ctx context.Context, h protocol.Digest) (store.ProtocolAgents, error) {
	return d.store.AgentsFor(ctx, h)
}

// SpeakerCounts counts the agents speaking each hash.
func (d *Directory) SpeakerCounts(ctx context.Context, ds []protocol.Digest) (map[protocol.Digest]int, error) {
	return d.store.SpeakerCounts(ctx, ds)
}
