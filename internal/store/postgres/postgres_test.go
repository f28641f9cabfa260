package postgres_test

import (
	"context"
	"testing"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// openStore opens a migrated store on a fresh database for one test.
func openStore(t testing.TB) *postgres.Store {
	s, _ := openStoreDSN(t)
	return s
}

// openStoreDSN is openStore, with the database's DSN for more sessions.
func openStoreDSN(t testing.TB) (*postgres.Store, string) {
	t.Helper()
	dsn := pgtest.NewDatabase(t)
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	// Registered after NewDatabase's clean-up, so it runs first: the pool
	// closes before the database is dropped.
	t.Cleanup(func() { s.Close() })
	return s, dsn
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openStore(t) })
}
