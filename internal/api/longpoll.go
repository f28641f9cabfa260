package api

import (
	"net/netip"
	"strconv"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/apperr"
)

// MaxLongPollsPerClient bounds the change-feed long polls one client (as
// ClientKey sees it) may have waiting at once. The log's own bound
// (translog.MaxFeedWaiters) is shared by everyone: without this one a
// single address could hold every slot, and every other follower's poll
// would answer at once, empty, turning their waits into busy loops.
const MaxLongPollsPerClient = 4

// errTooManyLongPolls is the 429 of a client past MaxLongPollsPerClient.
var errTooManyLongPolls = apperr.New(apperr.RateLimited, "too_many_long_polls",
	"your address already has "+strconv.Itoa(MaxLongPollsPerClient)+
		" change-feed long polls (wait=) waiting; let one answer before sending another")

// longPolls counts each client's waiting long polls; a client leaves the
// table when its last poll answers, so the table is bounded by the
// requests in flight.
type longPolls struct {
	v6Bits int
	mu     sync.Mutex
	count  map[netip.Addr]int
	total  int
}

func newLongPolls(v6Bits int) *longPolls {
	return &longPolls{v6Bits: v6Bits, count: map[netip.Addr]int{}}
}

// enter takes one of the client's long-poll slots, or refuses with 429.
func (p *longPolls) enter(c echo.Context) (leave func(), err error) {
	client, _ := ClientKey(c.RealIP(), p.v6Bits)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.count[client] >= MaxLongPollsPerClient {
		return nil, &retryAfterError{err: errTooManyLongPolls, seconds: overloadRetrySeconds}
	}
	p.count[client]++
	p.total++
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.count[client]--; p.count[client] == 0 {
			delete(p.count, client)
		}
		p.total--
	}, nil
}

// waiting is the number of long polls in flight (a metric).
func (p *longPolls) waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}
