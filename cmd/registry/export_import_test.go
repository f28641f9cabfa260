package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func writeDoc(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestExportImportCommands drives the real binary: a directory into one
// store, an archive out of it, into a second store (twice: idempotent),
// and — when PostgreSQL is available — through PostgreSQL and back.
func TestExportImportCommands(t *testing.T) {
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	writeDoc(t, filepath.Join(docs, "weather.md"), "---\nname: Weather\ndescription: Forecasts.\ntags: [weather]\n---\n\nbody\n")
	writeDoc(t, filepath.Join(docs, "nested", "plain.md"), "# Plain\n\nNo front matter.\n")
	writeDoc(t, filepath.Join(docs, "nested", "crlf.md"), "# CRLF\r\n\r\nkept as is\r\n")
	writeDoc(t, filepath.Join(docs, "broken.md"), "# bad \xff\n")
	dataA, dataB, dataC := filepath.Join(work, "a"), filepath.Join(work, "b"), filepath.Join(work, "c")

	out, errOut, err := runCLI(t, nil, nil, "import", "--data-dir", dataA, docs)
	if exitCode(err) != 1 || !strings.Contains(out, "3 new, 0 existing, 0 withdrawn, 1 failed") ||
		!strings.Contains(errOut, "broken.md") || !strings.Contains(errOut, "UTF-8") {
		t.Fatalf("directory import: exit %v\nstdout %s\nstderr %s", err, out, errOut)
	}

	arc := filepath.Join(work, "registry.tar.gz")
	if _, errOut, err := runCLI(t, nil, nil, "export", "--data-dir", dataA, "-o", arc); err != nil || !strings.Contains(errOut, "exported 3 documents") {
		t.Fatalf("export: %v %s", err, errOut)
	}

	for i, want := range []string{"3 new, 0 existing", "0 new, 3 existing"} {
		out, errOut, err := runCLI(t, nil, nil, "import", "--data-dir", dataB, arc)
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("archive import %d: %v\n%s%s", i+1, err, out, errOut)
		}
	}

	// Export to standard output works too.
	stdoutArc, _, err := runCLI(t, nil, nil, "export", "--data-dir", dataB)
	if err != nil {
		t.Fatal(err)
	}
	arc2 := filepath.Join(work, "again.tar.gz")
	if err := os.WriteFile(arc2, []byte(stdoutArc), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := runCLI(t, nil, nil, "import", "--data-dir", dataC, arc2); err != nil || !strings.Contains(out, "3 new") {
		t.Fatalf("import of stdout export: %v %s %s", err, out, errOut)
	}

	if _, _, err := runCLI(t, nil, nil, "import", "--data-dir", dataC); exitCode(err) != 2 {
		t.Fatalf("import without a path: %v, want usage exit 2", err)
	}
	if _, errOut, err := runCLI(t, nil, nil, "import", "--data-dir", dataC, filepath.Join(work, "missing.tar.gz")); exitCode(err) != 1 || !strings.Contains(errOut, "missing.tar.gz") {
		t.Fatalf("missing archive: %v %s", err, errOut)
	}
}

func TestExportImportThroughPostgres(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	writeDoc(t, filepath.Join(docs, "one.md"), "---\nname: One\ndescription: First.\n---\n1\n")
	writeDoc(t, filepath.Join(docs, "two.md"), "# Two\n\nSecond.\n")
	sqliteA, sqliteB := filepath.Join(work, "a"), filepath.Join(work, "b")
	arc1, arc2 := filepath.Join(work, "1.tar.gz"), filepath.Join(work, "2.tar.gz")

	steps := [][]string{
		{"import", "--data-dir", sqliteA, docs},
		{"export", "--data-dir", sqliteA, "-o", arc1},
		{"import", "--database-url", dsn, arc1},
		{"export", "--database-url", dsn, "-o", arc2},
		{"import", "--data-dir", sqliteB, arc2},
	}
	for _, args := range steps {
		if out, errOut, err := runCLI(t, nil, nil, args...); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, errOut)
		}
	}
	// Both documents survived the trip through PostgreSQL under the same digests.
	out, _, err := runCLI(t, nil, nil, "import", "--data-dir", sqliteB, arc1)
	if err != nil || !strings.Contains(out, "0 new, 2 existing") {
		t.Fatalf("re-import after the round trip: %v %s", err, out)
	}
}

