package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportRefusesAPublisherWithoutAnAccount: a mistyped --publisher is
// refused before anything is written, naming the fix; an account that
// exists, and the default, are accepted.
func TestImportRefusesAPublisherWithoutAnAccount(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.md"), []byte("---\nname: One\ndescription: one document\n---\n# One\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runCLI(t, nil, nil, "import", "--data-dir", data, "--publisher", "acme", dir)
	if exitCode(err) != 1 || !strings.Contains(stderr, `--publisher "acme": no publisher account has this name`) || !strings.Contains(stderr, "registry publisher create acme") {
		t.Fatalf("import --publisher acme without the account: exit %d, stderr:\n%s", exitCode(err), stderr)
	}
	if _, stderr, _ := runCLI(t, nil, nil, "export", "--data-dir", data, "-o", filepath.Join(t.TempDir(), "x.tar.gz")); !strings.Contains(stderr, "exported 0 documents") {
		t.Fatalf("the refused import wrote something: %s", stderr)
	}
	if _, stderr, err := runCLI(t, nil, nil, "publisher", "create", "acme", "--data-dir", data); err != nil {
		t.Fatalf("publisher create: %v\n%s", err, stderr)
	}
	if stdout, stderr, err := runCLI(t, nil, nil, "import", "--data-dir", data, "--publisher", "acme", dir); err != nil || !strings.Contains(stdout, "1 new") {
		t.Fatalf("import --publisher acme with the account: %v\n%s%s", err, stdout, stderr)
	}
}

// TestCountsAgreeWithTheirNouns: one document is "1 document".
func TestCountsAgreeWithTheirNouns(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.md"), []byte("---\nname: One\ndescription: one document\n---\n# One\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := runCLI(t, nil, nil, "import", "--data-dir", data, dir); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr)
	}
	_, stderr, err := runCLI(t, nil, nil, "export", "--data-dir", data, "-o", filepath.Join(t.TempDir(), "x.tar.gz"))
	if err != nil || !strings.Contains(stderr, "exported 1 document and ") {
		t.Errorf("export of one document: %v, stderr %q", err, stderr)
	}
	_, stderr, err = runCLI(t, []string{"REGISTRY_TOKEN=x"}, nil, "publish", "--server", "http://127.0.0.1:1", filepath.Join(dir, "one.md"))
	if exitCode(err) != 1 || !strings.Contains(stderr, "1 of 1 document not published") {
		t.Errorf("publish to nowhere: exit %d, stderr %q", exitCode(err), stderr)
	}
}
