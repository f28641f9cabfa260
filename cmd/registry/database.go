package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// sqliteFile is the embedded store's file name under --data-dir.
const sqliteFile = "registry.db"

// isPostgres reports whether the configured database is PostgreSQL.
func isPostgres(db config.Database) bool {
	u := strings.ToLower(db.DatabaseURL)
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

func sqlitePath(db config.Database) (string, error) {
	if err := os.MkdirAll(db.DataDir, 0o750); err != nil {
		return "", fmt.Errorf("creating the data directory: %w", err)
	}
	return filepath.Join(db.DataDir, sqliteFile), nil
}

// openStore opens the configured engine, applying pending migrations.
// embedded reports whether it is the SQLite default.
func openStore(ctx context.Context, db config.Database) (s store.Store, embedded bool, err error) {
	switch {
	case isPostgres(db):
		s, err := openPostgres(ctx, db.DatabaseURL)
		return s, false, err
	case db.DatabaseURL != "":
		return nil, false, fmt.Errorf("--database-url must be a postgres:// URL (empty means the embedded SQLite store)")
	}
	path, err := sqlitePath(db)
	if err != nil {
		return nil, true, err
	}
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, true, err
	}
	return st, true, nil
}

// migrateStore moves the schema "up" or "down".
func migrateStore(ctx context.Context, db config.Database, direction string) error {
	if isPostgres(db) {
		return migratePostgres(ctx, db.DatabaseURL, direction)
	}
	path, err := sqlitePath(db)
	if err != nil {
		return err
	}
	return sqlite.Migrate(ctx, path, direction)
}

// schemaVersion reports the applied migration version.
func schemaVersion(ctx context.Context, db config.Database) (uint, bool, error) {
	if isPostgres(db) {
		return postgresVersion(ctx, db.DatabaseURL)
	}
	path, err := sqlitePath(db)
	if err != nil {
		return 0, false, err
	}
	return sqlite.SchemaVersion(path)
}
