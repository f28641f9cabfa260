//go:build unix

package auth

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadSecretFile: a secret file is read trimmed; an empty, oversized,
// missing or non-regular one (a FIFO, never blocked on) is refused with
// what it was for.
func TestReadSecretFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got, err := ReadSecretFile("follow token", write("ok", "  agr_secret\n")); err != nil || got != "agr_secret" {
		t.Fatalf("ReadSecretFile = %q, %v; want the trimmed secret", got, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{
		"empty":   write("empty", " \n"),
		"large":   write("large", strings.Repeat("x", maxSecretFileBytes+1)),
		"missing": filepath.Join(dir, "missing"),
		"fifo":    fifo,
	} {
		if _, err := ReadSecretFile("follow token", path); err == nil || !strings.Contains(err.Error(), "follow token") {
			t.Errorf("%s: %v, want an error naming the follow token", name, err)
		}
	}
}
