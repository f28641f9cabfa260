package archive_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/storetest"
)

const benchDocuments = 10_000

// benchArchive is an export of the benchmark corpus (1–8 KB documents).
func benchArchive(b *testing.B) []byte {
	b.Helper()
	src := openSQLite(b)
	ctx := context.Background()
	batch := make([]store.NewDocument, 0, 1000)
	for i := range benchDocuments {
		batch = append(batch, store.NewDocument{Document: prepare(b, string(storetest.GenerateDocument(i)))})
		if len(batch) == cap(batch) {
			if _, err := src.PutMany(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return export(b, src)
}

func benchmarkImport(b *testing.B, open func(testing.TB) store.Store) {
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

// BenchmarkImportSQLite: target ≥ 10,000 documents/s (DESIGN §8).
func BenchmarkImportSQLite(b *testing.B) { benchmarkImport(b, openSQLite) }

func BenchmarkImportPostgres(b *testing.B) {
	benchmarkImport(b, func(t testing.TB) store.Store { return openPostgresTB(t) })
}

func BenchmarkExportSQLite(b *testing.B) {
	arc := benchArchive(b)
	src := openSQLite(b)
	importBytes(b, src, arc, archive.Limits{})
	start, n := time.Now(), 0
	for b.Loop() {
		export(b, src)
		n++
	}
	b.ReportMetric(float64(benchDocuments*n)/time.Since(start).Seconds(), "docs/s")
}
