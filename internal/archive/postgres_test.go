package archive_test

import (
	"context"
	"testing"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

func openPostgres(t *testing.T) store.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// The promise: SQLite -> Postgres -> SQLite loses nothing
// (documents, metadata, tags, withdrawals, origins, created times).
func TestRoundTripSQLiteToPostgres(t *testing.T) {
	roundTrip(t, openSQLite(t), openPostgres(t))
}

func TestRoundTripPostgresToSQLite(t *testing.T) {
	roundTrip(t, openPostgres(t), openSQLite(t))
}
