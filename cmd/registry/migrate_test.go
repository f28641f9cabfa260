package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/agora-registry/registry/migrations"
)

func runRegistry(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code = run(context.Background(), env, args)
	return code, out.String(), errOut.String()
}

func TestMigrateStepsDownOneAtATimeAndGuardsDownAll(t *testing.T) {
	dir := t.TempDir()
	ups, err := fs.Glob(migrations.SQLite, "sqlite/*.up.sql")
	if err != nil || len(ups) < 2 {
		t.Fatalf("embedded SQLite migrations: %v, %v", ups, err)
	}
	latest := fmt.Sprintf("schema version %d (clean)", len(ups))
	oneDown := fmt.Sprintf("schema version %d (clean)", len(ups)-1)
	steps := []struct {
		args     []string
		code     int
		stdout   string
		stderrIn string
	}{
		{[]string{"up"}, 0, latest, ""},
		{[]string{"down"}, 0, oneDown, ""},
		{[]string{"up"}, 0, latest, ""},
		{[]string{"down", "all"}, 2, "", "add --yes"},
		{[]string{"version"}, 0, latest, ""},
		{[]string{"down", "zero"}, 2, "", "positive number"},
		{[]string{"force", "x"}, 2, "", "version number"},
		{[]string{"--yes", "down", "all"}, 0, "schema version 0 (clean)", ""},
		{[]string{"force", "1"}, 0, "schema version 1 (clean)", ""},
	}
	for _, s := range steps {
		args := append([]string{"migrate", "--data-dir", dir}, s.args...)
		code, out, errOut := runRegistry(t, args...)
		if code != s.code || !strings.Contains(out, s.stdout) || !strings.Contains(errOut, s.stderrIn) {
			t.Fatalf("registry %v: exit %d stdout %q stderr %q; want exit %d, stdout with %q, stderr with %q",
				args, code, out, errOut, s.code, s.stdout, s.stderrIn)
		}
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
