package migrate_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/testing/pgtest"
	"github.com/agora-registry/registry/migrations"
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

// embeddedVersions lists the engine's embedded migration numbers (they
// need not be consecutive: branches number theirs apart).
func embeddedVersions(t *testing.T, engine migrate.Engine) []uint {
	t.Helper()
	fsys, dir := migrations.Postgres, "postgres"
	if engine == migrate.SQLite {
		fsys, dir = migrations.SQLite, "sqlite"
	}
	names, err := fs.Glob(fsys, dir+"/*.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []uint
	for _, name := range names {
		num, _, _ := strings.Cut(path.Base(name), "_")
		n, err := strconv.ParseUint(num, 10, 64)
		if err != nil {
			t.Fatalf("migration %s has no version number", name)
		}
		out = append(out, uint(n))
	}
	return out
}

// previousVersion is the embedded migration before v.
func previousVersion(t *testing.T, engine migrate.Engine, v uint) uint {
	var prev uint
	for _, n := range embeddedVersions(t, engine) {
		if n < v {
			prev = max(prev, n)
		}
	}
	return prev
}

// publishersVersion is the migration that adds publishers, per engine.
var publishersVersion = map[string]uint{"postgres": 4, "sqlite": 5}

// stepsFrom counts the embedded migrations numbered v or later.
func stepsFrom(t *testing.T, engine migrate.Engine, v uint) int {
	n := 0
	for _, x := range embeddedVersions(t, engine) {
		if x >= v {
			n++
		}
	}
	return n
}

// upOverOldRows migrates db up, back below migration version, stores
// rows with insert as they were stored then, and migrates up over them. It
// returns how many steps lead back below version.
func upOverOldRows(t *testing.T, db engineDB, version uint, insert string) int {
	t.Helper()
	ctx := context.Background()
	if err := migrate.Up(ctx, db.engine, db.dsn); err != nil {
		t.Fatal(err)
	}
	below := stepsFrom(t, db.engine, version)
	if err := migrate.Down(ctx, db.engine, db.dsn, below); err != nil {
		t.Fatal(err)
	}
	db.exec(t, insert)
	if err := migrate.Up(ctx, db.engine, db.dsn); err != nil {
		t.Fatalf("Up over existing rows: %v", err)
	}
	return below
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
			below := upOverOldRows(t, db, publishersVersion[name], inserts[name])
			if got := strings.Join(db.column(t, "SELECT publisher FROM documents ORDER BY origin"), ","); got != "default,examples" {
				t.Fatalf("document publishers after the migration: %s, want default,examples", got)
			}
			if got := strings.Join(db.column(t, "SELECT publisher FROM api_tokens"), ","); got != "default" {
				t.Fatalf("token publishers after the migration: %s, want default", got)
			}
			if err := migrate.Down(context.Background(), db.engine, db.dsn, below); err != nil {
				t.Fatalf("Down: %v", err)
			}
			if got := db.column(t, "SELECT origin FROM documents ORDER BY origin"); len(got) != 2 {
				t.Fatalf("rows after Down: %v", got)
			}
			if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatalf("Up again: %v", err)
			}
		})
	}
}

// lifecycleVersion is the migration that makes publishers accounts and
// gives documents a status, per engine.
var lifecycleVersion = map[string]uint{"postgres": 7, "sqlite": 7}

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
			below := upOverOldRows(t, db, lifecycleVersion[name], inserts[name])
			if got := strings.Join(db.column(t, "SELECT name FROM publishers ORDER BY name"), ","); got != "acme,anonymous,default,examples,globex,mirror" {
				t.Fatalf("publishers after the migration: %s", got)
			}
			if got := strings.Join(db.column(t, "SELECT status FROM documents"), ","); got != "active" {
				t.Fatalf("document status after the migration: %s, want active", got)
			}
			if err := migrate.Down(context.Background(), db.engine, db.dsn, below); err != nil {
				t.Fatalf("Down: %v", err)
			}
			if slices.Contains(db.tables(t), "publishers") || slices.Contains(db.tables(t), "document_history") {
				t.Fatalf("tables after Down: %v", db.tables(t))
			}
			if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatalf("Up again: %v", err)
			}
		})
	}
}

// logVersion is the migration that adds the transparency log, per engine.
var logVersion = map[string]uint{"postgres": 8, "sqlite": 8}

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
			below := upOverOldRows(t, db, logVersion[name], inserts[name])
			got := strings.Join(db.column(t, "SELECT event || ' ' || substr("+hexOf[name]+", 1, 2) || ' ' || reason FROM log_pending ORDER BY seq"), ",")
			if got != "publish 02 ,publish 01 ,withdraw 01 spam" {
				t.Fatalf("queued events after the migration: %q", got)
			}
			if err := migrate.Down(context.Background(), db.engine, db.dsn, below); err != nil {
				t.Fatalf("Down: %v", err)
			}
			if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatalf("Up again: %v", err)
			}
		})
	}
}

// agentOriginsVersion is the migration that makes an agent its origin.
var agentOriginsVersion = map[string]uint{"postgres": 17, "sqlite": 17}

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
			below := upOverOldRows(t, db, agentOriginsVersion[name], inserts[name])
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
			if err := migrate.Down(context.Background(), db.engine, db.dsn, below); err != nil {
				t.Fatalf("Down: %v", err)
			}
			if slices.Contains(db.tables(t), "agent_registrations") {
				t.Fatalf("tables after Down: %v", db.tables(t))
			}
			if err := migrate.Up(context.Background(), db.engine, db.dsn); err != nil {
				t.Fatalf("Up again: %v", err)
			}
		})
	}
}
