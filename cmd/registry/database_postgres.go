package main

import (
	"context"
	"errors"

	"github.com/agora-registry/registry/internal/store"
)

// The PostgreSQL engine is wired here once internal/store/postgres lands.

var errNoPostgres = errors.New("this build has no PostgreSQL engine yet")

// postgresAvailable tells the end-to-end test whether to run on PostgreSQL.
const postgresAvailable = false

func openPostgres(ctx context.Context, dsn string) (store.Store, error) { return nil, errNoPostgres }

func migratePostgres(ctx context.Context, dsn, direction string) error { return errNoPostgres }

func postgresVersion(ctx context.Context, dsn string) (uint, bool, error) {
	return 0, false, errNoPostgres
}
