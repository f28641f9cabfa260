package agora

import (
	"container/list"
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Per-client refusals: Agora's 429. The agent answers them as any other
// failure (HTTP 200, status failure, a stable code), since Agora clients
// read the outcome from the body.
var (
	ErrClientRate     = newError(KindRateLimited, "rate_limited", "too many requests from your address; slow down")
	ErrClientInFlight = newError(KindRateLimited, "too_many_requests_in_flight", "your address has too many requests in progress; wait for one to finish")
	ErrClientsFull    = newError(KindRateLimited, "agent_busy", "the agent is serving too many clients at once; try again later")
)

// maxTrackedClients bounds the per-client table. Only clients with nothing
// in flight are evicted (least recently seen first), so a flood of new
// addresses can reset idle clients' buckets but never lift a busy client's
// in-flight limit.
const maxTrackedClients = 16384

// clientLimits keeps, per client, a token bucket of requests and the number
// of its requests in progress, so one client can neither flood the agent
// nor hold its memory with many slow uploads at once.
type clientLimits struct {
	limit    rate.Limit // <= 0: no rate limit
	burst    int
	inFlight int
	max      int
	mu       sync.Mutex
	clients  map[string]*clientEntry
	idle     *list.List // entries with nothing in flight, least recently seen first
}

type clientEntry struct {
	key    string
	bucket *rate.Limiter
	active int
	idleAt *list.Element // nil while active > 0
}

func newClientLimits(l Limits) *clientLimits {
	return &clientLimits{limit: rate.Limit(l.PerClientRate), burst: l.PerClientBurst, inFlight: l.PerClientInFlight,
		max: maxTrackedClients, clients: map[string]*clientEntry{}, idle: list.New()}
}

// acquire admits one request of client, or says why not. release must be
// called when the request is done.
func (c *clientLimits) acquire(client string, now time.Time) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.clients[client]
	if e == nil {
		if len(c.clients) >= c.max {
			oldest := c.idle.Front()
			if oldest == nil {
				return nil, ErrClientsFull
			}
			delete(c.clients, c.idle.Remove(oldest).(*clientEntry).key)
		}
		e = &clientEntry{key: client, bucket: rate.NewLimiter(c.limit, c.burst)}
		e.idleAt = c.idle.PushBack(e)
		c.clients[client] = e
	}
	if e.active >= c.inFlight {
		return nil, ErrClientInFlight.With(fmt.Sprintf("your address has %d requests in progress, the most one client may have; wait for one to finish", e.active))
	}
	if c.limit > 0 {
		r := e.bucket.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now) // a refused request spends no token
			c.idle.MoveToBack(e.idleAt)
			return nil, ErrClientRate.With(fmt.Sprintf("too many requests from your address (at most %g a second, bursts of %d); retry in %s",
				float64(c.limit), c.burst, d.Round(time.Millisecond)))
		}
	}
	if e.active++; e.idleAt != nil {
		c.idle.Remove(e.idleAt)
		e.idleAt = nil
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if e.active--; e.active == 0 {
			e.idleAt = c.idle.PushBack(e)
		}
	}, nil
}

// clientKey names the client of a request: its IPv4 address, or its IPv6
// /64 (one subscriber usually holds a whole /64). The agent has no trusted
// proxy, so this is the TCP peer.
func clientKey(remoteAddr string) string {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	addr := ap.Addr().Unmap()
	if addr.Is4() {
		return addr.String()
	}
	p, _ := addr.WithZone("").Prefix(64)
	return p.String()
}

type clientContextKey struct{}

// clientOf is the client key the limits middleware stored in ctx.
func clientOf(ctx context.Context) string {
	s, _ := ctx.Value(clientContextKey{}).(string)
	return s
}

// limitClients admits a request under its client's limits before its body
// is read, and records the client for the conversation quota.
func (a *Handler) limitClients(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		client := clientKey(r.RemoteAddr)
		release, err := a.clients.acquire(client, time.Now())
		if err != nil {
			a.log.Info("client refused", "client", client, "code", asError(err).Code)
			writeAnswer(w, failure(err))
			return
		}
		defer release()
		next(w, r.WithContext(context.WithValue(r.Context(), clientContextKey{}, client)))
	}
}

// activeFor is how many requests of client are in progress.
func (c *clientLimits) activeFor(client string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.clients[client]; e != nil {
		return e.active
	}
	return 0
}
