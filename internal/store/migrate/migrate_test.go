package migrate_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// engineDB is one engine's throw-away database and a way to run SQL on it.
type engineDB struct {
	engine migrate.Engine
	dsn    string
	exec   func(t *testing.T, sql string)
	tables func(t *testing.T) []string
	// column returns the one text column a query selects, row by row.
	column func(t *testing.T, sql string) []string
}

func postgresDB(t *testing.T) engineDB {
	dsn := pgtest.NewDatabase(t)
	withConn := func(t *testing.T, fn func(*pgx.Conn) error) {
		t.Helper()
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if err := fn(conn); err != nil {
			t.Fatal(err)
		}
	}
	return engineDB{
		engine: migrate.Postgres,
		dsn:    dsn,
		exec: func(t *testing.T, q string) {
			withConn(t, func(c *pgx.Conn) error { _, err := c.Exec(context.Background(), q); return err })
		},
		tables: func(t *testing.T) []string {
			var names []string
			withConn(t, func(c *pgx.Conn) error {
				rows, err := c.Query(context.Background(),
					"SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1")
				if err != nil {
					return err
				}
				names, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			})
			return names
		},
		column: func(t *testing.T, q string) []string {
			var out []string
			withConn(t, func(c *pgx.Conn) error {
				rows, err := c.Query(context.Background(), q)
				if err != nil {
					return err
				}
				out, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			})
			return out
		},
	}
}

func sqliteDB(t *testing.T) engineDB {
	path := filepath.Join(t.TempDir(), "registry.db")
	withDB := func(t *testing.T, fn func(*sql.DB) error) {
		t.Helper()
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := fn(db); err != nil {
			t.Fatal(err)
		}
	}
	column := func(t *testing.T, q string) []string {
		var out []string
		withDB(t, func(db *sql.DB) error {
			rows, err := db.Query(q)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var n string
				if err := rows.Scan(&n); err != nil {
					return err
				}
				out = append(out, n)
			}
			return rows.Err()
		})
		return out
	}
	return engineDB{
		engine: migrate.SQLite,
		dsn:    path,
		exec: func(t *testing.T, q string) {
			withDB(t, func(db *sql.DB) error { _, err := db.Exec(q); return err })
		},
		tables: func(t *testing.T) []string {
			return column(t, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY 1")
		},
		column: column,
	}
}

var engines = map[string]func(t *testing.T) engineDB{
	"postgres": postgresDB,
	"sqlite":   sqliteDB,
}

