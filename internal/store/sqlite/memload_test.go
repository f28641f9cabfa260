package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// TestMemoryUnderLoad measures what the store keeps resident while it
// serves a large corpus: cold reads across every document, searches,
// batch resolves and publishes, phase by phase. It is a measurement, not a
// check, so it only runs when asked:
//
//	REGISTRY_MEMTEST_DB=/tmp/mem100k.db REGISTRY_BENCH_DOCS=100000 \
//	  go test -tags memory.counters -run TestMemoryUnderLoad -v -timeout 30m ./internal/store/sqlite/
//
// The database at REGISTRY_MEMTEST_DB is seeded once (BenchDocs corpus
// documents) and copied for every run, so runs start from the same file.
// REGISTRY_MEMTEST_TUNING=readers,readCacheKiB,writeCacheKiB,bulkCacheKiB,mmapKiB
// overrides Open's knobs; REGISTRY_MEMTEST_PHASES=open,putmany runs only
// the phases named. The tag memory.counters makes modernc's C heap
// report its size.
func TestMemoryUnderLoad(t *testing.T) {
	seeded := os.Getenv("REGISTRY_MEMTEST_DB")
	if seeded == "" {
		t.Skip("set REGISTRY_MEMTEST_DB to run the memory measurement")
	}
	ctx := context.Background()
	n := storetest.BenchDocs()
	digests := seededDigests(t, seeded, n)

	tn := sqlite.DefaultTuning()
	if v := os.Getenv("REGISTRY_MEMTEST_TUNING"); v != "" {
		tn = parseTuning(t, v)
	}
	path := filepath.Join(t.TempDir(), "registry.db")
	copyFile(t, seeded, path)
	newDocs := storetest.PrepareCorpus(t, n+3_000_000, n+3_002_000)
	batches := storetest.PrepareCorpus(t, n+4_000_000, n+4_000_000+1000*batchCount())
	runtime.GC()
	debug.FreeOSMemory()

	m := newMemSampler()
	defer m.stop()
	s, err := sqlite.OpenTuned(ctx, path, tn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Logf("tuning %+v, %d documents, C heap counters %v", tn, len(digests), cHeapBytes() >= 0)
	t.Logf("%-8s %6s %9s %9s %8s %8s %8s %8s %8s", "phase", "ops", "wall-ms", "cpu-µs/op", "peakRSS", "endRSS", "goMapped", "goHeap", "cHeap")
	only := os.Getenv("REGISTRY_MEMTEST_PHASES") // e.g. "open,putmany"; empty runs all
	phase := func(name string, ops int, workers int, op func(i int) error) {
		if only != "" && !slices.Contains(strings.Split(only, ","), name) {
			return
		}
		m.resetPeak()
		cpu0, t0 := cpuTime(), time.Now()
		var next atomic.Int64
		var wg sync.WaitGroup
		var firstErr atomic.Value
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= ops {
						return
					}
					if err := op(i); err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if err, _ := firstErr.Load().(error); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wall, cpu := time.Since(t0), cpuTime()-cpu0
		peak := m.peak()
		runtime.GC()
		debug.FreeOSMemory()
		goMapped, goHeap := goMemory()
		t.Logf("%-8s %6d %9.0f %9.1f %8s %8s %8s %8s %8s", name, ops, float64(wall.Milliseconds()),
			float64(cpu.Microseconds())/float64(max(ops, 1)), mib(peak), mib(rss()), mib(goMapped), mib(goHeap), mib(cHeapBytes()))
		readers, err := s.ReaderMemory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		writer, err := s.WriterMemory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("         SQLite's own count, MiB (cache/schema/statements/lookaside): writer %s, readers %s", connMiB(writer), readersMiB(readers))
		misses := 0
		for _, r := range readers {
			misses += r.Misses
		}
		t.Logf("         page cache misses: writer %d (spilled %d), readers %d", writer.Misses, writer.Spills, misses)
	}

	phase("open", 0, 1, nil)
	phase("cold", len(digests), 32, func(i int) error {
		_, err := s.Content(ctx, digests[(i*7919)%len(digests)])
		return err
	})
	phase("get", 20000, 32, func(i int) error {
		_, err := s.Get(ctx, digests[(i*104729)%len(digests)], false)
		return err
	})
	queries := []store.Query{
		{Text: storetest.CommonWord}, {Text: storetest.RareWord}, {Text: storetest.CommonWord + " booking"},
		{Tags: []string{storetest.CommonTag}}, {Text: storetest.CommonWord, Tags: []string{storetest.CommonTag}},
		{}, {Sort: store.SortName}, {Text: storetest.CommonWord, Sort: store.SortNewest},
	}
	phase("common", 100, 4, func(int) error {
		_, err := s.Search(ctx, queries[0])
		return err
	})
	phase("search", 50*len(queries), 32, func(i int) error {
		_, err := s.Search(ctx, queries[i%len(queries)])
		return err
	})
	batch := make([]protocol.Digest, store.MaxResolve)
	for i := range batch {
		batch[i] = digests[(i*7919+13)%len(digests)]
	}
	phase("resolve", 100, 32, func(int) error {
		_, err := s.Resolve(ctx, batch)
		return err
	})
	phase("publish", len(newDocs), 16, func(i int) error {
		_, _, err := s.Put(ctx, newDocs[i])
		return err
	})
	phase("putmany", len(batches)/1000, 1, func(i int) error {
		_, err := s.PutMany(ctx, batches[i*1000:(i+1)*1000])
		return err
	})
	phase("cold2", len(digests), 32, func(i int) error {
		_, err := s.Content(ctx, digests[(i*7919+1)%len(digests)])
		return err
	})
}

// batchCount is how many PutMany calls of 1,000 documents the putmany
// phase makes: REGISTRY_MEMTEST_BATCHES, or 5.
func batchCount() int {
	if n, err := strconv.Atoi(os.Getenv("REGISTRY_MEMTEST_BATCHES")); err == nil && n > 0 {
		return n
	}
	return 5
}

func parseTuning(t *testing.T, v string) sqlite.Tuning {
	var f [5]int
	parts := strings.Split(v, ",")
	if len(parts) != len(f) {
		t.Fatalf("REGISTRY_MEMTEST_TUNING=%q: want readers,readCacheKiB,writeCacheKiB,bulkCacheKiB,mmapKiB", v)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			t.Fatalf("REGISTRY_MEMTEST_TUNING=%q: %v", v, err)
		}
		f[i] = n
	}
	return sqlite.Tuning{Readers: f[0], ReadCacheKiB: f[1], WriteCacheKiB: f[2], BulkCacheKiB: f[3], MmapKiB: f[4]}
}

