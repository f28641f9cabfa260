package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/archive"
	"github.com/agora-registry/registry/internal/config"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// Each command's help lists exactly the flags of its row in the option
// table (config.RegistryCommands), so docs/configuration.md, generated from
// the table, shows every flag of every command. A new command adds its row.
func TestHelpListsTheTablesFlags(t *testing.T) {
	tables := map[string][]config.Option{}
	for _, c := range config.RegistryCommands() {
		tables[c.Name] = c.Options
	}
	names := []string{"token create", "token list", "token revoke"}
	for n := range program.Commands {
		if n != "token" {
			names = append(names, n)
		}
	}
	for _, name := range names {
		code, out, errOut := runWith(t, nil, append(strings.Fields(name), "-h")...)
		if code != 0 {
			t.Errorf("registry %s -h: exit %d\n%s", name, code, errOut)
			continue
		}
		want := map[string]bool{}
		for _, o := range tables[name] {
			want["--"+o.Flag] = true
		}
		got := map[string]bool{}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "  --") {
				got[strings.Fields(line)[0]] = true
			}
		}
		for f := range got {
			if !want[f] {
				t.Errorf("registry %s -h lists %s, which its row of config.RegistryCommands lacks", name, f)
			}
		}
		for f := range want {
			if !got[f] {
				t.Errorf("registry %s -h does not list %s", name, f)
			}
		}
	}
}

// The table's import defaults are the archive package's.
func TestImportDefaultsAreTheArchives(t *testing.T) {
	var c config.Import
	if err := config.SetDefaults(c.Options()); err != nil {
		t.Fatal(err)
	}
	if c.MaxEntries != archive.DefaultMaxEntries || int64(c.MaxArchiveBytes) != archive.DefaultMaxArchiveBytes || c.Publisher != archive.ImportPublisher {
		t.Errorf("import defaults %+v differ from the archive package's", c)
	}
	var tc config.TokenCreate
	if err := config.SetDefaults(tc.Options()); err != nil || tc.Publisher != entity.DefaultPublisher {
		t.Errorf("token create --publisher default %q, want %q (%v)", tc.Publisher, entity.DefaultPublisher, err)
	}
}

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := runWith(t, nil, args...)
		if code != 0 || !strings.HasPrefix(out, "registry ") {
			t.Errorf("registry %v: exit %d, %q", args, code, out)
		}
	}
	if code, _, errOut := runWith(t, nil, "improt"); code != 2 || !strings.Contains(errOut, "did you mean import?") {
		t.Errorf("a mistyped command: exit %d, %s", code, errOut)
	}
}

// export refuses to write gzip bytes to a terminal.
func TestExportRefusesATerminal(t *testing.T) {
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	var errb strings.Builder
	env := &environment{Stdin: strings.NewReader(""), Stdout: tty, Stderr: &errb, Getenv: func(string) string { return "" }}
	if code := run(t.Context(), env, []string{"export", "--data-dir", t.TempDir()}); code != 2 || !strings.Contains(errb.String(), "standard output is a terminal") {
		t.Errorf("export to a terminal: exit %d, stderr %q", code, errb.String())
	}
}

// A second live token of one name is refused; a revoked one's name is free.
func TestDuplicateTokenNamesAreRefused(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := runWith(t, nil, "token", "create", "--name", "ci", "--data-dir", dir); code != 0 {
		t.Fatalf("first token: exit %d\n%s", code, errOut)
	}
	code, _, errOut := runWith(t, nil, "token", "create", "--name", "ci", "--data-dir", dir)
	if code != 1 || !strings.Contains(errOut, `token 1 is already named "ci"`) {
		t.Fatalf("second token of one name: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runWith(t, nil, "token", "revoke", "1", "--data-dir", dir); code != 0 {
		t.Fatalf("revoke: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runWith(t, nil, "token", "create", "--name", "ci", "--data-dir", dir); code != 0 {
		t.Fatalf("a revoked token's name: exit %d\n%s", code, errOut)
	}
}

// registry withdraw HASH --reason … withdraws with an admin token; without
// a token it says where one goes.
func TestWithdrawCommand(t *testing.T) {
	dataDir := t.TempDir()
	db := "--data-dir=" + dataDir
	admin, stderr, err := runCLI(t, nil, nil, "token", "create", "--name", "ops", "--scope", "admin,publish", db)
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, stderr)
	}
	token := "REGISTRY_TOKEN=" + strings.TrimSpace(admin)
	srv := startServer(t, db, "--no-examples")
	defer stopServer(t, srv)
	doc := filepath.Join(t.TempDir(), "doc.md")
	writeDoc(t, doc, "---\nname: Withdrawn Soon\ndescription: d\n---\n# W\n")
	out, stderr, err := runCLI(t, []string{token}, nil, "publish", "--server", srv.URL, doc)
	if err != nil {
		t.Fatalf("publish: %v\n%s", err, stderr)
	}
	hex := strings.Fields(out)[1]
	if _, err := protocol.ParseDigest(hex); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runCLI(t, []string{"REGISTRY_TOKEN="}, nil, "withdraw", hex, "--server", srv.URL, "--reason", "test")
	if exitCode(err) != 1 || !strings.Contains(stderr, "set REGISTRY_TOKEN") {
		t.Errorf("withdraw without a token: exit %d\n%s", exitCode(err), stderr)
	}
	if _, stderr, err = runCLI(t, []string{token}, nil, "withdraw", hex, "--server", srv.URL); exitCode(err) != 2 || !strings.Contains(stderr, "--reason") {
		t.Errorf("withdraw without a reason: exit %d\n%s", exitCode(err), stderr)
	}
	out, stderr, err = runCLI(t, []string{token}, nil, "withdraw", hex, "--server", srv.URL, "--reason", "superseded by v2")
	if err != nil || out != "withdrawn "+hex+"\n" {
		t.Fatalf("withdraw: %v %q\n%s", err, out, stderr)
	}
	_, stderr, err = runCLI(t, nil, nil, "get", "--server", srv.URL, hex)
	if exitCode(err) != 1 || !strings.Contains(stderr, "withdrawn") {
		t.Errorf("get after withdraw: exit %d\n%s", exitCode(err), stderr)
	}
}

