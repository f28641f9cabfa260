package importbench

import (
	"bytes"
	"context"
	"testing"
	"time"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/store"
)

// exportOf is store s exported as an archive.
func exportOf(b *testing.B, s store.Store) []byte {
	b.Helper()
	var buf bytes.Buffer
	if _, err := archive.Export(context.Background(), s, &buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// benchArchive is an export of the benchmark corpus (1–8 KB documents).
func benchArchive(b *testing.B) []byte {
	b.Helper()
	src := storebench.OpenSQLite(b)
	storebench.Seed(b, src, benchDocuments)
	return exportOf(b, src)
}

func benchmarkImportArchive(b *testing.B, open func(testing.TB) store.Store) {
	arc := benchArchive(b)
	b.SetBytes(int64(len(arc)))
	var took time.Duration
	n := 0
	for b.Loop() {
		b.StopTimer()
		dst := open(b)
		b.StartTimer()
		start := time.Now()
		rep, err := archive.ImportArchive(context.Background(), dst, bytes.NewReader(arc), archive.Limits{})
		took += time.Since(start)
		n++
		if err != nil || rep.New != benchDocuments {
			b.Fatalf("%+v %v", rep, err)
		}
	}
	b.ReportMetric(float64(benchDocuments*n)/took.Seconds(), "docs/s")
}

// BenchmarkImportArchiveSQLite: target ≥ 10,000 documents/s (DESIGN §8).
func BenchmarkImportArchiveSQLite(b *testing.B) {
	benchmarkImportArchive(b, func(tb testing.TB) store.Store { return storebench.OpenSQLite(tb) })
}

func BenchmarkImportArchivePostgres(b *testing.B) {
	benchmarkImportArchive(b, func(tb testing.TB) store.Store { return storebench.OpenPostgres(tb) })
}

func BenchmarkExportSQLite(b *testing.B) {
	src := storebench.OpenSQLite(b)
	storebench.Seed(b, src, benchDocuments)
	start, n := time.Now(), 0
	for b.Loop() {
		exportOf(b, src)
		n++
	}
	b.ReportMetric(float64(benchDocuments*n)/time.Since(start).Seconds(), "docs/s")
}