func TestUpVersionDownUp(t *testing.T) {
	for name, newDB := range engines {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			ctx := context.Background()
			latest, err := migrate.Latest(db.engine)
			if err != nil || latest == 0 {
				t.Fatalf("Latest = %d, %v; want a version", latest, err)
			}

			v, dirty, err := migrate.Version(ctx, db.engine, db.dsn)
			if err != nil || v != 0 || dirty {
				t.Fatalf("Version of an empty database = %d, %v, %v; want 0, clean", v, dirty, err)
			}
			if err := migrate.Check(ctx, db.engine, db.dsn); !errors.Is(err, migrate.ErrOutdated) {
				t.Fatalf("Check of an empty database = %v, want ErrOutdated", err)
			}

			if err := migrate.Up(ctx, db.engine, db.dsn); err != nil {
				t.Fatalf("Up: %v", err)
			}
			v, dirty, err = migrate.Version(ctx, db.engine, db.dsn)
			if err != nil || v != latest || dirty {
				t.Fatalf("Version after Up = %d, %v, %v; want %d, clean", v, dirty, err, latest)
			}
			if got := db.tables(t); !slices.Contains(got, "documents") {
				t.Fatalf("tables after Up = %v, want documents among them", got)
			}
			if err := migrate.Check(ctx, db.engine, db.dsn); err != nil {
				t.Fatalf("Check after Up: %v", err)
			}
			if err := migrate.Up(ctx, db.engine, db.dsn); err != nil {
				t.Fatalf("second Up (no change) failed: %v", err)
			}

			if err := migrate.Down(ctx, db.engine, db.dsn, int(latest)+5); err != nil {
				t.Fatalf("Down past the first migration: %v", err)
			}
			v, dirty, err = migrate.Version(ctx, db.engine, db.dsn)
			if err != nil || v != 0 || dirty {
				t.Fatalf("Version after Down all = %d, %v, %v; want 0, clean", v, dirty, err)
			}
			if got := db.tables(t); len(got) != 0 {
				t.Fatalf("tables after Down all = %v, want none", got)
			}
			if err := migrate.Down(ctx, db.engine, db.dsn, 1); err != nil {
				t.Fatalf("Down with nothing applied: %v", err)
			}
			if err := migrate.Down(ctx, db.engine, db.dsn, 0); err == nil {
				t.Fatal("Down(0) was accepted")
			}

			if err := migrate.Up(ctx, db.engine, db.dsn); err != nil {
				t.Fatalf("Up after Down: %v", err)
			}
			if err := migrate.Down(ctx, db.engine, db.dsn, 1); err != nil {
				t.Fatalf("Down 1: %v", err)
			}
			if v, _, _ := migrate.Version(ctx, db.engine, db.dsn); v != previousVersion(t, db.engine, latest) {
				t.Fatalf("Version after Down 1 = %d, want %d", v, previousVersion(t, db.engine, latest))
			}
			if err := migrate.Up(ctx, db.engine, db.dsn); err != nil {
				t.Fatalf("Up after Down 1: %v", err)
			}
			if err := migrate.DownAll(ctx, db.engine, db.dsn); err != nil {
				t.Fatalf("DownAll: %v", err)
			}
			if got := db.tables(t); len(got) != 0 {
				t.Fatalf("tables after DownAll = %v, want none", got)
			}
		})
	}
}

func TestDirtyVersionIsRefused(t *testing.T) {
	for name, newDB := range engines {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			ctx := context.Background()
			if err := migrate.Up(ctx, db.engine, db.dsn); err != nil {
				t.Fatalf("Up: %v", err)
			}
			latest, _ := migrate.Latest(db.engine)
			// What golang-migrate leaves behind when a migration fails.
			db.exec(t, "UPDATE schema_migrations SET dirty = true")

			v, dirty, err := migrate.Version(ctx, db.engine, db.dsn)
			if err != nil || !dirty || v != latest {
				t.Fatalf("Version = %d, %v, %v; want %d, dirty", v, dirty, err, latest)
			}
			for what, err := range map[string]error{
				"Up":      migrate.Up(ctx, db.engine, db.dsn),
				"Down":    migrate.Down(ctx, db.engine, db.dsn, 1),
				"DownAll": migrate.DownAll(ctx, db.engine, db.dsn),
				"Check":   migrate.Check(ctx, db.engine, db.dsn),
			} {
				if !errors.Is(err, migrate.ErrDirty) {
					t.Fatalf("%s on a dirty schema = %v, want ErrDirty", what, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, "dirty at version") || !strings.Contains(msg, "registry migrate force") {
					t.Fatalf("%s: the dirty error does not say which version and how to repair: %q", what, msg)
				}
			}
			if got := db.tables(t); !slices.Contains(got, "documents") {
				t.Fatalf("a refused Down changed the schema: tables %v", got)
			}

			if err := migrate.Force(ctx, db.engine, db.dsn, int(latest)+1); err == nil {
				t.Fatal("Force to a version beyond the newest migration was accepted")
			}
			if err := migrate.Force(ctx, db.engine, db.dsn, int(latest)); err != nil {
				t.Fatalf("Force: %v", err)
			}
			if err := migrate.Check(ctx, db.engine, db.dsn); err != nil {
				t.Fatalf("Check after Force: %v", err)
			}
		})
	}
}

