package storebench_test

import (
	"testing"

	storebench "github.com/agora-registry/registry/bench/store"
	"github.com/agora-registry/registry/internal/store"
)

// Run with: go test -run '^$' -bench . ./store/ (from bench/;
// REGISTRY_BENCH_DOCS=100000 for the full-size corpus).
func BenchmarkSQLite(b *testing.B) {
	storebench.Bench(b, func(b *testing.B) store.Store { return storebench.OpenSQLite(b) })
}

func BenchmarkPostgres(b *testing.B) {
	storebench.Bench(b, func(b *testing.B) store.Store { return storebench.OpenPostgres(b) })
}
