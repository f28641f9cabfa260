package adoption

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/adoption/sketch"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// seeded is a deterministic source for the day's keys.
type seeded struct{ r *rand.ChaCha8 }

func (s seeded) Read(p []byte) (int, error) { return s.r.Read(p) }

func seededCounter(sink Sink, seed byte, now func() time.Time) *Counter {
	c := New(sink, nil, now)
	c.random = seeded{rand.NewChaCha8([32]byte{seed})}
	c.key.Store(newDayKey(store.Day(c.now()), c.random))
	return c
}

func ipv4(i int) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], 0x0a000000+uint32(i))
	return netip.AddrFrom4(b)
}

func openSQLite(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func dayTotals(t *testing.T, st store.Store, d protocol.Digest) store.AdoptionCounts {
	t.Helper()
	totals, err := st.AdoptionTotals(context.Background(), []protocol.Digest{d}, store.WindowStart(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	return totals[d]
}

// The attack: 3,000 fetches from one client, flushed now and then, count
// 3,000 fetches and one client.
func TestOneClientCountsOnceADay(t *testing.T) {
	st := openSQLite(t)
	c := New(st, nil, nil)
	d := digest(3)
	for i := range 3000 {
		c.Fetched(d, client)
		if i%1000 == 999 {
			if err := c.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := dayTotals(t, st, d); got.Fetches != 3000 || got.Clients != 1 {
		t.Fatalf("3000 fetches from one client: %+v", got)
	}
}

// N distinct clients count N: exactly up to sketch.SparseMax, within the
// sketch's documented bound beyond (a seeded key, so the run repeats).
func TestDistinctClientsCountEach(t *testing.T) {
	st := openSQLite(t)
	c := seededCounter(st, 7, nil)
	sigma := 1.04 / math.Sqrt(1<<sketch.Precision)
	for i, n := range []int{1, sketch.SparseMax, 5000, 40000} {
		d := digest(100 + i)
		for j := range n {
			c.Fetched(d, ipv4(j))
			c.Resolved(d, ipv4(j)) // the same client resolving too
		}
		if err := c.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := dayTotals(t, st, d).Clients
		if n <= sketch.SparseMax && got != int64(n) || math.Abs(float64(got-int64(n)))/float64(n) > 3*sigma {
			t.Errorf("%d clients counted as %d", n, got)
		}
	}
}

// Flushes of one day merge their clients: a failed flush carried into the
// next, the same clients in a later flush, and a restarted counter's
// flush (a new key) all add to the day's sketch; none replaces it.
func TestFlushesOfADayMergeTheirClients(t *testing.T) {
	st := openSQLite(t)
	sink := &flakySink{Sink: st}
	c := New(sink, nil, nil)
	d := digest(5)
	for i := range 100 {
		c.Fetched(d, ipv4(i))
	}
	sink.fail = true
	if err := c.Flush(context.Background()); err == nil {
		t.Fatal("the failing flush succeeded")
	}
	for i := range 100 { // the same clients again, meeting the carried delta
		c.Fetched(d, ipv4(i))
	}
	sink.fail = false
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 50; i < 120; i++ { // half already counted
		c.Fetched(d, ipv4(i))
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := dayTotals(t, st, d); got.Clients != 120 || got.Fetches != 270 {
		t.Fatalf("after three flushes: %+v, want 120 clients and 270 fetches", got)
	}
	// A restart: a new counter, a new key. Its clients add to the day's;
	// the earlier flushes' stay.
	restarted := New(st, nil, nil)
	for i := 1000; i < 1010; i++ {
		restarted.Fetched(d, ipv4(i))
	}
	if err := restarted.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := dayTotals(t, st, d); got.Clients != 130 {
		t.Fatalf("after a restarted counter's flush: %d clients, want 130", got.Clients)
	}
}

type flakySink struct {
	Sink
	fail bool
}

func (s *flakySink) AddAdoption(ctx context.Context, day time.Time, ds []store.AdoptionDelta) error {
	if s.fail {
		return context.DeadlineExceeded
	}
	return s.Sink.AddAdoption(ctx, day, ds)
}

// The key is replaced at the first flush of a new UTC day: the same
// client hashes differently, and yesterday's key is gone.
func TestTheKeyChangesWithTheDay(t *testing.T) {
	now := time.Date(2026, 5, 1, 23, 59, 0, 0, time.UTC)
	c := New(&sumSink{sums: map[protocol.Digest]store.AdoptionCounts{}}, nil, func() time.Time { return now })
	before := c.key.Load()
	h := before.hash(client)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.key.Load() != before {
		t.Fatal("the key changed within the day")
	}
	now = now.Add(2 * time.Minute)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := c.key.Load()
	if after == before || after.k0 == before.k0 && after.k1 == before.k1 || after.hash(client) == h || !after.day.Equal(store.Day(now)) {
		t.Fatal("a new day kept the old key")
	}
}

// Many clients cannot grow a shard past shardPairs: their requests still
// count, without their clients, and an early flush is asked for.
func TestPairsPerShardAreBounded(t *testing.T) {
	sink := &sumSink{sums: map[protocol.Digest]store.AdoptionCounts{}}
	c := New(sink, nil, nil)
	d := digest(8)
	const n = shardCount*shardPairs + 5000
	for i := range n {
		c.Fetched(d, ipv4(i))
	}
	for i := range c.shards {
		if got := len(c.shards[i].counts); got > shardPairs+1 { // +1: the shard's no-client pair
			t.Fatalf("shard %d holds %d pairs, more than %d", i, got, shardPairs)
		}
	}
	select {
	case <-c.full:
	default:
		t.Fatal("full shards asked for no early flush")
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := sink.sums[d].Fetches; got != n {
		t.Fatalf("%d fetches reached the sink, want %d", got, n)
	}
}

// Counting a fetch with its client allocates nothing once the pair is in
// its shard (the hash is computed on the stack, before the lock).
func TestClientHashAllocatesNothing(t *testing.T) {
	k := newDayKey(time.Now(), seeded{rand.NewChaCha8([32]byte{1})})
	a := netip.MustParseAddr("2001:db8::")
	if n := testing.AllocsPerRun(1000, func() { _ = k.hash(a) }); n != 0 {
		t.Fatalf("hashing a client allocates %v times", n)
	}
}

// sipHash16 is SipHash-2-4: vectors from OpenSSL's SIPHASH MAC
// (`openssl mac -macopt hexkey:KEY -macopt size:8 -in MSG SIPHASH`, whose
// output is the hash's little-endian bytes).
func TestSipHashVectors(t *testing.T) {
	le := func(h string) uint64 {
		var b [16]byte
		if _, err := hex.Decode(b[:len(h)/2], []byte(h)); err != nil {
			t.Fatal(err)
		}
		return binary.LittleEndian.Uint64(b[:8])
	}
	for _, v := range []struct{ key, msg, out string }{
		{"000102030405060708090a0b0c0d0e0f", "000102030405060708090a0b0c0d0e0f", "db9bc2577fcc2a3f"},
		{"f0e1d2c3b4a5968778695a4b3c2d1e0f", "00000000000000000000ffffcb00714d", "bac65ed369e01bbd"},
	} {
		k, m := v.key, v.msg
		got := sipHash16(le(k[:16]), le(k[16:]), le(m[:16]), le(m[16:]))
		if want := le(v.out); got != want {
			t.Errorf("SipHash(%s, %s) = %016x, want %016x", k, m, got, want)
		}
	}
}

// clientDays keeps each day's sketches merged, as the stores do.
type clientDays struct{ days map[time.Time][]byte }

func (s *clientDays) AddAdoption(_ context.Context, day time.Time, ds []store.AdoptionDelta) error {
	for _, d := range ds {
		merged, err := sketch.Merge(s.days[day], d.Clients)
		if err != nil {
			return err
		}
		s.days[day] = merged
	}
	return nil
}

func (s *clientDays) RefreshAdoption(context.Context, time.Time) error { return nil }

// A client seen just before midnight and again just after, with the
// flush between falling after midnight, counts once on each day, never
// twice on the new one (the old key's hash is yesterday's).
func TestMidnightFlushCountsNoClientTwice(t *testing.T) {
	now := time.Date(2026, 5, 1, 23, 59, 58, 0, time.UTC)
	sink := &clientDays{days: map[time.Time][]byte{}}
	c := seededCounter(sink, 3, func() time.Time { return now })
	d := digest(1)
	c.Fetched(d, client)
	now = now.Add(4 * time.Second) // past midnight, before the flush
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.Fetched(d, client)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, day := range []time.Time{store.Day(now.Add(-time.Hour)), store.Day(now)} {
		n, err := sketch.Estimate(sink.days[day])
		if err != nil || n != 1 {
			t.Errorf("distinct clients on %s: %d (%v), want 1", day.Format(time.DateOnly), n, err)
		}
	}
}
