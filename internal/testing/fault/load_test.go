package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// EnvLoadDuration sets how long the sustained load runs per engine (a Go
// duration). CI keeps the default; run it for minutes locally.
const EnvLoadDuration = "REGISTRY_TEST_LOAD_DURATION"

const defaultLoadDuration = 30 * time.Second

// loadDuration is the sustained load's length per engine.
func loadDuration(t *testing.T) time.Duration {
	v := os.Getenv(EnvLoadDuration)
	if v == "" {
		return defaultLoadDuration
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > 24*time.Hour {
		t.Fatalf("%s=%q: want a positive Go duration up to 24h", EnvLoadDuration, v)
	}
	return d
}

// TestSustainedMixedLoad runs fetch/search/publish/resolve/metadata for a
// bounded time against a registry process on each engine: no request may
// fail, and resident memory must stay flat (a leak check: the peak may not
// exceed twice the start plus 50 MiB).
func TestSustainedMixedLoad(t *testing.T) {
	requireFaults(t)
	d := loadDuration(t)
	t.Run("sqlite", func(t *testing.T) {
		runMixedLoad(t, d, "--data-dir", t.TempDir())
	})
	t.Run("postgres", func(t *testing.T) {
		runMixedLoad(t, d, "--database-url", pgtest.NewDatabase(t), "--data-dir", t.TempDir())
	})
}

// loadStats counts requests by kind.
type loadStats struct {
	fetch, search, publish, resolve, metadata atomic.Int64
	mu                                        sync.Mutex
	errors                                    []string
	errorCount                                atomic.Int64
}

func (s *loadStats) fail(format string, args ...any) {
	s.errorCount.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.errors) < 20 {
		s.errors = append(s.errors, fmt.Sprintf(format, args...))
	}
}

func runMixedLoad(t *testing.T, d time.Duration, storeArgs ...string) {
	const (
		workers     = 8
		seedDocs    = 300
		resolveSize = 100
		memSlack    = 50 << 20
	)
	srv := startServer(t, storeArgs...)
	c := newClient()
	defer c.close()
	ctx, cancel := context.WithTimeout(context.Background(), d+3*time.Minute)
	defer cancel()
	if err := waitReady(ctx, c, srv.URL); err != nil {
		t.Fatal(err)
	}
	acked := newLedger()
	seedRng := rand.New(rand.NewPCG(7, 7))
	for range seedDocs {
		doc := newDocument(seedRng)
		if st, _, body, ok, err := c.publish(ctx, srv.URL, doc); !ok {
			t.Fatalf("seeding: %d %v %.200s", st, err, body)
		}
		acked.add(doc)
	}

	var stats loadStats
	rss := sampleRSS(srv.PID())
	loadCtx, stop := context.WithTimeout(ctx, d)
	defer stop()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(11, uint64(w)))
			for loadCtx.Err() == nil {
				mixedRequest(loadCtx, c, srv.URL, rng, acked, &stats, resolveSize)
			}
		}()
	}
	wg.Wait()
	start, peak, end, samples, err := rss.finish()
	if err != nil {
		t.Fatalf("sampling memory: %v", err)
	}

	total := stats.fetch.Load() + stats.search.Load() + stats.publish.Load() + stats.resolve.Load() + stats.metadata.Load()
	if n := stats.errorCount.Load(); n > 0 {
		stats.mu.Lock()
		t.Errorf("%d of %d requests failed; first: %v", n, total, stats.errors)
		stats.mu.Unlock()
	}
	if bound := 2*start + memSlack; peak > bound {
		t.Errorf("resident memory grew from %.1f MiB to a peak of %.1f MiB (bound %.1f MiB): a leak?", mib(start), mib(peak), mib(bound))
	}
	if bad := acked.verifyAll(ctx, c, srv.URL); len(bad) > 0 {
		t.Errorf("%d acknowledged publishes missing or changed after the load: %v", len(bad), bad[:min(5, len(bad))])
	}
	t.Logf("FIGURES load-%s: duration=%s workers=%d requests=%d (%.0f/s) fetch=%d search=%d publish=%d resolve=%d(x%d hashes) metadata=%d errors=%d documents=%d rss_mib start=%.1f peak=%.1f end=%.1f samples=%d",
		t.Name(), d, workers, total, float64(total)/d.Seconds(), stats.fetch.Load(), stats.search.Load(), stats.publish.Load(),
		stats.resolve.Load(), resolveSize, stats.metadata.Load(), stats.errorCount.Load(), acked.len(), mib(start), mib(peak), mib(end), samples)
}

