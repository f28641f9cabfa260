package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/migrations"
)

// files returns an engine's embedded migration directory.
func files(engine Engine) (fs.FS, string, error) {
	switch engine {
	case Postgres:
		return migrations.Postgres, "postgres", nil
	case SQLite:
		return migrations.SQLite, "sqlite", nil
	}
	return nil, "", fmt.Errorf("migrate: unknown engine %q: use postgres or sqlite", engine)
}

// Latest is the newest migration version embedded for an engine.
func Latest(engine Engine) (uint, error) {
	fsys, dir, err := files(engine)
	if err != nil {
		return 0, err
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return 0, fmt.Errorf("migrate: reading embedded %s migrations: %w", engine, err)
	}
	var latest uint64
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok || !strings.HasSuffix(e.Name(), ".up.sql") {
			continue
		}
		v, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("migrate: embedded migration %s has no version number", e.Name())
		}
		latest = max(latest, v)
	}
	return uint(latest), nil
}

// withMigrator opens a golang-migrate instance for the engine's database,
// runs fn and closes it. Cancelling ctx stops between migrations (one
// migration is never interrupted half-way by us).
func withMigrator(ctx context.Context, engine Engine, dsn string, fn func(*migrate.Migrate) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	m, err := open(engine, dsn)
	if err != nil {
		return err
	}
	defer func() {
		srcErr, dbErr := m.Close()
		if err == nil {
			err = errors.Join(srcErr, dbErr)
		}
	}()
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-ctx.Done():
			m.GracefulStop <- true
		case <-finished:
		}
	}()
	if err := fn(m); err != nil {
		return err
	}
	return ctx.Err()
}

func open(engine Engine, dsn string) (*migrate.Migrate, error) {
	switch engine {
	case SQLite:
		// The SQLite engine knows how its file must be opened (pragmas).
		return sqlite.NewMigrator(dsn)
	case Postgres:
		return openPostgres(dsn)
	}
	_, _, err := files(engine)
	return nil, err
}

func openPostgres(dsn string) (*migrate.Migrate, error) {
	fsys, dir, err := files(Postgres)
	if err != nil {
		return nil, err
	}
	src, err := iofs.New(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrate: reading embedded postgres migrations: %w", err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("migrate: invalid PostgreSQL DSN: %w", err)
	}
	db.SetMaxOpenConns(2)
	driver, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		src.Close()
		db.Close()
		return nil, fmt.Errorf("migrate: connecting to PostgreSQL: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		src.Close()
		driver.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return m, nil
}
