package postgres_test

import (
	"context"
	"testing"

	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

func TestSearchRankUpgrade(t *testing.T) {
	open := func(ctx context.Context, dsn string) (*postgres.Store, error) { return postgres.Open(ctx, dsn) }
	storetest.TestSearchRankUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), open)
}

func TestDeprecatedUpgrade(t *testing.T) {
	open := func(ctx context.Context, dsn string) (*postgres.Store, error) { return postgres.Open(ctx, dsn) }
	storetest.TestDeprecatedUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), open)
}

func TestRankingUpgrade(t *testing.T) {
	open := func(ctx context.Context, dsn string) (*postgres.Store, error) { return postgres.Open(ctx, dsn) }
	storetest.TestRankingUpgrade(t, migrate.Postgres, pgtest.NewDatabase(t), open)
}
