package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Mirror limits' defaults.
const (
	DefaultMirrorTimeout      = 10 * time.Second
	DefaultMirrorRedirects    = 3
	DefaultMirrorNegativeTTL  = 30 * time.Second
	DefaultMirrorNegativeSize = 10_000
	MaxUpstreams              = 16
)

// UpstreamRegistry is one registry the mirror asks for documents it lacks
// (cmd/registry wires internal/client's Client in). Fetch returns the bytes
// of d, verified against d; its errors say why not: of kind NotFound or
// Gone, it does not have d; of kind TooLarge or protocol.ErrHashMismatch,
// it answered something unacceptable; anything else, it could not be asked.
type UpstreamRegistry interface {
	Origin() string // the base URL recorded as an entry's origin, without credentials
	Fetch(ctx context.Context, d protocol.Digest) ([]byte, error)
}

// MirrorConfig configures pull-through mirroring. Upstreams are trusted to
// the extent that the operator chose them, but what they answer is not:
// every answer is size-capped and verified against the hash.
type MirrorConfig struct {
	// Upstreams are asked in order.
	Upstreams []UpstreamRegistry
	// MaxDocumentBytes caps a mirrored document; 0 means the protocol default.
	MaxDocumentBytes int
	// Timeout bounds one upstream attempt, body included; 0 = default.
	Timeout time.Duration
	// NegativeTTL is how long a hash no upstream had is not asked again, so
	// repeated misses do not hammer the upstreams; 0 = default, <0 = off.
	NegativeTTL time.Duration
	// NegativeSize bounds the remembered misses; 0 = default.
	NegativeSize int
	// Logger receives one warning per misbehaving upstream answer.
	Logger *slog.Logger
}

// Mirror fetches missing documents from upstream registries. It implements
// Upstream.
//
// Not found anywhere and every upstream unreachable both end in
// store.ErrNotFound (with a message saying which): an unknown hash is a 404
// whatever the state of a third-party registry, so a dead upstream never
// makes this registry look down (503s, failing health checks) and clients
// go on to their next source as they would for any miss. Unreachable
// upstreams are logged.
type Mirror struct {
	upstreams []UpstreamRegistry
	maxBytes  int
	timeout   time.Duration
	log       *slog.Logger
	misses    *missCache
	flight    singleflight.Group
}

