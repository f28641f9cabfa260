package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/store/storetest"
)

func TestSearchRankUpgrade(t *testing.T) {
	storetest.TestSearchRankUpgrade(t, migrate.SQLite, filepath.Join(t.TempDir(), "registry.db"), sqlite.Open)
}

func TestDeprecatedUpgrade(t *testing.T) {
	storetest.TestDeprecatedUpgrade(t, migrate.SQLite, filepath.Join(t.TempDir(), "registry.db"), sqlite.Open)
}

func TestRankingUpgrade(t *testing.T) {
	storetest.TestRankingUpgrade(t, migrate.SQLite, filepath.Join(t.TempDir(), "registry.db"), sqlite.Open)
}
