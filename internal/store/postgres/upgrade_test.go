package postgres_test

import (
	"context"
	"testing"

	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// openAt opens the store at dsn, for the upgrade tests that close and reopen it.
func openAt(ctx context.Context, dsn string) (*postgres.Store, error) { return postgres.Open(ctx, dsn) }

func TestSearchRankUpgrade(t *testing.T) {
	storetest.TestSearchRankUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), openAt)
}

func TestDeprecatedUpgrade(t *testing.T) {
	storetest.TestDeprecatedUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), openAt)
}

func TestAdoptionBoostUpgrade(t *testing.T) {
	storetest.TestAdoptionBoostUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), openAt)
}

func TestAdoptionThresholdUpgrade(t *testing.T) {
	storetest.TestAdoptionThresholdUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), openAt)
}

func TestNaturalNameUpgrade(t *testing.T) {
	storetest.TestNaturalNameUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), openAt)
}

func TestMatchIndexUpgrade(t *testing.T) {
	storetest.TestMatchIndexUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), openAt)
}

func TestAdoptionBoostChangesUpgrade(t *testing.T) {
	storetest.TestAdoptionBoostChangesUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), openAt)
}
