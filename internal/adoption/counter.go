// Package adoption counts raw fetches and resolutions per protocol hash in
// memory and writes them to the store in batches: a request costs a map
// update under one of 64 locks, never a database write, and nothing about who
// asked (no address, no user agent) is kept anywhere.
package adoption

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Sink is what the counter needs from the store.
type Sink interface {
	AddAdoption(ctx context.Context, day time.Time, deltas []store.AdoptionDelta) error
	RefreshAdoption(ctx context.Context, today time.Time) error
}

// DefaultFlushInterval is how often counts are written.
const DefaultFlushInterval = 5 * time.Second

// shardCount is how many independently locked maps the counts are spread
// over, so concurrent requests rarely wait for one another.
const shardCount = 64

// shard holds some hashes' counts since the last flush. Its map holds no
// pointers, so the garbage collector never scans it however many hashes
// it counts (with a pointer per hash, 100,000 counted hashes kept the
// collector busy under the memory budget: docs/BENCHMARKS.md, "Adoption
// flush").
type shard struct {
	mu     sync.Mutex
	counts map[protocol.Digest]counts
}

type counts struct{ fetches, resolutions int64 }

// Counter counts per hash. The zero value is not usable; use New.
type Counter struct {
	shards [shardCount]shard
	sink   Sink
	log    *slog.Logger
	now    func() time.Time
	flush  sync.Mutex // one flush at a time
	// carry holds deltas a failed write could not store, retried next flush.
	carry   map[protocol.Digest]store.AdoptionDelta
	lastDay time.Time
}

// New returns a counter writing to sink; now is the clock (nil: time.Now).
func New(sink Sink, log *slog.Logger, now func() time.Time) *Counter {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &Counter{sink: sink, log: log, now: now, carry: map[protocol.Digest]store.AdoptionDelta{}}
}

// Fetched counts one raw fetch of d.
func (c *Counter) Fetched(d protocol.Digest) {
	if c != nil {
		c.add(d, 1, 0)
	}
}

// Resolved counts one resolution of d.
func (c *Counter) Resolved(d protocol.Digest) {
	if c != nil {
		c.add(d, 0, 1)
	}
}

func (c *Counter) add(d protocol.Digest, f, r int64) {
	s := &c.shards[int(d[0])%shardCount]
	s.mu.Lock()
	if s.counts == nil {
		s.counts = map[protocol.Digest]counts{}
	}
	n := s.counts[d]
	n.fetches += f
	n.resolutions += r
	s.counts[d] = n
	s.mu.Unlock()
}

// Flush writes the counts gathered since the last flush, as today's, in
// batches of store.MaxAdoptionBatch; a failed batch is kept for the next
// flush. On a new day it also refreshes the store's scores.
func (c *Counter) Flush(ctx context.Context) error { return c.flushCounts(ctx, false) }

// flushCounts is Flush; paced, it rests after each batch but the last for
// as long as the batch took, so a flush of many hashes takes at most half
// of one core from the requests being counted (a 5 s flush of a cold-fetch
// load of 100,000 hashes otherwise held a core for a second on SQLite and
// stalled fetches for 250 ms: docs/BENCHMARKS.md, "Adoption flush").
func (c *Counter) flushCounts(ctx context.Context, paced bool) error {
	c.flush.Lock()
	defer c.flush.Unlock()
	// One slice of every delta, the failed ones of the last flush included:
	// no second map of every hash while the flush runs. A hash may appear
	// twice (a carried delta and new counts); the stores add both.
	ordered := make([]store.AdoptionDelta, 0, len(c.carry))
	for _, d := range c.carry {
		ordered = append(ordered, d)
	}
	c.carry = map[protocol.Digest]store.AdoptionDelta{}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		taken := s.counts
		s.counts = nil
		s.mu.Unlock()
		for d, n := range taken {
			ordered = append(ordered, store.AdoptionDelta{Digest: d, Fetches: n.fetches, Resolutions: n.resolutions})
		}
	}
	// In hash order: each batch then touches neighbouring index pages
	// instead of random ones (docs/BENCHMARKS.md, "Adoption flush").
	slices.SortFunc(ordered, func(a, b store.AdoptionDelta) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
	// A clock stepped back across midnight counts into the day the store
	// was last refreshed for: a day whose window the store has moved past
	// would be scored against rows the refresh already left behind.
	today := store.Day(c.now())
	if today.Before(c.lastDay) {
		today = c.lastDay
	}
	var firstErr error
	for i := 0; i < len(ordered); i += store.MaxAdoptionBatch {
		batch := ordered[i:min(i+store.MaxAdoptionBatch, len(ordered))]
		began := time.Now()
		if err := c.sink.AddAdoption(ctx, today, batch); err != nil {
			// Added, not set: a failed batch may hold a hash twice.
			for _, d := range batch {
				old := c.carry[d.Digest]
				c.carry[d.Digest] = store.AdoptionDelta{Digest: d.Digest, Fetches: old.Fetches + d.Fetches, Resolutions: old.Resolutions + d.Resolutions}
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if paced && i+store.MaxAdoptionBatch < len(ordered) {
			rest(ctx, time.Since(began))
		}
	}
	if !today.Equal(c.lastDay) {
		if err := c.sink.RefreshAdoption(ctx, today); err != nil && firstErr == nil {
			firstErr = err
		} else if err == nil {
			c.lastDay = today
		}
	}
	return firstErr
}

// Run flushes every interval until ctx ends, then once more with a fresh
// context (the counts of the last seconds before a shutdown are kept).
func (c *Counter) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultFlushInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if err := c.Flush(fctx); err != nil {
				c.log.Warn("writing adoption counts at shutdown failed; they are lost", "error", err)
			}
			cancel()
			return
		case <-t.C:
			if err := c.flushCounts(ctx, true); err != nil && ctx.Err() == nil {
				c.log.Warn("writing adoption counts failed; retried at the next flush", "error", err)
			}
		}
	}
}

// rest waits for d or until ctx ends.
func rest(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