func TestUnknownEngine(t *testing.T) {
	if err := migrate.Up(context.Background(), "oracle", "x"); err == nil || !strings.Contains(err.Error(), "unknown engine") {
		t.Fatalf("Up with an unknown engine = %v", err)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := migrate.Up(ctx, migrate.SQLite, filepath.Join(t.TempDir(), "x.db")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Up with a cancelled context = %v", err)
	}
}

// previousVersion is the embedded migration before v (0 for the first).
func previousVersion(t *testing.T, engine migrate.Engine, v uint) uint {
	t.Helper()
	versions, err := migrate.Versions(engine)
	if err != nil {
		t.Fatal(err)
	}
	var prev uint
	for _, n := range versions {
		if n < v {
			prev = max(prev, n)
		}
	}
	return prev
}

// named is the version of the engine's migration called name.
func named(t *testing.T, engine migrate.Engine, name string) uint {
	t.Helper()
	v, err := migrate.Named(engine, name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// migrateTo migrates db to exactly version v.
func migrateTo(t *testing.T, db engineDB, v uint) {
	t.Helper()
	if err := migrate.To(context.Background(), db.engine, db.dsn, v); err != nil {
		t.Fatalf("migrating to version %d: %v", v, err)
	}
	if got, _, _ := migrate.Version(context.Background(), db.engine, db.dsn); got != v {
		t.Fatalf("version after migrating to %d: %d", v, got)
	}
}

// overOldRows takes db over the migration called name with rows written as
// they were stored before it: down to the version below it, insert, up to
// it. check runs there and again at the newest version; then the migration
// goes down and up again.
func overOldRows(t *testing.T, db engineDB, name, insert string, check func(t *testing.T)) {
	t.Helper()
	at := named(t, db.engine, name)
	before := previousVersion(t, db.engine, at)
	if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
		t.Fatal(err)
	}
	migrateTo(t, db, before)
	db.exec(t, insert)
	migrateTo(t, db, at)
	if !t.Run("AtTheMigration", check) {
		t.FailNow()
	}
	if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
		t.Fatalf("Up to the newest: %v", err)
	}
	if !t.Run("AtTheNewest", check) {
		t.FailNow()
	}
	migrateTo(t, db, before)
}

// TestPublishersMigration: rows that predate publishers get 'default',
// seeded examples the reserved 'examples', and the migration goes down
// and up again.
func TestPublishersMigration(t *testing.T) {
	inserts := map[string]string{
		"postgres": `INSERT INTO documents (digest, sha256, content, size, origin) VALUES
			('\x0101010101010101010101010101010101010101', '\x` + strings.Repeat("01", 32) + `', 'a', 1, ''),
			('\x0202020202020202020202020202020202020202', '\x` + strings.Repeat("02", 32) + `', 'b', 1, 'example');
			INSERT INTO api_tokens (name, scopes, secret_hash) VALUES ('old', '{publish}', '\x` + strings.Repeat("03", 32) + `')`,
		"sqlite": `INSERT INTO documents (hex, sha256, size, title, title_key, description, multiround, tags, version,
				authors, license, front_matter, lints, origin, created_at) VALUES
			('` + strings.Repeat("01", 20) + `', x'` + strings.Repeat("01", 32) + `', 1, '', '', '', 0, '[]', '', '[]', '', 0, '[]', '', 1),
			('` + strings.Repeat("02", 20) + `', x'` + strings.Repeat("02", 32) + `', 1, '', '', '', 0, '[]', '', '[]', '', 0, '[]', 'example', 2);
			INSERT INTO api_tokens (name, scopes, secret_hash, created_at) VALUES ('old', '["publish"]', x'` + strings.Repeat("03", 32) + `', 1)`,
	}
	for name, newDB := range engines {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			overOldRows(t, db, "publishers", inserts[name], func(t *testing.T) {
				if got := strings.Join(db.column(t, "SELECT publisher FROM documents ORDER BY origin"), ","); got != "default,examples" {
					t.Fatalf("document publishers after the migration: %s, want default,examples", got)
				}
				if got := strings.Join(db.column(t, "SELECT publisher FROM api_tokens"), ","); got != "default" {
					t.Fatalf("token publishers after the migration: %s, want default", got)
				}
			})
			if got := db.column(t, "SELECT origin FROM documents ORDER BY origin"); len(got) != 2 {
				t.Fatalf("rows after Down: %v", got)
			}
			if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatalf("Up again: %v", err)
			}
		})
	}
}

