package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperationsDocShowsTheRealMigrateVersion: docs/operations.md shows,
// for each engine, the line `registry migrate version` prints on a store
// migrated up, so the documented numbers follow new migrations.
func TestOperationsDocShowsTheRealMigrateVersion(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	documented := func(engine string) string {
		for i, l := range lines {
			if strings.Contains(l, "$ registry migrate version") && strings.HasSuffix(l, "# "+engine) && i+1 < len(lines) {
				return strings.TrimSpace(lines[i+1])
			}
		}
		t.Fatalf("docs/operations.md has no `$ registry migrate version … # %s` line", engine)
		return ""
	}
	for name, engine := range map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"} {
		t.Run(name, func(t *testing.T) {
			target := migrateTargets(t)[name](t)
			if code, _, stderr := runRegistry(t, append([]string{"migrate"}, append(target.flags, "up")...)...); code != 0 {
				t.Fatalf("migrate up: exit %d: %s", code, stderr)
			}
			code, stdout, stderr := runRegistry(t, append([]string{"migrate"}, append(target.flags, "version")...)...)
			if code != 0 {
				t.Fatalf("migrate version: exit %d: %s", code, stderr)
			}
			if want := documented(engine); strings.TrimSpace(stdout) != want {
				t.Errorf("migrate version on %s prints %q; docs/operations.md shows %q", engine, strings.TrimSpace(stdout), want)
			}
		})
	}
}
