package api

import (
	"container/list"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/agora-registry/registry/internal/apperr"
)

// Limits of the per-client limiter table.
const (
	// DefaultMaxTrackedClients bounds the table; beyond it the least
	// recently seen client's bucket is dropped (it starts afresh if it
	// comes back), so newcomers never share a bucket.
	DefaultMaxTrackedClients = 100_000
	clientIdleExpiry         = 10 * time.Minute // an idle client's limiter is dropped
)

// errRateLimited is the 429 problem.
var errRateLimited = apperr.New(apperr.RateLimited, "rate_limited", "too many requests; slow down")

// RateLimiter is a token bucket per client, keyed as ClientKey reads the
// server's IP extractor (an IPv6 client is its /64 unless configured
// otherwise). The pages share it, so HTML publishes count too.
type RateLimiter struct {
	limit          rate.Limit
	burst          int
	what           string
	v6Bits         int
	maxClients     int
	exemptLoopback bool
	now            func() time.Time // time.Now; tests step a clock

	mu      sync.Mutex
	clients map[netip.Addr]*list.Element // of *clientLimiter
	lru     list.List                    // most recently seen first
}

type clientLimiter struct {
	key  netip.Addr
	lim  *rate.Limiter
	seen time.Time
}

// LimiterOption tunes a RateLimiter.
type LimiterOption func(*RateLimiter)

// IPv6Prefix keys IPv6 clients by their first bits bits (default 64: one
// subscriber's network, which hands out 2^64 addresses).
func IPv6Prefix(bits int) LimiterOption {
	return func(l *RateLimiter) {
		if bits > 0 && bits <= 128 {
			l.v6Bits = bits
		}
	}
}

// ExemptLoopback lets loopback clients through unlimited: with no trusted
// proxy, a loopback peer is a program on the registry's own machine (a
// demo network of agents on one host), not an internet client. A loopback
// request carrying forwarding headers came through a proxy on this host
// that nobody listed in the trusted proxies, and stays limited.
func ExemptLoopback() LimiterOption { return func(l *RateLimiter) { l.exemptLoopback = true } }

// NewRateLimiter allows perSecond requests per client with the given
// burst; perSecond <= 0 returns nil, which allows everything.
func NewRateLimiter(perSecond float64, burst int, what string, opts ...LimiterOption) *RateLimiter {
	if perSecond <= 0 {
		return nil
	}
	l := &RateLimiter{limit: rate.Limit(perSecond), burst: max(burst, 1), what: what,
		v6Bits: DefaultIPv6ClientPrefix, maxClients: DefaultMaxTrackedClients, now: time.Now,
		clients: map[netip.Addr]*list.Element{}}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Allow takes one token for the client or returns a 429 error carrying
// Retry-After. A refusal takes no token.
func (l *RateLimiter) Allow(client string) error { return l.allow(client, false) }

// AllowFrom is Allow for request r from client (as the IP extractor read it).
func (l *RateLimiter) AllowFrom(r *http.Request, client string) error {
	return l.allow(client, forwarded(r))
}

func (l *RateLimiter) allow(client string, proxied bool) error {
	if l == nil {
		return nil
	}
	key, loopback := ClientKey(client, l.v6Bits)
	if loopback && l.exemptLoopback && !proxied {
		return nil
	}
	now := l.now()
	lim := l.limiterFor(key, now)
	r := lim.ReserveN(now, 1)
	if !r.OK() {
		return &retryAfterError{err: errRateLimited, seconds: 60}
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return &retryAfterError{
			err:     errRateLimited.With(fmt.Sprintf("too many %s from your address; retry in %s", l.what, d.Round(time.Millisecond))),
			seconds: int(math.Ceil(d.Seconds())),
		}
	}
	return nil
}

// AllowRequest is Allow for the request's client.
func (l *RateLimiter) AllowRequest(c echo.Context) error { return l.AllowFrom(c.Request(), c.RealIP()) }

// forwarded reports whether a proxy says it forwarded r.
func forwarded(r *http.Request) bool {
	h := r.Header
	return len(h["X-Forwarded-For"]) > 0 || len(h["Forwarded"]) > 0 || len(h["X-Real-Ip"]) > 0
}

// Middleware limits the routes it wraps.
func (l *RateLimiter) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := l.AllowRequest(c); err != nil {
			return err
		}
		return next(c)
	}
}

// limiterFor returns the client's bucket, dropping idle ones and, at the
// cap, the least recently seen one: O(1) per call.
func (l *RateLimiter) limiterFor(key netip.Addr, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	for e := l.lru.Back(); e != nil && now.Sub(e.Value.(*clientLimiter).seen) > clientIdleExpiry; e = l.lru.Back() {
		l.drop(e)
	}
	if e, ok := l.clients[key]; ok {
		cl := e.Value.(*clientLimiter)
		cl.seen = now
		l.lru.MoveToFront(e)
		return cl.lim
	}
	if l.lru.Len() >= l.maxClients {
		l.drop(l.lru.Back())
	}
	cl := &clientLimiter{key: key, lim: rate.NewLimiter(l.limit, l.burst), seen: now}
	l.clients[key] = l.lru.PushFront(cl)
	return cl.lim
}

func (l *RateLimiter) drop(e *list.Element) {
	delete(l.clients, e.Value.(*clientLimiter).key)
	l.lru.Remove(e)
}

// unlimitedPath reports the paths never rate limited: probes and scrapes
// must work while the server is under load.
func unlimitedPath(p string) bool {
	switch p {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return false
}

func (s *Server) publishLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return s.publish.Middleware(next)
}
