//go:build unix

package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/archive"
)

// TestImportDirectoryNeverLeavesIt plants what an attacker who can write
// into the directory would: links to a file outside it (a world-readable
// one and a mode-600 secret), to a file inside it, to a directory outside
// it, and a FIFO named .md. None is read; each gets its own refusal; the
// one regular document is imported.
func TestImportDirectoryNeverLeavesIt(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	writeFile(t, secret, "# Secret\n\npassword=hunter2\n")
	if err := os.Chmod(secret, 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(outside, "sub", "leak.md"), "# Leak from a linked directory\n")

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.md"), "# Fine\n\nA document.\n")
	links := map[string]string{
		"passwd.md":        "/etc/passwd",
		"secret.md":        secret,
		"inside.md":        filepath.Join(dir, "ok.md"),
		"linked-dir":       filepath.Join(outside, "sub"),
		"nested/escape.md": "../../" + filepath.Base(outside) + "/secret.md",
	}
	for name, target := range links {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(dir, "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}

	st := openSQLite(t)
	rep, err := archive.ImportPath(context.Background(), st, dir, archive.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.New != 1 || rep.Failed != len(links)+1 {
		t.Fatalf("report %+v", rep)
	}
	messages := map[string]string{}
	for _, e := range rep.Errors {
		messages[e.Entry] = e.Err.Error()
		if ae := apperr.As(e.Err); ae == nil || ae.Code != "archive_entry_type" {
			t.Errorf("%s: %v, want archive_entry_type", e.Entry, e.Err)
		}
	}
	for name := range links {
		if m := messages[filepath.Join(dir, name)]; !strings.Contains(m, "symbolic link") {
			t.Errorf("%s: message %q does not say it is a link", name, m)
		}
	}
	if m := messages[fifo]; !strings.Contains(m, "named pipe") {
		t.Errorf("FIFO: message %q", m)
	}
	for _, e := range snapshot(t, st) {
		if title := e.Title; title != "Fine" {
			t.Errorf("imported %q from outside the directory", title)
		}
	}
}
