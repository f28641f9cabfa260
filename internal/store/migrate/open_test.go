package migrate_test

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/migrations"
)

// openers open each engine's store the way the registry does at start-up.
var openers = map[migrate.Engine]func(ctx context.Context, dsn string) (store.Store, error){
	migrate.Postgres: func(ctx context.Context, dsn string) (store.Store, error) { return postgres.Open(ctx, dsn) },
	migrate.SQLite:   func(ctx context.Context, dsn string) (store.Store, error) { return sqlite.Open(ctx, dsn) },
}

var (
	upFilePath = regexp.MustCompile(`migrations/(postgres|sqlite)/[0-9]+_[a-z0-9_]+\.up\.sql`)
	number     = regexp.MustCompile(`[0-9]+`)
)

// Both engines refuse a dirty schema at start-up with the one ErrDirty and
// the same words, naming an embedded migration file.
func TestOpenRefusesDirtySchemaOnBothEngines(t *testing.T) {
	messages := map[migrate.Engine]string{}
	for name, newDB := range engines {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			ctx := context.Background()
			s, err := openers[db.engine](ctx, db.dsn)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			db.exec(t, "UPDATE schema_migrations SET dirty = true")

			s, err = openers[db.engine](ctx, db.dsn)
			if err == nil {
				s.Close()
				t.Fatal("Open of a dirty schema succeeded")
			}
			if !errors.Is(err, migrate.ErrDirty) {
				t.Fatalf("Open of a dirty schema = %v, want migrate.ErrDirty", err)
			}
			msg := err.Error()
			file := upFilePath.FindString(msg)
			if file == "" {
				t.Fatalf("the dirty error names no migration file: %q", msg)
			}
			fsys := map[migrate.Engine]fs.FS{migrate.Postgres: migrations.Postgres, migrate.SQLite: migrations.SQLite}[db.engine]
			if _, err := fs.Stat(fsys, strings.TrimPrefix(file, "migrations/")); err != nil {
				t.Fatalf("the dirty error names %s, which is not embedded: %v", file, err)
			}
			msg = strings.ReplaceAll(upFilePath.ReplaceAllString(msg, "FILE"), string(db.engine), "ENGINE")
			messages[db.engine] = number.ReplaceAllString(msg, "N")
		})
	}
	if pg, lite := messages[migrate.Postgres], messages[migrate.SQLite]; pg != "" && lite != "" && pg != lite {
		t.Fatalf("the engines word a dirty schema differently:\npostgres: %s\nsqlite:   %s", pg, lite)
	}
}

// A SQLite file migrated by earlier releases (golang-migrate's
// schema_migrations table, version and dirty columns) opens and migrates
// on: the version record on disk did not change.
func TestEarlierSQLiteDatabaseOpensAndMigrates(t *testing.T) {
	db := sqliteDB(t)
	ctx := context.Background()
	latest, err := migrate.Latest(migrate.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	// Laid out by hand as golang-migrate v4's SQLite driver left it, one
	// migration short of the newest.
	db.exec(t, "CREATE TABLE schema_migrations (version uint64,dirty bool); CREATE UNIQUE INDEX version_unique ON schema_migrations (version)")
	ups, err := fs.Glob(migrations.SQLite, "sqlite/*.up.sql") // in version order: the numbers are zero-padded
	if err != nil || len(ups) < 2 {
		t.Fatalf("embedded SQLite migrations %v (%v), want two or more", ups, err)
	}
	for _, up := range ups[:len(ups)-1] {
		body, err := fs.ReadFile(migrations.SQLite, up)
		if err != nil {
			t.Fatal(err)
		}
		db.exec(t, string(body))
	}
	previous, _, _ := strings.Cut(path.Base(ups[len(ups)-2]), "_")
	db.exec(t, "INSERT INTO schema_migrations (version, dirty) VALUES ("+previous+", false)")

	s, err := sqlite.Open(ctx, db.dsn)
	if err != nil {
		t.Fatalf("Open of a database one migration behind: %v", err)
	}
	defer s.Close()
	if v, dirty, err := migrate.Version(ctx, migrate.SQLite, db.dsn); err != nil || dirty || v != latest {
		t.Fatalf("Version after Open = %d, %v, %v; want %d, clean", v, dirty, err, latest)
	}
	doc, err := protocol.Prepare([]byte("---\nname: Kept\ndescription: across the upgrade\n---\n\nBody.\n"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, created, err := s.Put(ctx, store.NewDocument{Document: doc}); err != nil || !created {
		t.Fatalf("Put after the upgrade: %v, %v", created, err)
	}
	if st, err := s.Stats(ctx); err != nil || st.Documents != 1 {
		t.Fatalf("Stats after the upgrade = %+v, %v", st, err)
	}
}