// seededDigests seeds the database at path with n corpus documents unless
// a digest list beside it says it is seeded, and returns the digests.
func seededDigests(t *testing.T, path string, n int) []protocol.Digest {
	list := path + ".digests"
	if f, err := os.Open(list); err == nil {
		defer f.Close()
		var out []protocol.Digest
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			d, err := protocol.ParseDigest(sc.Text())
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, d)
		}
		if len(out) == n {
			return out
		}
		t.Fatalf("%s lists %d digests, want %d: remove it and the database to reseed", list, len(out), n)
	}
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	digests := storetest.Seed(t, s, n)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range digests {
		b.WriteString(d.Hex() + "\n")
	}
	if err := os.WriteFile(list, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return digests
}

func copyFile(t *testing.T, from, to string) {
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// memSampler records the peak resident set every 10 ms.
type memSampler struct {
	max  atomic.Int64
	done chan struct{}
}

func newMemSampler() *memSampler {
	m := &memSampler{done: make(chan struct{})}
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-m.done:
				return
			case <-tick.C:
				r := rss()
				for {
					old := m.max.Load()
					if r <= old || m.max.CompareAndSwap(old, r) {
						break
					}
				}
			}
		}
	}()
	return m
}

func (m *memSampler) resetPeak()  { m.max.Store(rss()) }
func (m *memSampler) peak() int64 { return max(m.max.Load(), rss()) }
func (m *memSampler) stop()       { close(m.done) }

// rss is VmRSS of this process in bytes.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return -1
}

// goMemory is what the Go runtime has mapped and not returned, and its
// heap in use.
func goMemory() (mapped, heap int64) {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64()), int64(s[2].Value.Uint64())
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func connMiB(m sqlite.ConnMemory) string {
	return fmt.Sprintf("%s/%s/%s/%s", mib(int64(m.Cache)), mib(int64(m.Schema)), mib(int64(m.Stmt)), mib(int64(m.Lookaside)))
}

func readersMiB(ms []sqlite.ConnMemory) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, connMiB(m))
	}
	return strings.Join(parts, " ")
}

func mib(b int64) string {
	if b < 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}