// NewMirror checks the configuration.
func NewMirror(cfg MirrorConfig) (*Mirror, error) {
	if len(cfg.Upstreams) == 0 {
		return nil, errors.New("mirror: no upstream registries configured")
	}
	if len(cfg.Upstreams) > MaxUpstreams {
		return nil, fmt.Errorf("mirror: %d upstream registries configured; at most %d", len(cfg.Upstreams), MaxUpstreams)
	}
	m := &Mirror{upstreams: cfg.Upstreams, maxBytes: cfg.MaxDocumentBytes, timeout: cfg.Timeout, log: cfg.Logger}
	if m.maxBytes <= 0 {
		m.maxBytes = protocol.DefaultMaxDocumentBytes
	}
	if m.timeout <= 0 {
		m.timeout = DefaultMirrorTimeout
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	ttl, size := cfg.NegativeTTL, cfg.NegativeSize
	if ttl == 0 {
		ttl = DefaultMirrorNegativeTTL
	}
	if size <= 0 {
		size = DefaultMirrorNegativeSize
	}
	if ttl > 0 {
		m.misses = &missCache{ttl: ttl, max: size, until: map[protocol.Digest]time.Time{}, now: time.Now}
	}
	return m, nil
}

// Upstreams lists the configured base URLs (as recorded in origins).
func (m *Mirror) Upstreams() []string {
	out := make([]string, len(m.upstreams))
	for i, u := range m.upstreams {
		out[i] = u.Origin()
	}
	return out
}

type fetched struct {
	content []byte
	origin  string
}

// Fetch asks each upstream in turn for d and returns the first answer that
// hashes to d, with the upstream's base URL as origin. Concurrent fetches
// of one hash share one round of requests.
func (m *Mirror) Fetch(ctx context.Context, d protocol.Digest) ([]byte, string, error) {
	if m.misses.has(d) {
		return nil, "", store.ErrNotFound.With("no protocol with this hash here or at the upstream registries")
	}
	ch := m.flight.DoChan(d.Hex(), func() (any, error) {
		// Detached from the first caller's cancellation so that callers
		// sharing this flight are not failed by it; each attempt is
		// bounded by the timeout.
		return m.fetchAll(context.WithoutCancel(ctx), d)
	})
	select {
	case <-ctx.Done():
		return nil, "", ctx.Err()
	case r := <-ch:
		if r.Err != nil {
			return nil, "", r.Err
		}
		f := r.Val.(fetched)
		return f.content, f.origin, nil
	}
}

func (m *Mirror) fetchAll(ctx context.Context, d protocol.Digest) (fetched, error) {
	unreachable := 0
	for _, u := range m.upstreams {
		content, err := m.fetchOne(ctx, u, d)
		if err == nil {
			return fetched{content: content, origin: u.Origin()}, nil
		}
		switch kind := apperr.KindOf(err); {
		case kind == apperr.NotFound || kind == apperr.Gone:
		case kind == apperr.TooLarge || errors.Is(err, protocol.ErrHashMismatch) || errors.Is(err, errInvalidDocument):
			m.log.Warn("mirror: upstream answer refused; trying the next upstream", "upstream", u.Origin(), "hash", d.Hex(), "error", err.Error())
		default:
			unreachable++
			m.log.Warn("mirror: upstream unreachable", "upstream", u.Origin(), "hash", d.Hex(), "error", err.Error())
		}
	}
	m.misses.add(d)
	msg := "no protocol with this hash here or at the upstream registries"
	if unreachable > 0 {
		msg = fmt.Sprintf("no protocol with this hash here; %d of %d upstream registries could not be reached", unreachable, len(m.upstreams))
	}
	return fetched{}, store.ErrNotFound.With(msg)
}

// codeFetchBlocked is the code of the SSRF guard's refusal (safehttp), which
// cmd/registry puts in front of the upstreams.
const codeFetchBlocked = "fetch_blocked"

var errRedirectBlocked = apperr.New(apperr.Forbidden, "upstream_redirect_blocked", "the upstream redirected to an address that is not allowed")

// errInvalidDocument marks an upstream answer that hashes right but is no
// acceptable document here.
var errInvalidDocument = errors.New("the upstream's document is not acceptable here")

// fetchOne asks one upstream within the attempt timeout and checks what it
// sent is a document this registry accepts.
func (m *Mirror) fetchOne(ctx context.Context, u UpstreamRegistry, d protocol.Digest) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	content, err := u.Fetch(ctx, d)
	if err != nil {
		if errors.Is(err, protocol.ErrHashMismatch) {
			return nil, fmt.Errorf("the upstream lied: %w", err)
		}
		if e := apperr.As(err); e != nil && e.Code == codeFetchBlocked {
			return nil, errRedirectBlocked.With(
				"the upstream redirected to a private, loopback or reserved address; refused (list it in --outbound-allow to permit): " + e.Message)
		}
		return nil, err
	}
	if err := protocol.Validate(content, m.maxBytes); err != nil {
		return nil, fmt.Errorf("%w: %w", errInvalidDocument, err)
	}
	return content, nil
}

// missCache remembers hashes no upstream had, for a short while and in
// bounded number.
type missCache struct {
	mu    sync.Mutex
	ttl   time.Duration
	max   int
	until map[protocol.Digest]time.Time
	now   func() time.Time
}

func (c *missCache) has(d protocol.Digest) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.until[d]
	if ok && c.now().After(t) {
		delete(c.until, d)
		return false
	}
	return ok
}

func (c *missCache) add(d protocol.Digest) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.until) >= c.max {
		for k, t := range c.until {
			if now.After(t) {
				delete(c.until, k)
			}
		}
	}
	// Still full of live entries: drop an arbitrary one. Forgetting a miss
	// costs one more upstream request, nothing else.
	for k := range c.until {
		if len(c.until) < c.max {
			break
		}
		delete(c.until, k)
	}
	c.until[d] = now.Add(c.ttl)
}
