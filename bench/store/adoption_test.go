package storebench_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/adoption/sketch"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// BenchmarkAdoptionFlushOrder writes one flush (25,000 distinct hashes in
// batches of 1,000, as adoption.Counter does; a cold-fetch load of 5,000
// req/s for 5 s) into a store that already counts 100,000 hashes today, in
// the order a map gives them or sorted by hash (what the counter does since
// issue 21): sorted, each batch touches a narrow key range instead of pages
// all over the tables. Figures: docs/BENCHMARKS.md, "Adoption flush".
//
//	go test -run '^$' -bench AdoptionFlushOrder -count 5 ./store (from bench/)
func BenchmarkAdoptionFlushOrder(b *testing.B) {
	const hashes, flushHashes = 100_000, 25_000
	ctx, cancel := context.WithCancel(context.Background()) // cancellable, as the counter's
	defer cancel()
	day := store.Day(time.Now())
	all := make([]store.AdoptionDelta, hashes)
	for i := range all {
		var d protocol.Digest
		for j := range d {
			d[j] = byte(rand.IntN(256))
		}
		// One client each, as the counter sends (a sketch of one hash).
		all[i] = store.AdoptionDelta{Digest: d, Fetches: 1, Clients: sketch.Of([]uint64{rand.Uint64()})}
	}
	s := storebench.OpenSQLite(b)
	for batch := range slices.Chunk(all, store.MaxAdoptionBatch) {
		if err := s.AddAdoption(ctx, day, batch); err != nil {
			b.Fatal(err)
		}
	}
	for _, sorted := range []bool{false, true} {
		name := "random"
		if sorted {
			name = "sorted"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				flush := slices.Clone(all)
				rand.Shuffle(len(flush), func(i, j int) { flush[i], flush[j] = flush[j], flush[i] })
				flush = flush[:flushHashes]
				if sorted {
					slices.SortFunc(flush, func(x, y store.AdoptionDelta) int { return bytes.Compare(x.Digest[:], y.Digest[:]) })
				}
				b.StartTimer()
				for batch := range slices.Chunk(flush, store.MaxAdoptionBatch) {
					if err := s.AddAdoption(ctx, day, batch); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
