package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/golang-migrate/migrate/v4"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/agora-registry/registry/migrations"
)

// ErrDirty reports a schema left half-migrated by a failed migration. The
// registry refuses to start on it: serving from an unknown schema could
// lose or corrupt data.
var ErrDirty = errors.New("the database schema is dirty: a migration failed halfway")

// NewMigrator returns a golang-migrate instance for the SQLite database at
// path, with the embedded migrations. The caller must Close it. It is for
// operations beyond Migrate (Force, Steps) such as the migrate command's.
func NewMigrator(path string) (*migrate.Migrate, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	src, err := iofs.New(migrations.SQLite, "sqlite")
	if err != nil {
		return nil, fmt.Errorf("sqlite: reading embedded migrations: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(path, false, defaultTuning()))
	if err != nil {
		return nil, mapErr(err)
	}
	db.SetMaxOpenConns(1)
	driver, err := migratesqlite.WithInstance(db, &migratesqlite.Config{})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: opening %s for migration: %w", path, mapErr(err))
	}
	m, err := migrate.NewWithInstance("iofs", src, "sqlite", driver)
	if err != nil {
		driver.Close()
		return nil, fmt.Errorf("sqlite: preparing migrations: %w", err)
	}
	return m, nil
}

// Migrate moves the schema of the database at path "up" (apply every
// pending migration) or "down" (revert every migration). A dirty schema is
// refused with ErrDirty and a message that says what to do.
func Migrate(ctx context.Context, path, direction string) error {
	if direction != "up" && direction != "down" {
		return fmt.Errorf("sqlite: unknown migration direction %q: use up or down", direction)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m, err := NewMigrator(path)
	if err != nil {
		return err
	}
	defer m.Close()
	version, dirty, err := m.Version()
	if err != nil && !errors.Is(err, migrate.ErrNilVersion) {
		return fmt.Errorf("sqlite: reading the schema version of %s: %w", path, err)
	}
	if dirty {
		return dirtyError(path, version)
	}
	if direction == "up" {
		err = m.Up()
	} else {
		err = m.Down()
	}
	var dirtyErr migrate.ErrDirty
	switch {
	case err == nil, errors.Is(err, migrate.ErrNoChange):
		return nil
	case errors.As(err, &dirtyErr):
		return dirtyError(path, uint(dirtyErr.Version))
	}
	return fmt.Errorf("sqlite: migrating %s %s: %w", path, direction, err)
}

func dirtyError(path string, version uint) error {
	return fmt.Errorf("sqlite: %s: %w at version %d; restore a backup, or repair the schema by hand and mark the version clean with `registry migrate force %d`",
		path, ErrDirty, version, version)
}

// SchemaVersion reports the applied migration version (0 if none) and
// whether it is dirty.
func SchemaVersion(path string) (version uint, dirty bool, err error) {
	m, err := NewMigrator(path)
	if err != nil {
		return 0, false, err
	}
	defer m.Close()
	version, dirty, err = m.Version()
	if errors.Is(err, migrate.ErrNilVersion) {
		return 0, false, nil
	}
	return version, dirty, err
}
