// Package adoption counts raw fetches and resolutions per protocol hash in
// memory and writes them to the store in batches: a request costs a map
// update under one of 64 locks, never a database write.
//
// It also counts distinct clients per hash and day without keeping who
// asked: a client's address (an IPv4 address or IPv6 /64) is hashed at once
// with SipHash-2-4, a keyed pseudorandom function, under a random 128-bit
// key made for the day and kept only in this process's memory; the store
// receives a sketch of those 64-bit hashes (internal/adoption/sketch). Without
// the key, which is never written anywhere and replaced at the first flush
// of each UTC day, a hash cannot be tied to an address, even by trying
// every IPv4 address. One process counts a client once per day; a client
// that reaches two replicas, or one registry before and after a restart,
// is counted once per key it met.
package adoption

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"io"
	"log/slog"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agora-registry/registry/internal/adoption/sketch"
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

// shardPairs bounds the (hash, client) pairs one shard holds between
// flushes (64 × 2,048 pairs of 48 bytes: a few MiB). A full shard counts
// a new pair's requests without its client and asks for an early flush,
// so many addresses cannot grow memory, only wait for the next flush.
const shardPairs = 2048

// noClient is the client hash of requests counted without a client (a
// full shard); keyed hashes of 0 are taken as 1.
const noClient = 0

// shard holds some hashes' counts since the last flush, per client. Its
// map holds no pointers, so the garbage collector never scans it however
// many hashes it counts (with a pointer per hash, 100,000 counted hashes
// kept the collector busy under the memory budget: docs/BENCHMARKS.md,
// "Adoption flush").
type shard struct {
	mu     sync.Mutex
	counts map[pair]counts
}

// pair is one client's requests for one hash; client is a keyed hash.
type pair struct {
	d      protocol.Digest
	client uint64
}

type counts struct{ fetches, resolutions int64 }

// dayKey is the random key clients are hashed with on one UTC day.
type dayKey struct {
	day    time.Time
	k0, k1 uint64
}

func newDayKey(day time.Time, random io.Reader) *dayKey {
	var secret [16]byte
	if _, err := io.ReadFull(random, secret[:]); err != nil {
		panic("adoption: no randomness for the day's key: " + err.Error()) // crypto/rand never fails
	}
	return &dayKey{day: day, k0: binary.LittleEndian.Uint64(secret[:8]), k1: binary.LittleEndian.Uint64(secret[8:])}
}

// hash is the client's keyed hash (never noClient). No allocation.
func (k *dayKey) hash(client netip.Addr) uint64 {
	a := client.As16()
	if h := sipHash16(k.k0, k.k1, binary.LittleEndian.Uint64(a[:8]), binary.LittleEndian.Uint64(a[8:])); h != noClient {
		return h
	}
	return 1
}

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
	key     atomic.Pointer[dayKey]
	random  io.Reader // the keys' source: crypto/rand (tests seed it)
	// full asks Run for an early flush when a shard is full.
	full chan struct{}
}

// New returns a counter writing to sink; now is the clock (nil: time.Now).
func New(sink Sink, log *slog.Logger, now func() time.Time) *Counter {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	c := &Counter{sink: sink, log: log, now: now, carry: map[protocol.Digest]store.AdoptionDelta{}, full: make(chan struct{}, 1), random: rand.Reader}
	c.key.Store(newDayKey(store.Day(now()), c.random))
	return c
}

// Fetched counts one raw fetch of d by client (an address as
// api.ClientKey makes it: IPv4, or an IPv6 /64).
func (c *Counter) Fetched(d protocol.Digest, client netip.Addr) {
	if c != nil {
		c.add(d, client, 1, 0)
	}
}

// Resolved counts one resolution of d by client.
func (c *Counter) Resolved(d protocol.Digest, client netip.Addr) {
	if c != nil {
		c.add(d, client, 0, 1)
	}
}

// add hashes the client before taking the lock; the shard follows hash and
// client, so one hot hash's clients spread over the shards.
func (c *Counter) add(d protocol.Digest, client netip.Addr, f, r int64) {
	p := pair{d: d, client: c.key.Load().hash(client)}
	s := &c.shards[(uint(d[0])+uint(p.client))%shardCount]
	s.mu.Lock()
	if s.counts == nil {
		s.counts = map[pair]counts{}
	}
	n, ok := s.counts[p]
	if !ok && len(s.counts) >= shardPairs {
		p.client = noClient
		n = s.counts[p]
		select {
		case c.full <- struct{}{}:
		default:
		}
	}
	n.fetches += f
	n.resolutions += r
	s.counts[p] = n
	s.mu.Unlock()
}

// Flush writes the counts gathered since the last flush, as the day's their
// clients were hashed for (today's, but at the first flush after midnight), in
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
	// A clock stepped back across midnight counts into the day the store
	// was last refreshed for: a day whose window the store has moved past
	// would be scored against rows the refresh already left behind.
	today := store.Day(c.now())
	if today.Before(c.lastDay) {
		today = c.lastDay
	}
	// The counts taken below were hashed with the key of their own day, and
	// are written as that day's: across midnight, the last interval's
	// clients would otherwise join the new day's under another hash and
	// count twice. A new day's clients get a new key before the counts are
	// taken; the old one is gone after this flush.
	hashedFor := c.key.Load().day
	if hashedFor.Before(c.lastDay) {
		hashedFor = c.lastDay
	}
	if !c.key.Load().day.Equal(today) {
		c.key.Store(newDayKey(today, c.random))
	}
	type gathered struct {
		counts
		clients []uint64
	}
	byDigest := map[protocol.Digest]*gathered{}
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		taken := s.counts
		s.counts = nil
		s.mu.Unlock()
		for p, n := range taken {
			g := byDigest[p.d]
			if g == nil {
				g = &gathered{}
				byDigest[p.d] = g
			}
			g.fetches += n.fetches
			g.resolutions += n.resolutions
			if p.client != noClient {
				g.clients = append(g.clients, p.client)
			}
		}
	}
	for d, g := range byDigest {
		ordered = append(ordered, store.AdoptionDelta{Digest: d, Fetches: g.fetches, Resolutions: g.resolutions, Clients: sketch.Of(g.clients)})
	}
	// In hash order: each batch then touches neighbouring index pages
	// instead of random ones (docs/BENCHMARKS.md, "Adoption flush").
	slices.SortFunc(ordered, func(a, b store.AdoptionDelta) int { return bytes.Compare(a.Digest[:], b.Digest[:]) })
	var firstErr error
	for i := 0; i < len(ordered); i += store.MaxAdoptionBatch {
		batch := ordered[i:min(i+store.MaxAdoptionBatch, len(ordered))]
		began := time.Now()
		if err := c.sink.AddAdoption(ctx, hashedFor, batch); err != nil {
			// Added and merged, not set: a failed batch may hold a hash twice.
			for _, d := range batch {
				old := c.carry[d.Digest]
				clients, err := sketch.Merge(old.Clients, d.Clients)
				if err != nil { // only this package's sketches reach here
					clients = d.Clients
				}
				c.carry[d.Digest] = store.AdoptionDelta{Digest: d.Digest, Fetches: old.Fetches + d.Fetches, Resolutions: old.Resolutions + d.Resolutions, Clients: clients}
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
		case <-c.full: // a shard is full: flush now, not at the tick
		}
		if err := c.flushCounts(ctx, true); err != nil && ctx.Err() == nil {
			c.log.Warn("writing adoption counts failed; retried at the next flush", "error", err)
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
