package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	sqlitemigrate "github.com/golang-migrate/migrate/v4/database/sqlite" // registers modernc.org/sqlite as "sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/agora-registry/registry/migrations"
)

// sqliteBusyTimeoutMillis is how long migrating waits for a lock another
// connection holds on the SQLite file; the engine waits as long.
const sqliteBusyTimeoutMillis = 10000

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
	ups, err := upFiles(engine)
	if err != nil {
		return 0, err
	}
	var latest uint
	for v := range ups {
		latest = max(latest, v)
	}
	return latest, nil
}

// Versions lists the engine's embedded migration versions, oldest first.
// They need not be consecutive: branches number their migrations apart.
func Versions(engine Engine) ([]uint, error) {
	ups, err := upFiles(engine)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(ups)), nil
}

// Named is the version of the engine's embedded migration called name, its
// file name without the number and ".up.sql" ("search_rank" is PostgreSQL
// 000006_search_rank.up.sql). Tests find a migration by name so that a
// newer migration cannot shift them onto another one.
func Named(engine Engine, name string) (uint, error) {
	ups, err := upFiles(engine)
	if err != nil {
		return 0, err
	}
	for v, file := range ups {
		if _, rest, _ := strings.Cut(path.Base(file), "_"); rest == name+".up.sql" {
			return v, nil
		}
	}
	return 0, fmt.Errorf("migrate: no embedded %s migration is named %q", engine, name)
}

// upFiles maps each embedded version of an engine to its up file's path.
func upFiles(engine Engine) (map[uint]string, error) {
	fsys, dir, err := files(engine)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrate: reading embedded %s migrations: %w", engine, err)
	}
	ups := map[uint]string{}
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok || !strings.HasSuffix(e.Name(), ".up.sql") {
			continue
		}
		v, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("migrate: embedded migration %s has no version number", e.Name())
		}
		ups[uint(v)] = "migrations/" + dir + "/" + e.Name()
	}
	return ups, nil
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
	fsys, dir, err := files(engine)
	if err != nil {
		return nil, err
	}
	src, err := iofs.New(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrate: reading embedded %s migrations: %w", engine, err)
	}
	var driver database.Driver
	if engine == SQLite {
		driver, err = openSQLite(dsn)
	} else {
		driver, err = openPostgres(dsn)
	}
	if err != nil {
		src.Close()
		return nil, err
	}
	m, err := migrate.NewWithInstance("iofs", src, string(engine), driver)
	if err != nil {
		src.Close()
		driver.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return m, nil
}

func openPostgres(dsn string) (database.Driver, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("migrate: invalid PostgreSQL DSN: %w", err)
	}
	db.SetMaxOpenConns(2)
	driver, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: connecting to PostgreSQL: %w", err)
	}
	return driver, nil
}

// openSQLite opens the file at path on one connection, durable and in WAL
// mode like the engine's writer, taking the write lock at BEGIN so that a
// migration never fails half-way on a lock upgrade.
func openSQLite(path string) (database.Driver, error) {
	if path == "" || path == ":memory:" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("migrate: %q is not a SQLite database file path", path)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeoutMillis))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("migrate: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	driver, err := sqlitemigrate.WithInstance(db, &sqlitemigrate.Config{})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: opening %s: %w", path, err)
	}
	return driver, nil
}

// upFile names the embedded up migration of version v, for messages.
func upFile(engine Engine, v uint) string {
	if ups, err := upFiles(engine); err == nil && ups[v] != "" {
		return ups[v]
	}
	return fmt.Sprintf("migrations/%s/%d_*.up.sql", engine, v)
}
