package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// sqliteFile is the embedded store's file name under --data-dir.
const sqliteFile = "registry.db"

// database resolves the configured engine and its DSN (a file path for
// SQLite, creating the data directory).
func database(db config.Database) (migrate.Engine, string, error) {
	u := strings.ToLower(db.DatabaseURL)
	switch {
	case strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://"):
		return migrate.Postgres, db.DatabaseURL, nil
	case db.DatabaseURL != "":
		return "", "", fmt.Errorf("--database-url must be a postgres:// URL (empty means the embedded SQLite store)")
	}
	if err := os.MkdirAll(db.DataDir, 0o750); err != nil {
		return "", "", fmt.Errorf("creating the data directory: %w", err)
	}
	// Created here, 0600, for every command (registry migrate opens it
	// without the engine).
	path := filepath.Join(db.DataDir, sqliteFile)
	if err := sqlite.CreateFile(path); err != nil {
		return "", "", err
	}
	return migrate.SQLite, path, nil
}

// openStore opens the configured engine, applying pending migrations.
// embedded reports whether it is the SQLite default.
func openStore(ctx context.Context, db config.Database) (s store.Store, embedded bool, err error) {
	engine, dsn, err := database(db)
	if err != nil {
		return nil, false, err
	}
	if engine == migrate.Postgres {
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			return nil, false, err
		}
		return st, false, nil
	}
	st, err := sqlite.Open(ctx, dsn)
	if err != nil {
		return nil, true, err
	}
	return st, true, nil
}

// openExistingStore opens a store that must exist already: export reads a
// registry and must not turn a wrong --database-url or --data-dir into a
// new, empty one (which it would then export). A PostgreSQL schema is not
// migrated (a database without it is refused); an embedded file is
// brought up to date as every command does.
func openExistingStore(ctx context.Context, db config.Database) (store.Store, error) {
	if strings.TrimSpace(db.DatabaseURL) == "" {
		path := filepath.Join(db.DataDir, sqliteFile)
		if _, err := os.Stat(path); err != nil {
			return nil, store.ErrNotFound.With(fmt.Sprintf("no registry database at %s: give the registry's --data-dir, or --database-url / REGISTRY_DATABASE_URL for PostgreSQL", path))
		}
		return sqlite.Open(ctx, path)
	}
	_, dsn, err := database(db) // a URL that is not postgres:// is refused there
	if err != nil {
		return nil, err
	}
	return postgres.Open(ctx, dsn, postgres.WithoutMigrations())
}
