package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

func openTemp(tb testing.TB) *sqlite.Store {
	tb.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "registry.db"))
	if err != nil {
		tb.Fatalf("sqlite.Open: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}

// Filtered listings walk the sort index when the filters match many rows;
// the suite's stores are small, so run it once more with that plan forced.
func TestConformanceWalkingSortIndex(t *testing.T) {
	defer sqlite.SetWalkThreshold(-1)()
	storetest.Run(t, func(t *testing.T) store.Store { return openTemp(t) })
}

func TestDirtySchemaIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE schema_migrations SET dirty = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	_, err = sqlite.Open(context.Background(), path)
	if !errors.Is(err, sqlite.ErrDirty) || !strings.Contains(err.Error(), "migrate force") {
		t.Fatalf("Open of a dirty database = %v, want ErrDirty with advice", err)
	}
	if _, dirty, err := sqlite.SchemaVersion(path); err != nil || !dirty {
		t.Fatalf("SchemaVersion = dirty %v, %v; want dirty", dirty, err)
	}
}

func TestMigrateDownAndUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.db")
	ctx := context.Background()
	for _, dir := range []string{"up", "down", "up", "up"} {
		if err := sqlite.Migrate(ctx, path, dir); err != nil {
			t.Fatalf("Migrate %s: %v", dir, err)
		}
	}
	if v, dirty, err := sqlite.SchemaVersion(path); err != nil || dirty || v == 0 {
		t.Fatalf("SchemaVersion after up = %d, %v, %v", v, dirty, err)
	}
	if err := sqlite.Migrate(ctx, path, "sideways"); err == nil {
		t.Fatal("Migrate accepted an unknown direction")
	}
}

func TestBadPaths(t *testing.T) {
	for _, path := range []string{"", ":memory:", filepath.Join(t.TempDir(), "a?mode=ro"), filepath.Join(t.TempDir(), "missing-dir", "x", "registry.db")} {
		if s, err := sqlite.Open(context.Background(), path); err == nil {
			s.Close()
			t.Fatalf("Open(%q) succeeded", path)
		}
	}
}

func TestClosedStoreIsUnavailable(t *testing.T) {
	s := openTemp(t)
	s.Close()
	if err := s.Ping(context.Background()); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Ping of a closed store = %v, want ErrUnavailable", err)
	}
	if _, err := s.Content(context.Background(), protocol.Digest{1}); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Content of a closed store = %v, want ErrUnavailable", err)
	}
}
