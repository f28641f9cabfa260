package storetest

import (
	"context"
	"database/sql"
	"net/url"
	"slices"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
	_ "modernc.org/sqlite"             // the "sqlite" database/sql driver

	"github.com/agora-registry/registry/internal/store/migrate"
)

// Upgrade takes one engine's database over one migration, found by name:
// down to the version just below it, up to it, and on to the newest. In
// between its tables are read with SQL, since the store only opens a
// schema at the newest version. No store may be open while it migrates.
type Upgrade struct {
	t      *testing.T
	engine migrate.Engine
	dsn    string
	// Before is the version just below the migration (0 for the first),
	// At the migration's own.
	Before, At uint
}

// OverMigration finds the engine's embedded migration called name, its
// file name without the number and ".up.sql" (for example "search_rank"),
// and fails the test when there is none. Tests name their migration so
// that a newer one cannot shift them onto it.
func OverMigration(t *testing.T, engine migrate.Engine, dsn, name string) *Upgrade {
	t.Helper()
	at, err := migrate.Named(engine, name)
	if err != nil {
		t.Fatal(err)
	}
	versions, err := migrate.Versions(engine)
	if err != nil {
		t.Fatal(err)
	}
	u := &Upgrade{t: t, engine: engine, dsn: dsn, At: at}
	if i := slices.Index(versions, at); i > 0 {
		u.Before = versions[i-1]
	}
	return u
}

// ToBefore migrates down (or up) to the version just below the migration.
func (u *Upgrade) ToBefore() { u.to(u.Before, "below the migration") }

// ToMigration migrates to the migration's version.
func (u *Upgrade) ToMigration() { u.to(u.At, "to the migration") }

// ToNewest applies every migration after it.
func (u *Upgrade) ToNewest() {
	u.t.Helper()
	if err := migrate.Up(context.Background(), u.engine, u.dsn); err != nil {
		u.t.Fatalf("migrating %s to the newest version: %v", u.engine, err)
	}
}

func (u *Upgrade) to(v uint, what string) {
	u.t.Helper()
	if err := migrate.To(context.Background(), u.engine, u.dsn, v); err != nil {
		u.t.Fatalf("migrating %s %s (version %d): %v", u.engine, what, v, err)
	}
	if got, dirty, err := migrate.Version(context.Background(), u.engine, u.dsn); err != nil || dirty || got != v {
		u.t.Fatalf("%s version after migrating %s = %d (dirty %v, %v), want %d", u.engine, what, got, dirty, err, v)
	}
}

// Column runs a query that selects one column and returns its values as
// text, row by row (NULL as "").
func (u *Upgrade) Column(query string) []string {
	u.t.Helper()
	driver, dsn := "pgx", u.dsn
	if u.engine == migrate.SQLite {
		driver, dsn = "sqlite", "file:"+u.dsn+"?"+url.Values{"_pragma": {"busy_timeout(10000)"}}.Encode()
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		u.t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		u.t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v sql.NullString
		if err := rows.Scan(&v); err != nil {
			u.t.Fatalf("%s: %v", query, err)
		}
		out = append(out, v.String)
	}
	if err := rows.Err(); err != nil {
		u.t.Fatalf("%s: %v", query, err)
	}
	return out
}

// ByEngine picks the engine's form of a query whose SQL differs.
func (u *Upgrade) ByEngine(postgres, sqlite string) string {
	if u.engine == migrate.SQLite {
		return sqlite
	}
	return postgres
}
