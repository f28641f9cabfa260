package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/agora-registry/registry/internal/agent/safehttp"
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

// MirrorConfig configures pull-through mirroring. Upstreams are trusted to
// the extent that the operator chose them (their own addresses pass the
// SSRF guard), but what they answer is not: every byte is size-capped and
// verified against the hash, and a redirect elsewhere goes through the
// guard the agent uses for URLs strangers send.
type MirrorConfig struct {
	// Upstreams are base URLs of other registries, asked in order with
	// GET {upstream}/protocol/{hex}.
	Upstreams []string
	// MaxDocumentBytes caps an answer; 0 means the protocol default.
	MaxDocumentBytes int
	// Timeout bounds one upstream attempt, body included; 0 = default.
	Timeout time.Duration
	// MaxRedirects an upstream may send us through; 0 = default, <0 = none.
	MaxRedirects int
	// Allow opens the SSRF guard that redirects go through to more
	// addresses (safehttp.Options.Allow: CIDRs, IPs, hosts, host:port);
	// the upstreams themselves are always allowed.
	Allow []string
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
	upstreams []upstream
	client    *http.Client
	maxBytes  int
	timeout   time.Duration
	log       *slog.Logger
	misses    *missCache
	flight    singleflight.Group
}

type upstream struct {
	base     string // without trailing slash, used to build request URLs
	origin   string // recorded as the entry's origin: base without credentials
	hostPort string // what the client dials, allowed past the SSRF guard
}

// ParseUpstreams reads the REGISTRY_UPSTREAMS value: base URLs separated by
// commas or white space.
func ParseUpstreams(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

// NewMirror checks the configuration and builds the HTTP client.
func NewMirror(cfg MirrorConfig) (*Mirror, error) {
	if len(cfg.Upstreams) == 0 {
		return nil, errors.New("mirror: no upstream registries configured")
	}
	if len(cfg.Upstreams) > MaxUpstreams {
		return nil, fmt.Errorf("mirror: %d upstream registries configured; at most %d", len(cfg.Upstreams), MaxUpstreams)
	}
	m := &Mirror{maxBytes: cfg.MaxDocumentBytes, timeout: cfg.Timeout, log: cfg.Logger}
	if m.maxBytes <= 0 {
		m.maxBytes = protocol.DefaultMaxDocumentBytes
	}
	if m.timeout <= 0 {
		m.timeout = DefaultMirrorTimeout
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	var err error
	for _, raw := range cfg.Upstreams {
		var u upstream
		u, err = parseUpstream(raw)
		if err != nil {
			return nil, err
		}
		m.upstreams = append(m.upstreams, u)
	}
	redirects := cfg.MaxRedirects
	if redirects == 0 {
		redirects = DefaultMirrorRedirects
	}
	if m.client, err = newMirrorClient(m.upstreams, cfg.Allow, m.timeout, redirects); err != nil {
		return nil, err
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

func parseUpstream(raw string) (upstream, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return upstream{}, fmt.Errorf("mirror: upstream %q is not an http(s) base URL without query or fragment", raw)
	}
	base := strings.TrimRight(u.String(), "/")
	u.User = nil
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return upstream{base: base, origin: strings.TrimRight(u.String(), "/"), hostPort: net.JoinHostPort(u.Hostname(), port)}, nil
}

// newMirrorClient is the agent's SSRF-guarded client (safehttp) with the
// upstreams themselves allowed: the operator chose them, and they may sit on
// a private network; every other address an upstream redirects to is
// checked at dial time like any URL a stranger chose (loopback, private,
// link-local and metadata addresses are refused unless in allow). The
// guard needs the transport's proxy off, so HTTP_PROXY is not used.
func newMirrorClient(ups []upstream, allow []string, timeout time.Duration, maxRedirects int) (*http.Client, error) {
	trusted := slices.Clone(allow)
	for _, u := range ups {
		trusted = append(trusted, u.hostPort)
	}
	c, err := safehttp.New(safehttp.Options{Allow: trusted, MaxRedirects: maxRedirects, Timeout: timeout})
	if err != nil {
		return nil, fmt.Errorf("mirror: %w", err)
	}
	return c.HTTP, nil
}

// Upstreams lists the configured base URLs (as recorded in origins).
func (m *Mirror) Upstreams() []string {
	out := make([]string, len(m.upstreams))
	for i, u := range m.upstreams {
		out[i] = u.origin
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
			return fetched{content: content, origin: u.origin}, nil
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
		case apperr.KindOf(err) == apperr.Unavailable:
			unreachable++
			m.log.Warn("mirror: upstream unreachable", "upstream", u.origin, "hash", d.Hex(), "error", err.Error())
		default:
			m.log.Warn("mirror: upstream answer refused; trying the next upstream", "upstream", u.origin, "hash", d.Hex(), "error", err.Error())
		}
	}
	m.misses.add(d)
	msg := "no protocol with this hash here or at the upstream registries"
	if unreachable > 0 {
		msg = fmt.Sprintf("no protocol with this hash here; %d of %d upstream registries could not be reached", unreachable, len(m.upstreams))
	}
	return fetched{}, store.ErrNotFound.With(msg)
}

var (
	errUpstreamDown    = apperr.New(apperr.Unavailable, "upstream_unavailable", "the upstream registry could not be reached")
	errRedirectBlocked = apperr.New(apperr.Forbidden, "upstream_redirect_blocked", "the upstream redirected to an address that is not allowed")
)

// fetchOne asks one upstream. Errors: store.ErrNotFound (it does not have
// it), Unavailable (it could not be asked), anything else (it answered
// something unacceptable: a lie, an oversized or invalid document).
func (m *Mirror) fetchOne(ctx context.Context, u upstream, d protocol.Digest) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.base+"/protocol/"+d.Hex(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain")
	req.Header.Set("User-Agent", "agora-registry-mirror/1")
	resp, err := m.client.Do(req)
	if err != nil {
		var target *url.Error
		if blocked := apperr.As(err); blocked != nil && blocked.Code == safehttp.ErrBlocked.Code && errors.As(err, &target) {
			return nil, errRedirectBlocked.With(fmt.Sprintf(
				"the upstream redirected to %s, a private, loopback or reserved address; refused (list it in --outbound-allow to permit)", target.URL))
		}
		return nil, errUpstreamDown.With("the upstream registry could not be reached: " + err.Error())
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, store.ErrNotFound
	case resp.StatusCode != http.StatusOK:
		return nil, errUpstreamDown.With(fmt.Sprintf("the upstream registry answered HTTP %d", resp.StatusCode))
	case resp.ContentLength > int64(m.maxBytes):
		return nil, protocol.ErrDocumentTooLarge.With(fmt.Sprintf("the upstream announced %d bytes; the limit is %d", resp.ContentLength, m.maxBytes))
	}
	content, err := io.ReadAll(io.LimitReader(resp.Body, int64(m.maxBytes)+1))
	if err != nil {
		return nil, errUpstreamDown.With("reading the upstream's answer failed: " + err.Error())
	}
	if len(content) > m.maxBytes {
		return nil, protocol.ErrDocumentTooLarge.With(fmt.Sprintf("the upstream sent more than %d bytes", m.maxBytes))
	}
	if err := protocol.Verify(content, d); err != nil {
		return nil, fmt.Errorf("the upstream lied: %w", err)
	}
	if err := protocol.Validate(content, m.maxBytes); err != nil {
		return nil, err
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