// TestLifecycleMigration: every publisher name a token or document carries
// becomes an account (default and the reserved names among them), every
// document starts active, and the migration goes down and up again.
func TestLifecycleMigration(t *testing.T) {
	inserts := map[string]string{
		"postgres": `INSERT INTO documents (digest, sha256, content, size, origin, publisher) VALUES
			('\x0101010101010101010101010101010101010101', '\x` + strings.Repeat("01", 32) + `', 'a', 1, '', 'acme');
			INSERT INTO api_tokens (name, scopes, secret_hash, publisher) VALUES ('old', '{publish}', '\x` + strings.Repeat("03", 32) + `', 'globex')`,
		"sqlite": `INSERT INTO documents (hex, sha256, size, title, title_key, description, multiround, tags, version,
				authors, license, front_matter, lints, origin, created_at, publisher) VALUES
			('` + strings.Repeat("01", 20) + `', x'` + strings.Repeat("01", 32) + `', 1, '', '', '', 0, '[]', '', '[]', '', 0, '[]', '', 1, 'acme');
			INSERT INTO api_tokens (name, scopes, secret_hash, created_at, publisher) VALUES ('old', '["publish"]', x'` + strings.Repeat("03", 32) + `', 1, 'globex')`,
	}
	for name, newDB := range engines {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			overOldRows(t, db, "lifecycle", inserts[name], func(t *testing.T) {
				if got := strings.Join(db.column(t, "SELECT name FROM publishers ORDER BY name"), ","); got != "acme,anonymous,default,examples,globex,mirror" {
					t.Fatalf("publishers after the migration: %s", got)
				}
				if got := strings.Join(db.column(t, "SELECT status FROM documents"), ","); got != "active" {
					t.Fatalf("document status after the migration: %s, want active", got)
				}
			})
			if slices.Contains(db.tables(t), "publishers") || slices.Contains(db.tables(t), "document_history") {
				t.Fatalf("tables after Down: %v", db.tables(t))
			}
			if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatalf("Up again: %v", err)
			}
		})
	}
}

// TestLogMigrationQueuesExistingDocuments: documents stored before the
// log enter its queue in creation order, then their withdrawals.
func TestLogMigrationQueuesExistingDocuments(t *testing.T) {
	inserts := map[string]string{
		"postgres": `INSERT INTO documents (digest, sha256, content, size, origin, created_at, withdrawn_at, withdraw_reason) VALUES
			('\x0101010101010101010101010101010101010101', '\x` + strings.Repeat("01", 32) + `', 'a', 1, '', '2020-01-02Z', '2021-01-01Z', 'spam'),
			('\x0202020202020202020202020202020202020202', '\x` + strings.Repeat("02", 32) + `', 'b', 1, '', '2020-01-01Z', NULL, '')`,
		"sqlite": `INSERT INTO documents (hex, sha256, size, title, title_key, description, multiround, tags, version,
				authors, license, front_matter, lints, origin, created_at, withdrawn_at, withdraw_reason) VALUES
			('` + strings.Repeat("01", 20) + `', x'` + strings.Repeat("01", 32) + `', 1, '', '', '', 0, '[]', '', '[]', '', 0, '[]', '', 2, 3, 'spam'),
			('` + strings.Repeat("02", 20) + `', x'` + strings.Repeat("02", 32) + `', 1, '', '', '', 0, '[]', '', '[]', '', 0, '[]', '', 1, NULL, '')`,
	}
	hexOf := map[string]string{"postgres": "encode(digest, 'hex')", "sqlite": "hex"}
	for name, newDB := range engines {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			overOldRows(t, db, "transparency_log", inserts[name], func(t *testing.T) {
				got := strings.Join(db.column(t, "SELECT event || ' ' || substr("+hexOf[name]+", 1, 2) || ' ' || reason FROM log_pending ORDER BY seq"), ",")
				if got != "publish 02 ,publish 01 ,withdraw 01 spam" {
					t.Fatalf("queued events after the migration: %q", got)
				}
			})
			if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatalf("Up again: %v", err)
			}
		})
	}
}

