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
// the order a map gives them or sorted by hash (what the counter does): sorted, each batch touches a narrow key range instead of pages
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

// BenchmarkAdoptionFlushStored writes batches of 1,000 counts of stored
// documents (three new clients each, so every score is rewritten and few
// levels change) into a store of 20,000 corpus documents, as a flush after
// a raw load does: what a batch costs beside the counts themselves is the
// document rows the score triggers touch. Each batch grows the day's
// sketches, so compare runs of the same iteration count. Figures:
// docs/BENCHMARKS.md, "What each mechanism buys".
//
//	go test -run '^$' -bench AdoptionFlushStored -benchtime 30x ./store (from bench/)
func BenchmarkAdoptionFlushStored(b *testing.B) {
	for _, engine := range []struct {
		name string
		open func(testing.TB) store.Store
	}{
		{"sqlite", func(tb testing.TB) store.Store { return storebench.OpenSQLite(tb) }},
		{"postgres", func(tb testing.TB) store.Store { return storebench.OpenPostgres(tb) }},
	} {
		b.Run(engine.name, func(b *testing.B) {
			s := engine.open(b)
			digests := storebench.Seed(b, s, 20_000)
			day := store.Day(time.Now())
			for b.Loop() {
				b.StopTimer()
				batch := make([]store.AdoptionDelta, store.MaxAdoptionBatch)
				for i := range batch {
					batch[i] = store.AdoptionDelta{Digest: digests[rand.IntN(len(digests))], Fetches: 3,
						Clients: sketch.Of([]uint64{rand.Uint64(), rand.Uint64(), rand.Uint64()})}
				}
				slices.SortFunc(batch, func(x, y store.AdoptionDelta) int { return bytes.Compare(x.Digest[:], y.Digest[:]) })
				b.StartTimer()
				if err := s.AddAdoption(context.Background(), day, batch); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
