package api

import (
	"bytes"
	"io"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
)

// errOverloaded is the 503 of a heavy request that found every slot taken.
var errOverloaded = apperr.New(apperr.Unavailable, "overloaded",
	"the server is busy with other searches and batch lookups; retry shortly")

// errHeavyBusyClient is the 429 of a client that already has a heavy
// request in flight and sent another one that could not wait for it.
var errHeavyBusyClient = apperr.New(apperr.RateLimited, "too_many_concurrent",
	"your address already has a search or batch lookup in flight; send them one at a time")

// overloadRetrySeconds is the Retry-After of both refusals: heavy requests
// take milliseconds of work, so a second is plenty.
const overloadRetrySeconds = 1

// heavyGate bounds heavy requests (search, batch resolve) in two ways.
// Each holds store rows and response buffers, so without a bound a burst
// of them multiplies memory and makes every one of them slow:
//
//   - a client (as the IP extractor sees it) runs one heavy request at a
//     time (its lane); a second one waits briefly, then gets 429;
//   - the work itself (store query and encoding) runs in one of a few
//     shared slots; a request that cannot get one in time gets 503.
//
// Network time never holds a shared slot: the body is read before the slot
// is taken, and the answer is encoded into memory under the slot and
// written after it is released, under a stall deadline. A client that
// sends or reads slowly therefore only delays itself.
type heavyGate struct {
	slots chan struct{}
	wait  time.Duration
	// stall bounds how long one chunk of an answer may take to be
	// accepted by the client; writeTimeout is the server's whole-answer
	// budget, restored once the answer is written.
	stall, writeTimeout time.Duration
	v6Bits              int // of a client's key (ClientKey)

	mu    sync.Mutex
	lanes map[netip.Addr]*heavyLane
}

// heavyLane is one client's turn: held while its heavy request is read,
// worked on and written. users counts the holder and the waiters, so the
// lane is dropped from the table when nobody needs it (the table is
// bounded by the requests in flight).
type heavyLane struct {
	turn  chan struct{}
	users int
}

func newHeavyGate(cfg Config) *heavyGate {
	return &heavyGate{slots: make(chan struct{}, cfg.MaxHeavyRequests), wait: cfg.HeavyQueueWait,
		stall: cfg.HeavyWriteStall, writeTimeout: cfg.WriteTimeout, v6Bits: cfg.IPv6ClientPrefix,
		lanes: map[netip.Addr]*heavyLane{}}
}

// middleware wraps a heavy route.
func (g *heavyGate) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		leave, err := g.enterLane(c)
		if err != nil {
			return err
		}
		defer leave()
		if err := bufferRequestBody(c); err != nil {
			return err
		}
		if err := g.acquire(c); err != nil {
			return err
		}
		out, err := g.runBuffered(c, next)
		return g.writeOut(c, out, start, err)
	}
}

// lane wraps a route that streams its answer a store chunk at a time and
// holds no database connection while it writes (the demo's list): one such
// request per client at a time, no shared slot and no buffering, so a slow
// reader holds only its own connection.
func (g *heavyGate) lane(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		leave, err := g.enterLane(c)
		if err != nil {
			return err
		}
		defer leave()
		return next(c)
	}
}

// runBuffered runs next under a slot with the answer going to memory; the
// slot is released (also on panic) before anything reaches the network.
func (g *heavyGate) runBuffered(c echo.Context, next echo.HandlerFunc) (*bufferedAnswer, error) {
	res := c.Response()
	out := &bufferedAnswer{header: res.Writer.Header()}
	orig := res.Writer
	res.Writer = out
	defer func() {
		res.Writer = orig
		g.release()
	}()
	return out, next(c)
}

// enterLane waits for the client's turn, up to the queue wait.
func (g *heavyGate) enterLane(c echo.Context) (leave func(), err error) {
	client, _ := ClientKey(c.RealIP(), g.v6Bits)
	g.mu.Lock()
	l := g.lanes[client]
	if l == nil {
		l = &heavyLane{turn: make(chan struct{}, 1)}
		g.lanes[client] = l
	}
	l.users++
	g.mu.Unlock()
	done := func() {
		g.mu.Lock()
		if l.users--; l.users == 0 {
			delete(g.lanes, client)
		}
		g.mu.Unlock()
	}
	if !g.take(c, l.turn) {
		done()
		return nil, &retryAfterError{err: errHeavyBusyClient, seconds: overloadRetrySeconds}
	}
	return func() { <-l.turn; done() }, nil
}

func (g *heavyGate) acquire(c echo.Context) error {
	if !g.take(c, g.slots) {
		return &retryAfterError{err: errOverloaded, seconds: overloadRetrySeconds}
	}
	return nil
}

func (g *heavyGate) release() { <-g.slots }

// take puts a token into sem, waiting up to the queue wait; false when it
// could not (or the client left; nobody reads that answer).
func (g *heavyGate) take(c echo.Context, sem chan struct{}) bool {
	select {
	case sem <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case sem <- struct{}{}:
		return true
	case <-t.C:
	case <-c.Request().Context().Done():
	}
	return false
}

// bufferRequestBody reads a heavy request's body (capped by limitBody)
// into memory, so the handler reading it later under a slot never waits
// on the network.
func bufferRequestBody(c echo.Context) error {
	req := c.Request()
	if req.Body == nil || req.Body == http.NoBody || req.Method == http.MethodGet || req.Method == http.MethodHead {
		return nil
	}
	b, err := readSizedBody(c)
	if err != nil {
		return err
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.ContentLength = int64(len(b))
	return nil
}
