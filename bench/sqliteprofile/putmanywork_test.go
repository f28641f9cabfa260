package sqliteprofile

import (
	"context"
	"os"
	"strconv"
	"testing"

	storebench "github.com/agora-registry/registry/bench/store"
)

// TestPutManyWork stores REGISTRY_PUTMANY_WORK batches of 1,000 corpus
// documents with PutMany after seeding BenchDocs() documents. It exists to
// be counted by callgrind, whose instruction counts do not depend on what
// else the machine runs (CPU time on a shared machine does):
//
//	go test -c -o /tmp/sqliteprofile.test ./sqliteprofile/   # from bench/
//	REGISTRY_PUTMANY_WORK=2 REGISTRY_BENCH_DOCS=2000 valgrind --tool=callgrind \
//	  --toggle-collect='*sqlite.(*Store).PutMany' /tmp/sqliteprofile.test -test.run TestPutManyWork
//
// (the count is collected only inside PutMany, so seeding counts too:
// compare totals of runs with the same settings).
func TestPutManyWork(t *testing.T) {
	batches, _ := strconv.Atoi(os.Getenv("REGISTRY_PUTMANY_WORK"))
	if batches <= 0 {
		t.Skip("set REGISTRY_PUTMANY_WORK to a number of batches")
	}
	s := storebench.OpenSQLite(t)
	n := storebench.BenchDocs()
	storebench.Seed(t, s, n)
	for i := range batches {
		batch := storebench.PrepareCorpus(t, n+i*1000, n+(i+1)*1000)
		if _, err := s.PutMany(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}
}
