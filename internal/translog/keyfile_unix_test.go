//go:build unix

package translog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeKeyFile(t *testing.T, mode os.FileMode) string {
	t.Helper()
	skey, err := GenerateKey("keyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "log.key")
	if err := os.WriteFile(path, []byte(skey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

// loadKeyFile is LoadKey from a file, failing the test if it has not
// returned after ten seconds (an open blocked on a FIFO never returns).
func loadKeyFile(t *testing.T, path string) (Key, error) {
	t.Helper()
	type result struct {
		k   Key
		err error
	}
	done := make(chan result, 1)
	go func() {
		k, err := LoadKey(context.Background(), nil, path, "unused.example")
		done <- result{k, err}
	}()
	select {
	case r := <-done:
		return r.k, r.err
	case <-time.After(10 * time.Second):
		t.Fatal("LoadKey blocked")
		return Key{}, nil
	}
}

// A key file others can read or write is refused, as ssh refuses such a
// private key, with the command that fixes it; the owner's own 0600 and
// 0400 are taken.
func TestKeyFileModes(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o400} {
		if _, err := loadKeyFile(t, writeKeyFile(t, mode)); err != nil {
			t.Errorf("mode %04o: %v", mode, err)
		}
	}
	for _, mode := range []os.FileMode{0o666, 0o644, 0o640, 0o604, 0o620, 0o602, 0o610} {
		path := writeKeyFile(t, mode)
		_, err := loadKeyFile(t, path)
		if err == nil || !strings.Contains(err.Error(), "chmod 600 "+path) {
			t.Errorf("mode %04o: %v, want a refusal saying chmod 600 %s", mode, err, path)
		}
	}
}

// A key path that is a FIFO (or a directory) does not hang startup: it is
// refused at once as not a regular file.
func TestKeyFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "log.key")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, dir} {
		if _, err := loadKeyFile(t, path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v, want a refusal as not a regular file", path, err)
		}
	}
}

// A key file is read up to a small bound, never whole.
func TestKeyFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.key")
	if err := os.WriteFile(path, make([]byte, maxKeyFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadKeyFile(t, path); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("an oversized key file: %v", err)
	}
}
