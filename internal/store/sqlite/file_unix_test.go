//go:build unix

package sqlite

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/regularfile"
)

// The database file, and the -wal and -shm files SQLite gives its mode,
// are created 0600 even in a directory the operator made world-readable
// under a permissive umask: the file holds every document, the tokens'
// hashes and the log's signing key.
func TestDatabaseFilesAreCreatedOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "registry.db")
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %04o, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}
}

// A FIFO (or a directory) at the database path is refused at once, not
// opened: SQLite's open would block on a FIFO for ever.
func TestDatabasePathNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "registry.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, dir} {
		done := make(chan error, 1)
		go func() {
			st, err := Open(context.Background(), path)
			if err == nil {
				st.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if path == fifo && !errors.Is(err, regularfile.ErrNotRegular) || err == nil {
				t.Errorf("%s: %v, want a refusal as not a regular file", path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Open blocked", path)
		}
	}
}