// TestAgentOriginsMigration: agents registered at several paths of one
// origin merge into the oldest, with only its lists; every URL becomes its
// origin (default ports dropped) and is due for a crawl; the migration goes
// down and up again.
func TestAgentOriginsMigration(t *testing.T) {
	d1, d2 := `'\x`+strings.Repeat("01", 20)+`'`, `'\x`+strings.Repeat("02", 20)+`'`
	h1, h2 := `'`+strings.Repeat("01", 20)+`'`, `'`+strings.Repeat("02", 20)+`'`
	urls := []string{"http://a.test/x", "http://a.test:80/y/", "https://b.test:443", "http://c.test:8080/p/q", "http://d.test"}
	var pgRows, sqRows []string
	for i, u := range urls {
		pgRows = append(pgRows, fmt.Sprintf("(chr(10) || chr(10) || '%s', '%s', '2026-01-0%dZ', '2030-01-01Z')", u, u, i+1))
		sqRows = append(sqRows, fmt.Sprintf("(char(10) || char(10) || '%s', '%s', %d, %d)", u, u, i+1, int64(1893456000000000)))
	}
	inserts := map[string]string{
		"postgres": `INSERT INTO agents (text_key, url, registered_at, next_crawl_at) VALUES ` + strings.Join(pgRows, ", ") + `;
			INSERT INTO agent_protocols (agent_id, digest, supported) VALUES (1, ` + d1 + `, true), (2, ` + d1 + `, true), (2, ` + d2 + `, true)`,
		"sqlite": `INSERT INTO agents (text_key, url, registered_at, next_crawl_at) VALUES ` + strings.Join(sqRows, ", ") + `;
			INSERT INTO agent_protocols (agent_id, hex, supported) VALUES (1, ` + h1 + `, 1), (2, ` + h1 + `, 1), (2, ` + h2 + `, 1)`,
	}
	dueNow := map[string]string{
		"postgres": "SELECT url FROM agents WHERE next_crawl_at < '2029-01-01Z' ORDER BY id",
		"sqlite":   "SELECT url FROM agents WHERE next_crawl_at < 1861920000000000 ORDER BY id",
	}
	for name, newDB := range engines {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			overOldRows(t, db, "agent_origins", inserts[name], func(t *testing.T) {
				want := "http://a.test,https://b.test,http://c.test:8080,http://d.test"
				if got := strings.Join(db.column(t, "SELECT url FROM agents ORDER BY id"), ","); got != want {
					t.Fatalf("agents after the migration: %s, want %s", got, want)
				}
				if got := strings.Join(db.column(t, "SELECT CAST(id AS TEXT) FROM agents ORDER BY id"), ","); got != "1,3,4,5" {
					t.Fatalf("ids after the migration: %s, want the oldest of a.test kept", got)
				}
				if got := strings.Join(db.column(t, "SELECT CAST(agent_id AS TEXT) FROM agent_protocols"), ","); got != "1" {
					t.Fatalf("lists after the migration: %s, want only the kept agent's", got)
				}
				if got := strings.Join(db.column(t, "SELECT substr(text_key, 3) FROM agents ORDER BY id"), ","); got != want {
					t.Fatalf("text keys after the migration: %s", got)
				}
				if got := strings.Join(db.column(t, dueNow[name]), ","); got != "http://a.test,https://b.test,http://c.test:8080" {
					t.Fatalf("due after the migration: %s, want every agent whose URL changed", got)
				}
			})
			if slices.Contains(db.tables(t), "agent_registrations") {
				t.Fatalf("tables after Down: %v", db.tables(t))
			}
			if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatalf("Up again: %v", err)
			}
		})
	}
}

