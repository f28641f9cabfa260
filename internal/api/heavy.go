package api

import (
	"time"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
)

// errOverloaded is the 503 of a heavy request that found every slot taken.
var errOverloaded = apperr.New(apperr.Unavailable, "overloaded",
	"the server is busy with other searches and batch lookups; retry shortly")

// overloadRetrySeconds is the Retry-After of errOverloaded: heavy requests
// take milliseconds, so a second is plenty.
const overloadRetrySeconds = 1

// heavyGate bounds how many heavy requests (search, batch resolve) run at
// once. Each holds store rows and response buffers, so without a bound a
// burst of them multiplies memory and makes every one of them slow; with
// it, the excess waits briefly and is then refused with 503 + Retry-After.
type heavyGate struct {
	slots chan struct{}
	wait  time.Duration
}

func newHeavyGate(n int, wait time.Duration) *heavyGate {
	return &heavyGate{slots: make(chan struct{}, n), wait: wait}
}

// middleware wraps a heavy route.
func (g *heavyGate) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := g.acquire(c); err != nil {
			return err
		}
		defer g.release()
		return next(c)
	}
}

func (g *heavyGate) acquire(c echo.Context) error {
	select {
	case g.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-t.C:
		return &retryAfterError{err: errOverloaded, seconds: overloadRetrySeconds}
	case <-c.Request().Context().Done():
		return &retryAfterError{err: errOverloaded, seconds: overloadRetrySeconds} // the client left; nobody reads this
	}
}

func (g *heavyGate) release() { <-g.slots }