// registry publish --dry-run prints what would be stored and stores
// nothing; a document the SDK cannot read is refused without --force.
func TestPublishDryRunAndForce(t *testing.T) {
	dataDir := t.TempDir()
	db := "--data-dir=" + dataDir
	tok, stderr, err := runCLI(t, nil, nil, "token", "create", "--name", "ci", db)
	if err != nil {
		t.Fatalf("token create: %v\n%s", err, stderr)
	}
	token := "REGISTRY_TOKEN=" + strings.TrimSpace(tok)
	srv := startServer(t, db, "--no-examples")
	defer stopServer(t, srv)
	doc := filepath.Join(t.TempDir(), "doc.md")
	writeDoc(t, doc, "---\nname: Dry Run\ndescription: d\n---\n# D\n")
	out, stderr, err := runCLI(t, []string{token}, nil, "publish", "--dry-run", "--server", srv.URL, doc)
	if err != nil || !strings.HasPrefix(out, "would-create ") || !strings.HasSuffix(out, " Dry Run\n") {
		t.Fatalf("dry run: %v %q\n%s", err, out, stderr)
	}
	hex := strings.Fields(out)[1]
	if _, stderr, err := runCLI(t, nil, nil, "get", "--server", srv.URL, hex); exitCode(err) != 1 {
		t.Fatalf("a dry run stored the document: get exit %d\n%s", exitCode(err), stderr)
	}
	if out, stderr, err := runCLI(t, []string{token}, nil, "publish", "--server", srv.URL, doc); err != nil || !strings.HasPrefix(out, "created "+hex) {
		t.Fatalf("publish: %v %q\n%s", err, out, stderr)
	}
	if out, _, err := runCLI(t, []string{token}, nil, "publish", "--dry-run", "--server", srv.URL, doc); err != nil || !strings.HasPrefix(out, "would-exist "+hex) {
		t.Fatalf("dry run of a stored document: %v %q", err, out)
	}
	// get takes the 12-digit prefix the cards show, and a too short one
	// says how many digits a prefix needs.
	if out, stderr, err := runCLI(t, nil, nil, "get", "--server", srv.URL, hex[:12]); err != nil || out != "---\nname: Dry Run\ndescription: d\n---\n# D\n" {
		t.Fatalf("get by prefix: %v %q\n%s", err, out, stderr)
	}
	if _, stderr, err := runCLI(t, nil, nil, "get", "--server", srv.URL, hex[:6]); exitCode(err) != 1 || !strings.Contains(stderr, "8 to 40") {
		t.Fatalf("get by a 6-digit prefix: exit %d\n%s", exitCode(err), stderr)
	}

	plain := filepath.Join(t.TempDir(), "plain.md")
	writeDoc(t, plain, "# No front matter\n")
	out, stderr, err = runCLI(t, []string{token}, nil, "publish", "--dry-run", "--server", srv.URL, plain)
	if err != nil || !strings.HasPrefix(out, "would-create ") || !strings.Contains(stderr, "without --force") || !strings.Contains(stderr, "no_front_matter") {
		t.Fatalf("dry run of an SDK-unreadable document: %v %q\n%s", err, out, stderr)
	}
	plainHex := strings.Fields(out)[1]
	if _, stderr, err := runCLI(t, []string{token}, nil, "publish", "--server", srv.URL, plain); exitCode(err) != 1 || !strings.Contains(stderr, "--force") {
		t.Fatalf("publish without --force: exit %d\n%s", exitCode(err), stderr)
	}
	if _, _, err := runCLI(t, nil, nil, "get", "--server", srv.URL, plainHex); exitCode(err) != 1 {
		t.Fatal("a refused publish stored the document")
	}
	if out, stderr, err := runCLI(t, []string{token}, nil, "publish", "--force", "--server", srv.URL, plain); err != nil || !strings.HasPrefix(out, "created "+plainHex) {
		t.Fatalf("publish --force: %v %q\n%s", err, out, stderr)
	}
}
