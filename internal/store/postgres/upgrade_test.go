package postgres_test

import (
	"context"
	"testing"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

func TestSearchRankUpgrade(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	reopen := func(t *testing.T, old store.Store, fn func(context.Context)) store.Store {
		old.Close()
		fn(ctx)
		s, err := postgres.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	step := func(down bool) func(context.Context) {
		return func(ctx context.Context) {
			var err error
			if down {
				err = migrate.Down(ctx, migrate.Postgres, dsn, 1)
			} else {
				err = migrate.Up(ctx, migrate.Postgres, dsn)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	storetest.TestSearchRankUpgrade(t, s, reopen, step(true), step(false))
}
