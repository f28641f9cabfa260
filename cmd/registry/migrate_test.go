package main

import (
	"bytes"
	"context"
	"database/sql"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/testing/pgtest"
	"github.com/agora-registry/registry/migrations"
)

func runRegistry(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &environment{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	code = run(context.Background(), env, args)
	return code, out.String(), errOut.String()
}

// migrateTarget is one engine's database as the migrate command is
// pointed at it, and a way to run SQL on it behind the command's back.
type migrateTarget struct {
	flags     []string
	embedded  fs.FS
	glob      string
	driver    string
	driverDSN string
}

func migrateTargets(t *testing.T) map[string]func(t *testing.T) migrateTarget {
	return map[string]func(t *testing.T) migrateTarget{
		"sqlite": func(t *testing.T) migrateTarget {
			dir := t.TempDir()
			return migrateTarget{[]string{"--data-dir", dir}, migrations.SQLite, "sqlite/*.up.sql", "sqlite", filepath.Join(dir, sqliteFile)}
		},
		"postgres": func(t *testing.T) migrateTarget {
			dsn := pgtest.NewDatabase(t)
			return migrateTarget{[]string{"--database-url", dsn}, migrations.Postgres, "postgres/*.up.sql", "pgx", dsn}
		},
	}
}

func (m migrateTarget) exec(t *testing.T, q string) {
	t.Helper()
	db, err := sql.Open(m.driver, m.driverDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateStepsDownOneAtATimeAndGuardsDownAll(t *testing.T) {
	for name, newTarget := range migrateTargets(t) {
		t.Run(name, func(t *testing.T) {
			target := newTarget(t)
			ups, err := fs.Glob(target.embedded, target.glob)
			if err != nil || len(ups) < 2 {
				t.Fatalf("embedded migrations: %v, %v", ups, err)
			}
			// In version order (zero-padded numbers), not necessarily consecutive.
			newest, _, _ := strings.Cut(path.Base(ups[len(ups)-1]), "_")
			previous, _, _ := strings.Cut(path.Base(ups[len(ups)-2]), "_")
			newest, previous = strings.TrimLeft(newest, "0"), strings.TrimLeft(previous, "0")
			latest := "schema version " + newest + " (clean)"
			oneDown := "schema version " + previous + " (clean)"
			steps := []struct {
				args     []string
				code     int
				stdout   string
				stderrIn string
				before   string // SQL run before the command
			}{
				{args: []string{"up"}, stdout: latest},
				{args: []string{"down"}, stdout: oneDown},
				{args: []string{"up"}, stdout: latest},
				{args: []string{"down", "all"}, code: 2, stderrIn: "add --yes"},
				{args: []string{"version"}, stdout: latest},
				{args: []string{"down", "zero"}, code: 2, stderrIn: "positive number"},
				{args: []string{"force", "x"}, code: 2, stderrIn: "version number"},
				{args: []string{"version"}, stdout: "schema version " + newest + " (DIRTY", before: "UPDATE schema_migrations SET dirty = true"},
				{args: []string{"up"}, code: 1, stderrIn: "dirty at version " + newest},
				{args: []string{"down"}, code: 1, stderrIn: "registry migrate force"},
				{args: []string{"force", newest}, stdout: latest},
				{args: []string{"--yes", "down", "all"}, stdout: "schema version 0 (clean)"},
				{args: []string{"force", "1"}, stdout: "schema version 1 (clean)"},
			}
			for _, s := range steps {
				if s.before != "" {
					target.exec(t, s.before)
				}
				args := append(append([]string{"migrate"}, target.flags...), s.args...)
				code, out, errOut := runRegistry(t, args...)
				if code != s.code || !strings.Contains(out, s.stdout) || !strings.Contains(errOut, s.stderrIn) {
					t.Fatalf("registry %v: exit %d stdout %q stderr %q; want exit %d, stdout with %q, stderr with %q",
						s.args, code, out, errOut, s.code, s.stdout, s.stderrIn)
				}
			}
		})
	}
}

func TestTokenHelpAndUnknownSubcommandsExplainUsage(t *testing.T) {
	if code, out, _ := runRegistry(t, "token", "-h"); code != 0 || !strings.Contains(out, "usage: registry token create") {
		t.Errorf("registry token -h: exit %d, stdout %q; want exit 0 with the usage", code, out)
	}
	for _, args := range [][]string{{"token"}, {"token", "nope"}} {
		code, _, errOut := runRegistry(t, args...)
		if code != 2 || !strings.Contains(errOut, "usage: registry token create") {
			t.Errorf("registry %v: exit %d, stderr %q; want exit 2 with the usage", args, code, errOut)
		}
	}
}
