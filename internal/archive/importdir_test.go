package archive_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/archive"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestImportDirectoryRecursively(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.md"), "---\nname: A\ndescription: first\n---\nA\n")
	writeFile(t, filepath.Join(dir, "nested", "deeper", "B.MD"), "# B\n\nsecond\n")
	writeFile(t, filepath.Join(dir, "nested", "copy-of-a.md"), "---\nname: A\ndescription: first\n---\nA\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "not a protocol")
	writeFile(t, filepath.Join(dir, "bad.md"), "# bad \xfe\n")
	writeFile(t, filepath.Join(dir, "empty.md"), "")
	writeFile(t, filepath.Join(dir, "big.md"), strings.Repeat("b", 5000))
	st := openSQLite(t)
	lim := archive.Limits{MaxDocumentBytes: 4096}
	rep, err := archive.ImportPath(context.Background(), st, dir, lim)
	if err != nil {
		t.Fatal(err)
	}
	if rep.New != 2 || rep.Existing != 1 || rep.Failed != 3 {
		t.Fatalf("report %+v", rep)
	}
	got := codes(rep)
	for file, code := range map[string]string{"bad.md": "invalid_utf8", "empty.md": "empty_document", "big.md": "document_too_large"} {
		if got[filepath.Join(dir, file)] != code {
			t.Errorf("%s: %q, want %q", file, got[filepath.Join(dir, file)], code)
		}
	}
	for d, e := range snapshot(t, st) {
		if e.Origin != archive.ImportOrigin {
			t.Errorf("%s origin %q", d.Hex(), e.Origin)
		}
	}

	rep, err = archive.ImportPath(context.Background(), st, dir, lim)
	if err != nil || rep.New != 0 || rep.Existing != 3 {
		t.Fatalf("re-import: %+v %v", rep, err)
	}
}

func TestImportDirectoryFileLimit(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"1", "2", "3", "4"} {
		writeFile(t, filepath.Join(dir, n+".md"), "# "+n+"\n")
	}
	_, err := archive.ImportDir(context.Background(), openSQLite(t), dir, archive.Limits{MaxEntries: 3})
	if ae := apperr.As(err); ae == nil || ae.Code != "archive_too_large" {
		t.Fatalf("err = %v", err)
	}
}

func TestImportMissingPath(t *testing.T) {
	if _, err := archive.ImportPath(context.Background(), openSQLite(t), filepath.Join(t.TempDir(), "nope"), archive.Limits{}); err == nil {
		t.Fatal("no error for a missing path")
	}
}
