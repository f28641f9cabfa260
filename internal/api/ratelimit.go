package api

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"github.com/agora-registry/registry/internal/apperr"
)

// Limits of the per-client limiter table.
const (
	maxTrackedClients = 100_000          // beyond this, new clients share one limiter
	clientIdleExpiry  = 10 * time.Minute // an idle client's limiter is dropped
	sweepEvery        = time.Minute
)

// errRateLimited is the 429 problem.
var errRateLimited = apperr.New(apperr.RateLimited, "rate_limited", "too many requests; slow down")

// RateLimiter is a token bucket per client IP (as the server's IP extractor
// reports it). The pages share it, so HTML publishes count too.
type RateLimiter struct {
	limit rate.Limit
	burst int
	what  string

	mu        sync.Mutex
	clients   map[string]*clientLimiter
	overflow  *rate.Limiter
	lastSweep time.Time
}

type clientLimiter struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewRateLimiter allows perSecond requests per client with the given
// burst; perSecond <= 0 returns nil, which allows everything.
func NewRateLimiter(perSecond float64, burst int, what string) *RateLimiter {
	if perSecond <= 0 {
		return nil
	}
	if burst < 1 {
		burst = 1
	}
	return &RateLimiter{limit: rate.Limit(perSecond), burst: burst, what: what,
		clients: map[string]*clientLimiter{}, overflow: rate.NewLimiter(rate.Limit(perSecond), burst)}
}

// Allow takes one token for the client or returns a 429 error carrying
// Retry-After.
func (l *RateLimiter) Allow(client string) error {
	if l == nil {
		return nil
	}
	now := time.Now()
	lim := l.limiterFor(client, now)
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
func (l *RateLimiter) AllowRequest(c echo.Context) error { return l.Allow(c.RealIP()) }

// Middleware limits the routes it wraps.
func (l *RateLimiter) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := l.AllowRequest(c); err != nil {
			return err
		}
		return next(c)
	}
}

func (l *RateLimiter) limiterFor(client string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > sweepEvery {
		for k, cl := range l.clients {
			if now.Sub(cl.seen) > clientIdleExpiry {
				delete(l.clients, k)
			}
		}
		l.lastSweep = now
	}
	cl, ok := l.clients[client]
	if !ok {
		if len(l.clients) >= maxTrackedClients {
			return l.overflow
		}
		cl = &clientLimiter{lim: rate.NewLimiter(l.limit, l.burst)}
		l.clients[client] = cl
	}
	cl.seen = now
	return cl.lim
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
