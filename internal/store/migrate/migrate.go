// Package migrate applies the embedded schema migrations (package
// migrations) to either engine's database with golang-migrate. The engines
// call Up when they open; the `registry migrate` command calls the rest.
//
// A migration that fails part-way leaves golang-migrate's version "dirty".
// Nothing here ever proceeds from a dirty version: every entry point returns
// an error naming the version and how to repair it (ErrDirty).
package migrate

import (
	"context"
	"errors"
	"fmt"

	"github.com/golang-migrate/migrate/v4"

	"github.com/agora-registry/registry/internal/apperr"
)

// Engine names a storage engine.
type Engine string

const (
	Postgres Engine = "postgres"
	SQLite   Engine = "sqlite"
)

// Errors of this package; match with errors.Is.
var (
	// ErrDirty: a migration failed part-way and the schema is in an unknown
	// state. The message of the returned error says what to do.
	ErrDirty = apperr.New(apperr.Internal, "schema_dirty", "the database schema is dirty: a migration failed part-way")
	// ErrOutdated: the schema is older than this binary (migrations were
	// not applied, for example because start-up migration was turned off).
	ErrOutdated = apperr.New(apperr.Internal, "schema_outdated", "the database schema is older than this registry")
	// ErrTooNew: the schema is newer than this binary knows (a newer
	// registry migrated it). Serving could misread data.
	ErrTooNew = apperr.New(apperr.Internal, "schema_too_new", "the database schema is newer than this registry")
)

// Up applies every pending migration. It refuses a dirty schema.
func Up(ctx context.Context, engine Engine, dsn string) error {
	return withMigrator(ctx, engine, dsn, func(m *migrate.Migrate) error {
		if err := refuseDirty(m, engine); err != nil {
			return err
		}
		return done(m.Up(), engine)
	})
}

// Down reverts the newest steps migrations (steps ≥ 1). Reverting them all
// loses every document, so it is DownAll, a separate call.
func Down(ctx context.Context, engine Engine, dsn string, steps int) error {
	if steps < 1 {
		return fmt.Errorf("migrate: down needs a number of steps of at least 1, got %d", steps)
	}
	return withMigrator(ctx, engine, dsn, func(m *migrate.Migrate) error {
		if err := refuseDirty(m, engine); err != nil {
			return err
		}
		v, _, err := version(m)
		if err != nil {
			return err
		}
		if v == 0 {
			return nil // nothing applied, nothing to revert
		}
		if err := m.Steps(-steps); err != nil {
			var short migrate.ErrShortLimit
			if errors.As(err, &short) {
				// Fewer migrations applied than asked: all are reverted now.
				return nil
			}
			return done(err, engine)
		}
		return nil
	})
}

// To migrates up or down to exactly version v, an embedded version or 0
// (none applied, as DownAll). It refuses a dirty schema.
func To(ctx context.Context, engine Engine, dsn string, v uint) error {
	ups, err := upFiles(engine)
	if err != nil {
		return err
	}
	if _, ok := ups[v]; !ok && v != 0 {
		return fmt.Errorf("migrate: %s has no embedded migration %d", engine, v)
	}
	return withMigrator(ctx, engine, dsn, func(m *migrate.Migrate) error {
		if err := refuseDirty(m, engine); err != nil {
			return err
		}
		if v == 0 {
			return done(m.Down(), engine)
		}
		return done(m.Migrate(v), engine)
	})
}

// DownAll reverts every migration, dropping all registry tables and their
// data. Callers must have asked the operator for explicit confirmation.
func DownAll(ctx context.Context, engine Engine, dsn string) error {
	return withMigrator(ctx, engine, dsn, func(m *migrate.Migrate) error {
		if err := refuseDirty(m, engine); err != nil {
			return err
		}
		return done(m.Down(), engine)
	})
}

// Version reports the applied version (0 when none) and whether it is dirty.
func Version(ctx context.Context, engine Engine, dsn string) (v uint, dirty bool, err error) {
	err = withMigrator(ctx, engine, dsn, func(m *migrate.Migrate) error {
		v, dirty, err = version(m)
		return err
	})
	return v, dirty, err
}

// Force records version v as applied and clean without running anything:
// the repair step after an operator has fixed a dirty schema by hand.
// v = 0 clears the record (no migration applied).
func Force(ctx context.Context, engine Engine, dsn string, v int) error {
	if v < 0 {
		return fmt.Errorf("migrate: cannot force negative version %d", v)
	}
	latest, err := Latest(engine)
	if err != nil {
		return err
	}
	if uint(v) > latest {
		return fmt.Errorf("migrate: cannot force version %d: the newest %s migration is %d", v, engine, latest)
	}
	return withMigrator(ctx, engine, dsn, func(m *migrate.Migrate) error {
		if v == 0 {
			return m.Force(-1)
		}
		return m.Force(v)
	})
}

// Check verifies, without changing anything, that the schema is clean and
// exactly at the newest embedded version. Start-up uses it when automatic
// migration is turned off.
func Check(ctx context.Context, engine Engine, dsn string) error {
	latest, err := Latest(engine)
	if err != nil {
		return err
	}
	return withMigrator(ctx, engine, dsn, func(m *migrate.Migrate) error {
		if err := refuseDirty(m, engine); err != nil {
			return err
		}
		v, _, err := version(m)
		if err != nil {
			return err
		}
		switch {
		case v < latest:
			return ErrOutdated.With(fmt.Sprintf(
				"the %s schema is at version %d but this registry needs %d: run `registry migrate up`", engine, v, latest))
		case v > latest:
			return ErrTooNew.With(fmt.Sprintf(
				"the %s schema is at version %d but this registry only knows up to %d: upgrade the registry binary", engine, v, latest))
		}
		return nil
	})
}

// version is m.Version with "no migration yet" as version 0.
func version(m *migrate.Migrate) (uint, bool, error) {
	v, dirty, err := m.Version()
	if errors.Is(err, migrate.ErrNilVersion) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("migrate: reading the schema version: %w", err)
	}
	return v, dirty, nil
}

func refuseDirty(m *migrate.Migrate, engine Engine) error {
	v, dirty, err := version(m)
	if err != nil {
		return err
	}
	if dirty {
		return dirtyError(engine, v)
	}
	return nil
}

// dirtyError explains how to get out of a dirty schema, in the same words
// for both engines.
func dirtyError(engine Engine, v uint) error {
	return ErrDirty.With(fmt.Sprintf(
		"the %[1]s database schema is dirty at version %[2]d: migration %[2]d failed part-way and the registry will not "+
			"serve from a schema in an unknown state. Inspect the database against %[3]s; "+
			"if the migration's changes are absent (or you removed them), run `registry migrate force %[4]d`; if they are "+
			"all present, run `registry migrate force %[2]d`; then start the registry again (or restore a backup)",
		engine, v, upFile(engine, v), int(v)-1))
}

// done turns golang-migrate's outcome into ours.
func done(err error, engine Engine) error {
	var dirty migrate.ErrDirty
	switch {
	case err == nil, errors.Is(err, migrate.ErrNoChange):
		return nil
	case errors.As(err, &dirty):
		return dirtyError(engine, uint(dirty.Version))
	}
	return fmt.Errorf("migrate %s: %w", engine, err)
}