// schemaQueries read what a migration can change in each engine's schema,
// one text row per object, in an order that does not depend on the order
// objects were made in (a column dropped and added again moves to the end).
// SQLite's own tables are left out: it keeps sqlite_sequence once made.
var schemaQueries = map[migrate.Engine][]string{
	migrate.Postgres: {
		`SELECT c.relname || ' ' || c.relkind::text FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace ORDER BY 1`,
		`SELECT c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull ||
			' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') || ' ' || coalesce(co.collname, '') || ' ' || coalesce(a.attstattarget::text, '')
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0 AND co.collname <> 'default'
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p') AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY 1`,
		`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1`,
		`SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
		WHERE connamespace = 'public'::regnamespace ORDER BY 1`,
		`SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`,
		`SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || md5(pg_get_functiondef(p.oid)) FROM pg_proc p
		WHERE p.pronamespace = 'public'::regnamespace ORDER BY 1`,
		`SELECT t.typname || ' ' || t.typtype::text FROM pg_type t WHERE t.typnamespace = 'public'::regnamespace ORDER BY 1`,
	},
	migrate.SQLite: {
		`SELECT type || ' ' || name || ' ' || tbl_name FROM sqlite_master WHERE name <> 'schema_migrations' AND name NOT LIKE 'sqlite_%' ORDER BY 1`,
		`SELECT name || ' ' || type || ' ' || ncol || ' ' || wr || ' ' || strict FROM pragma_table_list WHERE schema = 'main' AND name <> 'schema_migrations' AND name NOT LIKE 'sqlite_%' ORDER BY 1`,
		`SELECT m.name || '.' || p.name || ' ' || p.type || ' ' || p."notnull" || ' ' || coalesce(p.dflt_value, '') || ' ' || p.pk || ' ' || p.hidden
		FROM sqlite_master m, pragma_table_xinfo(m.name) p WHERE m.type = 'table' AND m.name <> 'schema_migrations' AND m.name NOT LIKE 'sqlite_%' ORDER BY 1`,
		`SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND (type <> 'table' OR sql LIKE 'CREATE VIRTUAL TABLE%') ORDER BY 1`,
	},
}

func schemaOf(t *testing.T, db engineDB) []string {
	t.Helper()
	var out []string
	for _, q := range schemaQueries[db.engine] {
		out = append(out, db.column(t, q)...)
	}
	return out
}

// TestEveryMigrationRoundTrips: every migration, applied in turn, goes down
// to exactly the schema below it and up again to exactly its own.
func TestEveryMigrationRoundTrips(t *testing.T) {
	for name, newDB := range engines {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			versions, err := migrate.Versions(db.engine)
			if err != nil {
				t.Fatal(err)
			}
			// Reading the version makes golang-migrate's own table, which
			// every later snapshot holds too.
			if _, _, err := migrate.Version(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatal(err)
			}
			var prev uint
			below := schemaOf(t, db)
			for _, v := range versions {
				migrateTo(t, db, v)
				at := schemaOf(t, db)
				migrateTo(t, db, prev)
				if got := schemaOf(t, db); !slices.Equal(got, below) {
					t.Fatalf("migration %d down does not restore the schema of %d:\n%s", v, prev, schemaDiff(below, got))
				}
				migrateTo(t, db, v)
				if got := schemaOf(t, db); !slices.Equal(got, at) {
					t.Fatalf("migration %d up again does not make the same schema:\n%s", v, schemaDiff(at, got))
				}
				prev, below = v, at
			}
		})
	}
}

// schemaDiff lists the rows only want has (-) and only got has (+).
func schemaDiff(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			b.WriteString("- " + w + "\n")
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			b.WriteString("+ " + g + "\n")
		}
	}
	return b.String()
}

// TestNamed: a migration is found by its whole name, never by a prefix,
// and To refuses a version no migration has.
func TestNamed(t *testing.T) {
	for engine, first := range map[migrate.Engine]string{migrate.Postgres: "initial", migrate.SQLite: "init"} {
		if v, err := migrate.Named(engine, first); err != nil || v != 1 {
			t.Fatalf("%s: Named(%q) = %d, %v; want 1", engine, first, v, err)
		}
		if v, err := migrate.Named(engine, "search"); err == nil {
			t.Fatalf("%s: Named(\"search\") = %d, want an error (search_rank is another name)", engine, v)
		}
	}
	if err := migrate.To(context.Background(), migrate.SQLite, filepath.Join(t.TempDir(), "x.db"), 11); err == nil {
		t.Fatal("To a version no migration has was accepted")
	}
}