// TestImportTrustFlags: --publisher names the publisher of what an import
// creates, --keep-publishers keeps the archive's, and an archive's
// withdrawal reaches a document stored live only with --apply-withdrawals.
func TestImportTrustFlags(t *testing.T) {
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	writeDoc(t, filepath.Join(docs, "one.md"), "---\nname: One\ndescription: First.\n---\n1\n")
	dataA, dataB, dataC := filepath.Join(work, "a"), filepath.Join(work, "b"), filepath.Join(work, "c")
	arc := filepath.Join(work, "a.tar.gz")
	for _, args := range [][]string{
		{"publisher", "create", "acme", "--data-dir", dataA},
		{"import", "--data-dir", dataA, "--publisher", "acme", docs},
		{"import", "--data-dir", dataC, docs},
		{"export", "--data-dir", dataA, "-o", arc},
		{"import", "--data-dir", dataB, "--keep-publishers", arc},
	} {
		if out, errOut, err := runCLI(t, nil, nil, args...); err != nil {
			t.Fatalf("%v: %v\n%s%s", args, err, out, errOut)
		}
	}
	publisherIn := func(dataDir string) string {
		t.Helper()
		st, err := sqlite.Open(context.Background(), filepath.Join(dataDir, sqliteFile))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		page, err := st.Search(context.Background(), store.Query{})
		if err != nil || len(page.Entries) != 1 {
			t.Fatalf("%s: %v %v", dataDir, page.Entries, err)
		}
		return page.Entries[0].Publisher
	}
	if a, b, c := publisherIn(dataA), publisherIn(dataB), publisherIn(dataC); a != "acme" || b != "acme" || c != "import" {
		t.Fatalf("publishers: --publisher %q, --keep-publishers %q, default %q", a, b, c)
	}

	st, err := sqlite.Open(context.Background(), filepath.Join(dataA, sqliteFile))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := st.Search(context.Background(), store.Query{})
	if err := st.Withdraw(context.Background(), page.Entries[0].Digest, "retired"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, errOut, err := runCLI(t, nil, nil, "export", "--data-dir", dataA, "-o", arc); err != nil {
		t.Fatalf("export: %v %s", err, errOut)
	}
	out, errOut, err := runCLI(t, nil, nil, "import", "--data-dir", dataC, arc)
	if err != nil || !strings.Contains(out, "0 withdrawn, 1 withdrawal not applied") || !strings.Contains(errOut, "--apply-withdrawals") {
		t.Fatalf("import over a live document: %v\n%s%s", err, out, errOut)
	}
	publisherIn(dataC) // still listed
	out, errOut, err = runCLI(t, nil, nil, "import", "--data-dir", dataC, "--apply-withdrawals", arc)
	if err != nil || !strings.Contains(out, "1 withdrawn") {
		t.Fatalf("import --apply-withdrawals: %v\n%s%s", err, out, errOut)
	}
}

// TestImportKeepLifecycle: `registry export` carries a deprecation;
// `registry import` restores it only with --keep-lifecycle, and says so.
func TestImportKeepLifecycle(t *testing.T) {
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	writeDoc(t, filepath.Join(docs, "one.md"), "---\nname: One\ndescription: First.\n---\n1\n")
	writeDoc(t, filepath.Join(docs, "two.md"), "---\nname: Two\ndescription: Second.\n---\n2\n")
	src, plain, trusted := filepath.Join(work, "src"), filepath.Join(work, "plain"), filepath.Join(work, "trusted")
	arc := filepath.Join(work, "src.tar.gz")
	if _, errOut, err := runCLI(t, nil, nil, "import", "--data-dir", src, docs); err != nil {
		t.Fatalf("import: %v %s", err, errOut)
	}
	one, two := mustHash(t, "---\nname: One\ndescription: First.\n---\n1\n"), mustHash(t, "---\nname: Two\ndescription: Second.\n---\n2\n")
	withStore := func(dataDir string, fn func(st *sqlite.Store)) {
		t.Helper()
		st, err := sqlite.Open(context.Background(), filepath.Join(dataDir, sqliteFile))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		fn(st)
	}
	withStore(src, func(st *sqlite.Store) {
		if _, err := st.SetStatus(context.Background(), one, store.StatusChange{Status: entity.StatusDeprecated, Message: "use two", Replacement: &two, Actor: "import"}); err != nil {
			t.Fatal(err)
		}
	})
	if _, errOut, err := runCLI(t, nil, nil, "export", "--data-dir", src, "-o", arc); err != nil {
		t.Fatalf("export: %v %s", err, errOut)
	}
	statusIn := func(dataDir string) (string, int) {
		t.Helper()
		var (
			status string
			events int
		)
		withStore(dataDir, func(st *sqlite.Store) {
			e, err := st.Get(context.Background(), one, false)
			h, herr := st.History(context.Background(), one)
			if err != nil || herr != nil {
				t.Fatal(err, herr)
			}
			status, events = string(e.Status())+" "+e.Lifecycle.Message, len(h)
		})
		return status, events
	}
	out, errOut, err := runCLI(t, nil, nil, "import", "--data-dir", plain, arc)
	if err != nil || strings.Contains(out, "restored") || !strings.Contains(errOut, "--keep-lifecycle") {
		t.Fatalf("import without --keep-lifecycle: %v\n%s%s", err, out, errOut)
	}
	if s, n := statusIn(plain); s != "active " || n != 0 {
		t.Fatalf("without --keep-lifecycle: %q, %d events", s, n)
	}
	out, errOut, err = runCLI(t, nil, nil, "import", "--data-dir", trusted, "--keep-lifecycle", arc)
	if err != nil || !strings.Contains(out, "1 status restored") {
		t.Fatalf("import --keep-lifecycle: %v\n%s%s", err, out, errOut)
	}
	if s, n := statusIn(trusted); s != "deprecated use two" || n != 1 {
		t.Fatalf("with --keep-lifecycle: %q, %d events", s, n)
	}
}

func mustHash(t *testing.T, s string) protocol.Digest {
	t.Helper()
	sums, err := protocol.Hash([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return sums.SHA1
}

// TestExportReadsOnlyAnExistingRegistry: export never creates or migrates
// the store it reads (a wrong --data-dir or database URL is refused), and
// an empty registry's export says so.
func TestExportReadsOnlyAnExistingRegistry(t *testing.T) {
	missing := t.TempDir() + "/nowhere"
	code, _, errOut := runWith(t, nil, "export", "-o", t.TempDir()+"/x.tar.gz", "--data-dir", missing)
	if code == 0 || !strings.Contains(errOut, "no registry database at") {
		t.Errorf("export of a missing data dir: %d %s", code, errOut)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("export created the data directory it was to read")
	}
	empty := t.TempDir()
	if code, _, errOut := runWith(t, nil, "token", "list", "--data-dir", empty); code != 0 { // makes an empty registry
		t.Fatalf("token list: %d %s", code, errOut)
	}
	code, _, errOut = runWith(t, nil, "export", "-o", t.TempDir()+"/x.tar.gz", "--data-dir", empty)
	if code != 0 || !strings.Contains(errOut, "warning: the registry is empty") {
		t.Errorf("export of an empty registry: %d %s", code, errOut)
	}
}
