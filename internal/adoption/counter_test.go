package adoption

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// sumSink adds up what it is given; failing makes writes fail.
type sumSink struct {
	mu      sync.Mutex
	sums    map[protocol.Digest]store.AdoptionCounts
	batches int
	failing atomic.Bool
}

func (s *sumSink) AddAdoption(_ context.Context, _ time.Time, ds []store.AdoptionDelta) error {
	if s.failing.Load() {
		return errors.New("down")
	}
	if len(ds) > store.MaxAdoptionBatch {
		return errors.New("batch too big")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches++
	for _, d := range ds {
		c := s.sums[d.Digest]
		c.Fetches += d.Fetches
		c.Resolutions += d.Resolutions
		s.sums[d.Digest] = c
	}
	return nil
}

func (s *sumSink) RefreshAdoption(context.Context, time.Time) error { return nil }

// client is the one client most tests count.
var client = netip.MustParseAddr("192.0.2.1")

func digest(i int) protocol.Digest {
	var d protocol.Digest
	d[0], d[1] = byte(i), byte(i>>8)
	return d
}

// Counts added by many goroutines while flushes run beside them, each
// flush taking the shards' maps away, all reach the sink.
func TestConcurrentLoadLosesNothing(t *testing.T) {
	sink := &sumSink{sums: map[protocol.Digest]store.AdoptionCounts{}}
	c := New(sink, nil, nil)
	const workers, perWorker, hashes = 8, 20000, 1500
	stop := make(chan struct{})
	var flusher sync.WaitGroup
	flusher.Add(1)
	go func() {
		defer flusher.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			sink.failing.Store(i%7 == 3) // some flushes fail and carry over
			_ = c.Flush(context.Background())
		}
	}()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				// Bursts on few hashes, then silence, across many flushes.
				d := digest((w*perWorker + i) / 50 % hashes)
				if i%3 == 0 {
					c.Resolved(d, client)
				} else {
					c.Fetched(d, client)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	flusher.Wait()
	sink.failing.Store(false)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	var f, r int64
	for _, s := range sink.sums {
		f += s.Fetches
		r += s.Resolutions
	}
	wantR := int64(workers * ((perWorker + 2) / 3))
	if f+r != workers*perWorker || r != wantR {
		t.Fatalf("sink got %d fetches and %d resolutions, want %d and %d", f, r, workers*perWorker-wantR, wantR)
	}
	if sink.batches < 2 {
		t.Fatalf("only %d batches: %d distinct hashes must split into batches of %d", sink.batches, hashes, store.MaxAdoptionBatch)
	}
}

// Run writes what is counted when its context ends, into a real store.
func TestRunFlushesOnShutdown(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := New(st, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx, time.Hour); close(done) }()
	for range 5 {
		c.Fetched(digest(1), client)
	}
	c.Resolved(digest(1), client)
	cancel()
	<-done
	totals, err := st.AdoptionTotals(context.Background(), []protocol.Digest{digest(1)}, store.WindowStart(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if got := totals[digest(1)]; got.Fetches != 5 || got.Resolutions != 1 {
		t.Fatalf("after shutdown the store holds %+v", got)
	}
}

// The hot path allocates nothing once a hash is in its shard's map.
func TestHotPathAllocatesNothing(t *testing.T) {
	c := New(&sumSink{sums: map[protocol.Digest]store.AdoptionCounts{}}, nil, nil)
	d := digest(9)
	c.Fetched(d, client)
	if n := testing.AllocsPerRun(1000, func() { c.Fetched(d, client) }); n != 0 {
		t.Fatalf("Fetched allocates %v times", n)
	}
}

// orderSink records the order in which digests are written.
type orderSink struct{ written []protocol.Digest }

func (s *orderSink) AddAdoption(_ context.Context, _ time.Time, ds []store.AdoptionDelta) error {
	for _, d := range ds {
		s.written = append(s.written, d.Digest)
	}
	return nil
}

func (s *orderSink) RefreshAdoption(context.Context, time.Time) error { return nil }

// A flush writes in hash order across all its batches, so the store's
// index writes are sequential rather than random.
func TestFlushWritesInHashOrder(t *testing.T) {
	sink := &orderSink{}
	c := New(sink, nil, nil)
	n := 2*store.MaxAdoptionBatch + 7
	for i := range n {
		c.Fetched(digest(i*7919), client) // scattered: not added in hash order
	}
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(sink.written) != n {
		t.Fatalf("wrote %d digests, want %d", len(sink.written), n)
	}
	if !slices.IsSortedFunc(sink.written, func(a, b protocol.Digest) int { return bytes.Compare(a[:], b[:]) }) {
		t.Fatal("a flush did not write in hash order")
	}
}

// The shards' maps hold no pointers, so the collector never scans them
// however many hashes they count (docs/BENCHMARKS.md, "Adoption flush").
func TestShardMapsHoldNoPointers(t *testing.T) {
	var sh shard
	m := reflect.TypeOf(sh.counts)
	for _, typ := range []reflect.Type{m.Key(), m.Elem()} {
		if hasPointers(typ) {
			t.Fatalf("%v holds pointers", typ)
		}
	}
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true
}

// slowSink takes a fixed time per batch and records when each began.
type slowSink struct {
	took   time.Duration
	mu     sync.Mutex
	starts []time.Time
}

func (s *slowSink) AddAdoption(context.Context, time.Time, []store.AdoptionDelta) error {
	s.mu.Lock()
	s.starts = append(s.starts, time.Now())
	s.mu.Unlock()
	time.Sleep(s.took)
	return nil
}

func (s *slowSink) RefreshAdoption(context.Context, time.Time) error { return nil }

// A periodic flush rests after each batch as long as the batch took, so
// it holds at most half of a core away from the requests it counts.
func TestPeriodicFlushRestsBetweenBatches(t *testing.T) {
	sink := &slowSink{took: 30 * time.Millisecond}
	c := New(sink, nil, nil)
	for i := range 2*store.MaxAdoptionBatch + 1 {
		c.Fetched(digest(i), client)
	}
	if err := c.flushCounts(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if len(sink.starts) != 3 {
		t.Fatalf("%d batches, want 3", len(sink.starts))
	}
	for i := 1; i < len(sink.starts); i++ {
		if gap := sink.starts[i].Sub(sink.starts[i-1]); gap < 2*sink.took {
			t.Errorf("batch %d began %v after the one before, want at least %v (the batch and a rest as long)", i, gap, 2*sink.took)
		}
	}
}

// Counts of a hash that stay unwritten through two failed flushes in a
// row (a carried delta and new counts in one failed batch) are all kept.
func TestFailedFlushesInARowKeepEveryCount(t *testing.T) {
	sink := &sumSink{sums: map[protocol.Digest]store.AdoptionCounts{}}
	c := New(sink, nil, nil)
	d := digest(1)
	sink.failing.Store(true)
	for range 2 {
		c.Fetched(d, client)
		c.Resolved(d, client)
		if err := c.Flush(context.Background()); err == nil {
			t.Fatal("a flush into a failing sink reported no error")
		}
	}
	sink.failing.Store(false)
	c.Fetched(d, client)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := sink.sums[d], (store.AdoptionCounts{Fetches: 3, Resolutions: 2}); got != want {
		t.Fatalf("written %+v, want %+v", got, want)
	}
}

// firstSlowSink is a sumSink whose first batch takes a while and that,
// like a store, refuses writes once their context has ended.
type firstSlowSink struct {
	sumSink
	took    time.Duration
	written chan struct{} // closed when the first batch is written
	once    sync.Once
}

func (s *firstSlowSink) AddAdoption(ctx context.Context, day time.Time, ds []store.AdoptionDelta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	first := false
	s.once.Do(func() { first = true })
	if !first {
		return s.sumSink.AddAdoption(ctx, day, ds)
	}
	time.Sleep(s.took)
	err := s.sumSink.AddAdoption(ctx, day, ds)
	close(s.written)
	return err
}

// A shutdown while a periodic flush rests after a batch ends the rest at
// once, and the batches the flush had not written yet go out with the
// shutdown's flush: every count is written, once.
func TestShutdownDuringAPacedFlushLosesNothing(t *testing.T) {
	sink := &firstSlowSink{
		sumSink: sumSink{sums: map[protocol.Digest]store.AdoptionCounts{}},
		took:    2 * time.Second,
		written: make(chan struct{}),
	}
	c := New(sink, nil, nil)
	hashes := 2*store.MaxAdoptionBatch + 1
	for i := range hashes {
		c.Fetched(digest(i), client)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Run(ctx, time.Millisecond); close(done) }()
	<-sink.written
	// The flush now rests as long as the first batch took (2 s).
	stopped := time.Now()
	cancel()
	<-done
	if waited := time.Since(stopped); waited >= sink.took {
		t.Errorf("Run returned %v after its context ended: the rest did not end with it", waited)
	}
	if len(sink.sums) != hashes {
		t.Fatalf("%d hashes written, want %d", len(sink.sums), hashes)
	}
	for d, n := range sink.sums {
		if n != (store.AdoptionCounts{Fetches: 1}) {
			t.Fatalf("%x written as %+v, want one fetch", d[:2], n)
		}
	}
}

// daySink records the day of every batch and refresh.
type daySink struct {
	mu   sync.Mutex
	days []time.Time
}

func (s *daySink) AddAdoption(_ context.Context, day time.Time, _ []store.AdoptionDelta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.days = append(s.days, day)
	return nil
}

func (s *daySink) RefreshAdoption(_ context.Context, day time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.days = append(s.days, day)
	return nil
}

// Once the store is refreshed for a day, a clock stepped back before it
// still counts into that day, so no engine scores a window the refresh
// has moved past.
func TestAClockSteppedBackCountsIntoTheRefreshedDay(t *testing.T) {
	later := time.Date(2026, 3, 12, 0, 0, 5, 0, time.UTC)
	clock := later
	sink := &daySink{}
	c := New(sink, nil, func() time.Time { return clock })
	c.Fetched(digest(1), client)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	clock = later.Add(-10 * time.Second) // the day before
	c.Fetched(digest(1), client)
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := store.Day(later)
	for i, d := range sink.days {
		if !d.Equal(want) {
			t.Fatalf("call %d was for %s, want %s (the refreshed day)", i, d.Format(time.DateOnly), want.Format(time.DateOnly))
		}
	}
	if len(sink.days) != 3 { // a batch and a refresh, then a batch
		t.Fatalf("%d store calls, want 3", len(sink.days))
	}
}
