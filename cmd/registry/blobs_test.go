//go:build unix

package main

import (
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// registry import fills the blob directory; blobs verify finds every kind
// of damage and --repair fixes it; rebuild recreates a lost directory.
func TestBlobsVerifyAndRebuild(t *testing.T) {
	for name, dbArgs := range engines(t) {
		t.Run(name, func(t *testing.T) {
			blobDir := filepath.Join(t.TempDir(), "blobs")
			args := append(dbArgs(t), "--blob-dir", blobDir)
			docs := t.TempDir()
			var hexes []string
			for i := 0; i < 5; i++ {
				doc := fmt.Sprintf("# Blob %d\n\nBody %d.\n", i, i)
				hexes = append(hexes, fmt.Sprintf("%x", sha1.Sum([]byte(doc))))
				if err := os.WriteFile(filepath.Join(docs, fmt.Sprintf("%d.md", i)), []byte(doc), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if _, stderr, err := runCLI(t, nil, nil, append([]string{"import"}, append(args, docs)...)...); err != nil {
				t.Fatalf("import: %v\n%s", err, stderr)
			}
			path := func(h string) string { return filepath.Join(blobDir, h[:2], h) }
			for _, h := range hexes {
				if _, err := os.Stat(path(h)); err != nil {
					t.Fatalf("import wrote no blob for %s: %v", h, err)
				}
			}
			verify := func(extra ...string) (string, error) {
				out, stderr, err := runCLI(t, nil, nil, append(append([]string{"blobs", "verify"}, extra...), args...)...)
				return out + stderr, err
			}
			if out, err := verify(); err != nil || !strings.Contains(out, "checked 5 files") {
				t.Fatalf("verify of a clean directory: %v\n%s", err, out)
			}

			// Damage: a flipped file, and a file for no stored document.
			if err := os.WriteFile(path(hexes[0]), []byte("# Blob 0\n\nBody X.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			orphan := strings.Repeat("ab", 20)
			if err := os.MkdirAll(filepath.Dir(path(orphan)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path(orphan), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			// And a FIFO under a document's name (verify must not block on it).
			if err := os.Remove(path(hexes[1])); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path(hexes[1]), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := verify()
			if err == nil || !strings.Contains(out, "found mismatch "+hexes[0]) || !strings.Contains(out, "found orphan "+orphan) ||
				!strings.Contains(out, "found not-regular "+hexes[1]) || !strings.Contains(out, "1 not regular files") {
				t.Fatalf("verify of a damaged directory: %v\n%s", err, out)
			}
			if b, _ := os.ReadFile(path(hexes[0])); string(b) != "# Blob 0\n\nBody X.\n" {
				t.Fatal("verify without --repair changed a file")
			}
			if out, err := verify("--repair"); err != nil || !strings.Contains(out, "fixed mismatch "+hexes[0]) || !strings.Contains(out, "fixed orphan "+orphan) ||
				!strings.Contains(out, "fixed not-regular "+hexes[1]) {
				t.Fatalf("verify --repair: %v\n%s", err, out)
			}
			if b, err := os.ReadFile(path(hexes[1])); err != nil || string(b) != "# Blob 1\n\nBody 1.\n" {
				t.Fatalf("the FIFO's blob after repair: %q, %v", b, err)
			}
			if b, _ := os.ReadFile(path(hexes[0])); string(b) != "# Blob 0\n\nBody 0.\n" {
				t.Fatalf("repaired file holds %q", b)
			}
			if _, err := os.Stat(path(orphan)); err == nil {
				t.Fatal("the orphan is still there")
			}

			if err := os.RemoveAll(blobDir); err != nil {
				t.Fatal(err)
			}
			if out, stderr, err := runCLI(t, nil, nil, append([]string{"blobs", "rebuild"}, args...)...); err != nil || !strings.Contains(out, ": 5 files") {
				t.Fatalf("rebuild: %v\n%s%s", err, out, stderr)
			}
			if out, err := verify(); err != nil || !strings.Contains(out, "checked 5 files") {
				t.Fatalf("verify after rebuild: %v\n%s", err, out)
			}
		})
	}
}
