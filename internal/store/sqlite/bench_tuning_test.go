package sqlite_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/storetest"
)

// BenchmarkStoreTuned is BenchmarkStore on a store whose full-text index
// is configured before seeding from REGISTRY_FTS_CONFIG, e.g.
// "hashsize=8388608 automerge=8" (FTS5's persistent options), to compare
// settings:
//
//	REGISTRY_FTS_CONFIG='automerge=8' REGISTRY_BENCH_DOCS=20000 \
//	  go test -run '^$' -bench 'StoreTuned/(PutMany1000|SearchCommonWord)' -benchtime 5x ./internal/store/sqlite/
func BenchmarkStoreTuned(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) store.Store {
		s := openTemp(b)
		for _, kv := range strings.Fields(os.Getenv("REGISTRY_FTS_CONFIG")) {
			k, v, _ := strings.Cut(kv, "=")
			if err := s.ExecWrite(context.Background(), `INSERT INTO documents_fts (documents_fts, rank) VALUES (?, ?)`, k, v); err != nil {
				b.Fatalf("%s: %v", kv, err)
			}
		}
		return s
	})
}

// TestPutManyWork stores REGISTRY_PUTMANY_WORK batches of 1,000 corpus
// documents with PutMany after seeding BenchDocs() documents. It exists to
// be counted by callgrind, whose instruction counts do not depend on what
// else the machine runs (CPU time on a shared 2-core VM varies by ±20%):
//
//	go test -c -o /tmp/sqlite.test ./internal/store/sqlite/
//	REGISTRY_PUTMANY_WORK=2 REGISTRY_BENCH_DOCS=2000 valgrind --tool=callgrind \
//	  --toggle-collect='*sqlite.(*Store).PutMany' /tmp/sqlite.test -test.run TestPutManyWork
//
// (the count is collected only inside PutMany, so seeding counts too:
// compare totals of runs with the same settings).
func TestPutManyWork(t *testing.T) {
	batches, _ := strconv.Atoi(os.Getenv("REGISTRY_PUTMANY_WORK"))
	if batches <= 0 {
		t.Skip("set REGISTRY_PUTMANY_WORK to a number of batches")
	}
	s := openTemp(t)
	n := storetest.BenchDocs()
	storetest.Seed(t, s, n)
	for i := range batches {
		batch := storetest.PrepareCorpus(t, n+i*1000, n+(i+1)*1000)
		if _, err := s.PutMany(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}
}