// mixedRequest makes one request of a weighted mix and checks its answer.
func mixedRequest(ctx context.Context, c *client, base string, rng *rand.Rand, acked *ledger, stats *loadStats, resolveSize int) {
	ok := func(what string, st int, body []byte, err error) bool {
		if ctx.Err() != nil {
			return false // the load's end cut this request
		}
		if err != nil || st != 200 {
			stats.fail("%s: status %d, err %v: %.200s", what, st, err, body)
			return false
		}
		return true
	}
	switch r := rng.IntN(100); {
	case r < 50: // raw fetch of a known document: exact bytes
		stats.fetch.Add(1)
		h := acked.pick(rng)
		st, _, body, err := c.do(ctx, "GET", base+"/protocol/"+h, "", nil)
		if ok("fetch "+h, st, body, err) && !bytes.Equal(body, acked.get(h)) {
			stats.fail("fetch %s: different bytes", h)
		}
	case r < 65: // full-text search, sometimes a tag filter and a second page
		stats.search.Add(1)
		q := url.Values{"q": {words[rng.IntN(len(words))]}, "limit": {"20"}}
		if rng.IntN(3) == 0 {
			q.Set("tag", words[rng.IntN(len(words))])
		}
		st, _, body, err := c.do(ctx, "GET", base+"/api/v1/protocols?"+q.Encode(), "", nil)
		if !ok("search "+q.Encode(), st, body, err) {
			return
		}
		var page struct {
			Items      []struct{ Hex string }
			NextCursor *string
		}
		if err := json.Unmarshal(body, &page); err != nil {
			stats.fail("search %s: %v", q.Encode(), err)
			return
		}
		if page.NextCursor != nil && rng.IntN(2) == 0 {
			stats.search.Add(1)
			q.Set("cursor", *page.NextCursor)
			st, _, body, err := c.do(ctx, "GET", base+"/api/v1/protocols?"+q.Encode(), "", nil)
			ok("search page 2", st, body, err)
		}
	case r < 75: // publish a new document
		stats.publish.Add(1)
		doc := newDocument(rng)
		st, _, body, acknowledged, err := c.publish(ctx, base, doc)
		if acknowledged {
			acked.add(doc)
		} else if ctx.Err() == nil {
			stats.fail("publish: status %d, err %v: %.200s", st, err, body)
		}
	case r < 90: // batch resolve: known hashes found, unknown ones not
		stats.resolve.Add(1)
		known := map[string]bool{}
		hashes := make([]string, 0, resolveSize)
		for len(hashes) < resolveSize {
			if rng.IntN(4) == 0 {
				h := fmt.Sprintf("%040x", rng.Uint64()) // almost surely unknown
				hashes = append(hashes, h)
				continue
			}
			h := acked.pick(rng)
			known[h] = true
			hashes = append(hashes, h)
		}
		req, _ := json.Marshal(map[string]any{"hashes": hashes})
		st, _, body, err := c.do(ctx, "POST", base+"/api/v1/resolve", "application/json", req)
		if !ok("resolve", st, body, err) {
			return
		}
		var res struct {
			Results []struct {
				Hash  string
				Found bool
			}
		}
		if err := json.Unmarshal(body, &res); err != nil || len(res.Results) != len(hashes) {
			stats.fail("resolve: %d results for %d hashes (%v)", len(res.Results), len(hashes), err)
			return
		}
		for _, it := range res.Results {
			if known[it.Hash] && !it.Found {
				stats.fail("resolve: acknowledged %s not found", it.Hash)
			}
		}
	default: // one entry's metadata
		stats.metadata.Add(1)
		h := acked.pick(rng)
		st, _, body, err := c.do(ctx, "GET", base+"/api/v1/protocols/"+h, "", nil)
		ok("metadata "+h, st, body, err)
	}
}
