package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

func TestSearchRankUpgrade(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "registry.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	reopen := func(t *testing.T, old store.Store, fn func(context.Context)) store.Store {
		old.Close()
		fn(ctx)
		s, err := sqlite.Open(ctx, path)
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
				err = migrate.Down(ctx, migrate.SQLite, path, 1)
			} else {
				err = migrate.Up(ctx, migrate.SQLite, path)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	storetest.TestSearchRankUpgrade(t, s, reopen, step(true), step(false))
}
