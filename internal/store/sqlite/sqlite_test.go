package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
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
	if _, _, err := s.Content(context.Background(), protocol.Digest{1}); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Content of a closed store = %v, want ErrUnavailable", err)
	}
}
