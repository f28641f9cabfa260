package importbench

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/bench/harness"
	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// benchDocuments is the size of the directory every import benchmark reads.
const benchDocuments = 10_000

// nopStore accepts every batch at once: what is left of an import's cost is
// the import pipeline's own (walk, read, hash, validate, parse, batch).
// delay, when set, stands in for a store whose time is spent elsewhere (a
// database server), so that overlap between preparing and writing shows.
type nopStore struct {
	archive.Target
	delay time.Duration
	mu    sync.Mutex
	seen  map[protocol.Digest]bool
}

func (s *nopStore) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	if s.delay > 0 {
		time.Sleep(s.delay)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	created := make([]bool, len(docs))
	for i, nd := range docs {
		d := nd.Document.Sums.SHA1
		created[i] = !s.seen[d]
		s.seen[d] = true
	}
	return created, nil
}

// benchDir writes the benchmark corpus as <hex>.md files, as benchrun does.
func benchDir(b *testing.B) string {
	dir := b.TempDir()
	if _, err := harness.WriteCorpus(dir, benchDocuments); err != nil {
		b.Fatal(err)
	}
	return dir
}

// busyStore measures the time at least one PutMany was in flight. The rest
// of an import's wall time is the store waiting for the pipeline: with the
// pipeline never the bottleneck, that is only the first batch's preparation
// and the last batch's settling.
type busyStore struct {
	archive.Target
	mu       sync.Mutex
	inFlight int
	since    time.Time
	busy     time.Duration
}

func (s *busyStore) PutMany(ctx context.Context, docs []store.NewDocument) ([]bool, error) {
	s.mu.Lock()
	if s.inFlight == 0 {
		s.since = time.Now()
	}
	s.inFlight++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		if s.inFlight == 0 {
			s.busy += time.Since(s.since)
		}
		s.mu.Unlock()
	}()
	return s.Target.PutMany(ctx, docs)
}

// benchmarkImportDirInto imports the corpus directory into a fresh store per
// iteration and reports docs/s (wall), CPU µs per document (getrusage of
// the whole process: every goroutine of the pipeline, and the store's own
// CPU when it runs in process), and waiting-µs/doc: wall time during which
// no PutMany was in flight, per document.
func benchmarkImportDirInto(b *testing.B, lim archive.Limits, open func(testing.TB) archive.Target) {
	dir := benchDir(b)
	var took, cpu, waiting time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		dst := &busyStore{Target: open(b)}
		b.StartTimer()
		start, cpu0 := time.Now(), storebench.ProcessCPU()
		rep, err := archive.ImportDir(context.Background(), dst, dir, lim)
		cpu += storebench.ProcessCPU() - cpu0
		wall := time.Since(start)
		took += wall
		waiting += wall - dst.busy
		n++
		if err != nil || rep.New != benchDocuments {
			b.Fatalf("%+v %v", rep, err)
		}
	}
	docs := float64(benchDocuments * n)
	b.ReportMetric(docs/took.Seconds(), "docs/s")
	b.ReportMetric(float64(cpu.Microseconds())/docs, "cpu-µs/doc")
	b.ReportMetric(float64(waiting.Microseconds())/docs, "waiting-µs/doc")
}

// BenchmarkImportDirNopStore is the pipeline alone.
func BenchmarkImportDirNopStore(b *testing.B) {
	benchmarkImportDirInto(b, archive.Limits{}, func(testing.TB) archive.Target {
		return &nopStore{seen: map[protocol.Digest]bool{}}
	})
}

// BenchmarkImportDirSlowStore: a store that spends 400 ms per 1,000
// documents outside this process (PostgreSQL's measured PutMany rate is
// ~900 docs/s), so the wall time shows whether preparing overlaps writing.
func BenchmarkImportDirSlowStore(b *testing.B) {
	benchmarkImportDirInto(b, archive.Limits{}, func(testing.TB) archive.Target {
		return &nopStore{seen: map[protocol.Digest]bool{}, delay: 400 * time.Millisecond}
	})
}

func BenchmarkImportDirSQLite(b *testing.B) {
	benchmarkImportDirInto(b, archive.Limits{}, func(t testing.TB) archive.Target { return storebench.OpenSQLite(t) })
}

func BenchmarkImportDirPostgres(b *testing.B) {
	benchmarkImportDirInto(b, archive.Limits{}, func(t testing.TB) archive.Target { return storebench.OpenPostgres(t) })
}

// BenchmarkImportDirPostgresTwoWriters: two PutMany calls in flight, so
// PostgreSQL can work on one batch while the other commits.
func BenchmarkImportDirPostgresTwoWriters(b *testing.B) {
	benchmarkImportDirInto(b, archive.Limits{Writers: 2}, func(t testing.TB) archive.Target { return storebench.OpenPostgres(t) })
}
