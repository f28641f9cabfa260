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

func TestAdoptionBoostUpgrade(t *testing.T) {
	storetest.TestAdoptionBoostUpgrade(t, migrate.SQLite, filepath.Join(t.TempDir(), "registry.db"), sqlite.Open)
}

func TestAdoptionThresholdUpgrade(t *testing.T) {
	storetest.TestAdoptionThresholdUpgrade(t, migrate.SQLite, filepath.Join(t.TempDir(), "registry.db"), sqlite.Open)
}

func TestNaturalNameUpgrade(t *testing.T) {
	storetest.TestNaturalNameUpgrade(t, migrate.SQLite, filepath.Join(t.TempDir(), "registry.db"), sqlite.Open)
}

func TestMatchIndexUpgrade(t *testing.T) {
	storetest.TestMatchIndexUpgrade(t, migrate.SQLite, filepath.Join(t.TempDir(), "registry.db"), sqlite.Open)
}

func TestAdoptionBoostChangesUpgrade(t *testing.T) {
	storetest.TestAdoptionBoostChangesUpgrade(t, migrate.SQLite, filepath.Join(t.TempDir(), "registry.db"), sqlite.Open)
}
