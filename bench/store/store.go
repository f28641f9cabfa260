// Package storebench measures the store API alone (no HTTP) on the shared
// benchmark corpus, and seeds stores for the profiles beside it.
package storebench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/adoption/sketch"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// Opener opens a fresh store for one benchmark.
type Opener func(b *testing.B) store.Store

// OpenSQLite opens a fresh SQLite store in a temporary directory.
func OpenSQLite(tb testing.TB) *sqlite.Store {
	tb.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "registry.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// OpenPostgres opens a fresh PostgreSQL store on a throw-away database
// (pgtest: REGISTRY_TEST_POSTGRES_DSN, else testcontainers, else skip).
func OpenPostgres(tb testing.TB) *postgres.Store {
	tb.Helper()
	s, err := postgres.Open(context.Background(), pgtest.NewDatabase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() }) // before the database is dropped
	return s
}

// BenchDocs is how many corpus documents Bench seeds: REGISTRY_BENCH_DOCS,
// or 2000 so a plain benchmark run stays quick.
func BenchDocs() int {
	if n, err := strconv.Atoi(os.Getenv("REGISTRY_BENCH_DOCS")); err == nil && n > 0 {
		return n
	}
	return 2000
}

// PrepareCorpus prepares corpus documents [from, to).
func PrepareCorpus(tb testing.TB, from, to int) []store.NewDocument {
	tb.Helper()
	out := make([]store.NewDocument, 0, to-from)
	for i := from; i < to; i++ {
		doc, err := protocol.Prepare(storetest.GenerateDocument(i), 0)
		if err != nil {
			tb.Fatalf("corpus document %d: %v", i, err)
		}
		out = append(out, store.NewDocument{Document: doc})
	}
	return out
}

// Seed stores corpus documents [0, n) with PutMany in batches of 1000 and
// returns their digests.
func Seed(tb testing.TB, s store.Store, n int) []protocol.Digest {
	tb.Helper()
	var digests []protocol.Digest
	for from := 0; from < n; from += 1000 {
		batch := PrepareCorpus(tb, from, min(from+1000, n))
		if _, err := s.PutMany(context.Background(), batch); err != nil {
			tb.Fatalf("seeding: %v", err)
		}
		for _, nd := range batch {
			digests = append(digests, nd.Document.Sums.SHA1)
		}
	}
	return digests
}

// Bench measures an engine: seeds BenchDocs() corpus documents into one
// store, then runs read benchmarks, then write benchmarks (which grow it).
// Search benchmarks report their 95th percentile latency as p95-ms.
func Bench(b *testing.B, open Opener) {
	s := open(b)
	n := BenchDocs()
	start := time.Now()
	digests := Seed(b, s, n)
	b.Logf("engine %s: seeded %d documents in %v (%.0f docs/s)", s.Engine(), n, time.Since(start), float64(n)/time.Since(start).Seconds())
	bg := context.Background()
	// run is b.Run that also reports process CPU time per operation (the
	// write benchmarks report their own, without document preparation).
	run := func(name string, fn func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			cpu0 := ProcessCPU()
			fn(b)
			if b.N > 0 && !strings.HasPrefix(name, "Put") {
				b.ReportMetric(float64(ProcessCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			}
		})
	}

	run("Get", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := s.Get(bg, digests[i%len(digests)], false); err != nil {
				b.Fatal(err)
			}
		}
	})
	run("Content", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, _, err := s.Content(bg, digests[(i*7919)%len(digests)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	run("Resolve1000", func(b *testing.B) {
		batch := make([]protocol.Digest, store.MaxResolve)
		for i := range batch {
			if i%2 == 0 {
				batch[i] = digests[(i*7919)%len(digests)]
			} else {
				batch[i] = protocol.Digest{byte(i), byte(i >> 8), 0xee} // misses
			}
		}
		for b.Loop() {
			if _, err := s.Resolve(bg, batch); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		q    store.Query
	}{
		{"SearchCommonWord", store.Query{Text: storetest.CommonWord}},
		{"SearchRareWord", store.Query{Text: storetest.RareWord}},
		{"SearchTwoWords", store.Query{Text: storetest.CommonWord + " booking"}},
		{"SearchHeadWord", store.Query{Text: storetest.CommonTag}},
		{"SearchTag", store.Query{Tags: []string{storetest.CommonTag}}},
		{"SearchWordAndTag", store.Query{Text: storetest.CommonWord, Tags: []string{storetest.CommonTag}}},
		{"BrowseNewest", store.Query{}},
		{"BrowseName", store.Query{Sort: store.SortName}},
	} {
		run(c.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := s.Search(bg, c.q); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			reportP95(b, lat)
		})
	}
	// Searches once 1% of the documents are adopted (their own branch:
	// internal/store/*/search.go).
	adopt(b, s, digests)
	for _, c := range []struct {
		name string
		q    store.Query
	}{
		{"SearchCommonWordAdopted", store.Query{Text: storetest.CommonWord}},
		{"SearchHeadWordAdopted", store.Query{Text: storetest.CommonTag}},
	} {
		run(c.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := s.Search(bg, c.q); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			reportP95(b, lat)
		})
	}
	run("Put", func(b *testing.B) {
		next := n + 1_000_000
		var cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			nd := PrepareCorpus(b, next, next+1)[0]
			next++
			b.StartTimer()
			cpu0 := ProcessCPU()
			if _, created, err := s.Put(bg, nd); err != nil || !created {
				b.Fatalf("Put: created=%v err=%v", created, err)
			}
			cpu += ProcessCPU() - cpu0
		}
		b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	})
	run("PutMany1000", func(b *testing.B) {
		next := n + 2_000_000
		docs := 0
		var spent, cpu time.Duration
		for b.Loop() {
			b.StopTimer()
			batch := PrepareCorpus(b, next, next+1000)
			next += 1000
			b.StartTimer()
			t0, cpu0 := time.Now(), ProcessCPU()
			if _, err := s.PutMany(bg, batch); err != nil {
				b.Fatal(err)
			}
			spent += time.Since(t0)
			cpu += ProcessCPU() - cpu0
			docs += len(batch)
		}
		b.ReportMetric(float64(docs)/spent.Seconds(), "docs/s")
		b.ReportMetric(float64(docs)/cpu.Seconds(), "docs/cpu-s")
	})
}

func reportP95(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)*95/100])/float64(time.Millisecond), "p95-ms")
}

// adopt gives every hundredth document distinct clients (1 to 200, so
// levels 1 to 7), in batches of store.MaxAdoptionBatch.
func adopt(tb testing.TB, s store.Store, digests []protocol.Digest) {
	tb.Helper()
	var batch []store.AdoptionDelta
	for i := 0; i < len(digests); i += 100 {
		hs := make([]uint64, 1+(i/100)%200)
		for j := range hs {
			hs[j] = uint64(i)<<20 | uint64(j)
		}
		batch = append(batch, store.AdoptionDelta{Digest: digests[i], Fetches: int64(len(hs)), Clients: sketch.Of(hs)})
		if len(batch) == store.MaxAdoptionBatch || i+100 >= len(digests) {
			if err := s.AddAdoption(context.Background(), time.Now(), batch); err != nil {
				tb.Fatalf("adoption: %v", err)
			}
			batch = batch[:0]
		}
	}
}
