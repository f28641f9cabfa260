// Package witnesstest runs the real litewitness (filippo.io/torchwood, a
// c2sp.org/tlog-witness witness) for tests: a fresh Ed25519 key in a
// dedicated ssh-agent, a temporary database, a loopback port, and a log
// registered with witnessctl. Without litewitness the test skips, or
// fails under REGISTRY_TEST_REQUIRE_WITNESS=1 (CI sets it: go install
// filippo.io/torchwood/cmd/litewitness@v0.6.1 and witnessctl).
package witnesstest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvRequireWitness makes a missing litewitness a failure, not a skip.
const EnvRequireWitness = "REGISTRY_TEST_REQUIRE_WITNESS"

// Witness is a running litewitness.
type Witness struct {
	// VerifierKey is its cosignature verifier key; URL its base URL.
	VerifierKey string
	URL         string
	// DB is its database (witnessctl -db).
	DB  string
	dir string
}

// Tool finds litewitness or witnessctl: on PATH, else where go install
// puts it; missing, the test skips (fails under EnvRequireWitness).
func Tool(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	dir := os.Getenv("GOBIN")
	if dir == "" {
		gopath := os.Getenv("GOPATH")
		if gopath == "" {
			home, _ := os.UserHomeDir()
			gopath = filepath.Join(home, "go")
		}
		dir = filepath.Join(gopath, "bin")
	}
	if p := filepath.Join(dir, name); fileExists(p) {
		return p
	}
	msg := name + " not found (go install filippo.io/torchwood/cmd/litewitness@v0.6.1 filippo.io/torchwood/cmd/witnessctl@v0.6.1)"
	if os.Getenv(EnvRequireWitness) == "1" {
		t.Fatal(msg + "; " + EnvRequireWitness + "=1 requires it")
	}
	t.Skip("SKIPPING: " + msg)
	return ""
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Start runs litewitness named name that knows the log origin and its
// verifier key logKey. Everything stops when the test ends.
func Start(t testing.TB, name, origin, logKey string) *Witness {
	t.Helper()
	lw, ctl := Tool(t, "litewitness"), Tool(t, "witnessctl")
	for _, tool := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s (openssh-client) is needed to run litewitness: %v", tool, err)
		}
	}
	// A short directory: a unix socket path has a ~100-byte limit.
	dir, err := os.MkdirTemp("", "wit")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	w := &Witness{DB: filepath.Join(dir, "witness.db"), dir: dir}

	keyFile, sock := filepath.Join(dir, "key"), filepath.Join(dir, "agent.sock")
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "witnesstest", "-f", keyFile)
	fp := strings.Fields(run(t, "ssh-keygen", "-l", "-E", "sha256", "-f", keyFile+".pub"))
	if len(fp) < 2 || !strings.HasPrefix(fp[1], "SHA256:") {
		t.Fatalf("ssh-keygen -l printed %q", fp)
	}
	agent := start(t, exec.Command("ssh-agent", "-D", "-a", sock))
	waitFor(t, "ssh-agent's socket", func() bool {
		c, err := net.Dial("unix", sock)
		ok := err == nil
		if ok {
			c.Close()
		}
		return ok
	}, agent)
	add := exec.Command("ssh-add", keyFile)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v\n%s", err, out)
	}

	run(t, ctl, "add-log", "-db", w.DB, "-origin", origin)
	run(t, ctl, "add-key", "-db", w.DB, "-origin", origin, "-key", logKey)

	addr := freeAddr(t)
	cmd := exec.Command(lw, "-name", name, "-db", w.DB, "-ssh-agent", sock, "-key", fp[1], "-listen", addr)
	var out syncBuffer
	cmd.Stderr = &out
	p := start(t, cmd)
	waitFor(t, "litewitness's verifier key", func() bool {
		_, v, ok := strings.Cut(out.String(), " vkey=")
		if ok && strings.Contains(v, "\n") {
			w.VerifierKey = strings.Trim(strings.Fields(v)[0], `"`)
		}
		return w.VerifierKey != ""
	}, p)
	waitFor(t, "litewitness to listen", func() bool {
		c, err := net.Dial("tcp", addr)
		ok := err == nil
		if ok {
			c.Close()
		}
		return ok
	}, p)
	w.URL = "http://" + addr
	return w
}

// Size is the tree size the witness holds for origin (witnessctl list-logs).
func (w *Witness) Size(t testing.TB, origin string) string {
	t.Helper()
	out := run(t, Tool(t, "witnessctl"), "list-logs", "-db", w.DB)
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, fmt.Sprintf("%q", origin)) {
			_, rest, _ := strings.Cut(line, `"size":`)
			n, _, _ := strings.Cut(rest, ",")
			return n
		}
	}
	t.Fatalf("witnessctl list-logs does not list %s:\n%s", origin, out)
	return ""
}

// syncBuffer is a process's output, read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// start starts cmd and stops it (SIGKILL of this process only) when the
// test ends; the returned channel closes when it exits.
func start(t testing.TB, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return done
}

func waitFor(t testing.TB, what string, ok func() bool, exited <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		select {
		case <-exited:
			t.Fatalf("waiting for %s: the process exited", what)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: 30s passed", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
