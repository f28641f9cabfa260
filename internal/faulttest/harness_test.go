package faulttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvFaults switches the fault and load tests on.
const EnvFaults = "REGISTRY_TEST_FAULTS"

// binary is the registry built once for this package (empty when the tests
// are switched off).
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(EnvFaults) != "1" {
		fmt.Fprintf(os.Stderr, "SKIPPING FAULT AND LOAD TESTS: set %s=1 (they restart the local PostgreSQL cluster; run them in their own `go test -p 1` invocation)\n", EnvFaults)
		os.Exit(m.Run()) // every test skips itself
	}
	dir, err := os.MkdirTemp("", "registry-faulttest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "registry")
	build := exec.Command("go", "build", "-o", binary, "github.com/agora-registry/registry/cmd/registry")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the registry:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireFaults skips a test unless the fault tests are switched on.
func requireFaults(t *testing.T) {
	t.Helper()
	if binary == "" {
		t.Skipf("fault/load test: set %s=1 to run it", EnvFaults)
	}
	if runtime.GOOS != "linux" {
		t.Skip("fault tests read /proc and drive pg_ctlcluster: Linux only")
	}
}

// serverArgs are the flags every test server gets: loopback only, open
// publishing and no rate limits (the load comes from one client address).
var serverArgs = []string{
	"serve", "--addr", "127.0.0.1:0", "--log-format", "json",
	"--open-publish", "--no-examples", "--rate-limit", "0", "--publish-rate-limit", "0",
}

// server is a running registry process.
type server struct {
	URL  string
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs bytes.Buffer
	done chan error
}

// startServer runs `registry serve` with the given extra flags and waits
// until it listens. The process is killed when the test ends.
func startServer(t *testing.T, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string{}, serverArgs...), args...)...)
	cmd.Env = os.Environ()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			s.mu.Lock()
			// Keep the log short: a load logs a line per request, and
			// only the successful ones are noise.
			if s.logs.Len() < 4<<20 && !bytes.Contains(line, []byte(`"msg":"request"`)) || bytes.Contains(line, []byte(`"status":5`)) {
				s.logs.Write(line)
				s.logs.WriteByte('\n')
			}
			s.mu.Unlock()
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(line, &rec) == nil && rec.Msg == "serving" {
				addr <- rec.Addr
			}
		}
		s.done <- cmd.Wait()
	}()
	select {
	case a := <-addr:
		s.URL = "http://" + a
	case err := <-s.done:
		t.Fatalf("server exited before listening (%v):\n%s", err, s.Logs())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("server did not start:\n%s", s.Logs())
	}
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(s.Logs(), 8000))
		}
	})
	return s
}

// kill sends SIGKILL (no chance to flush or close anything) and waits for
// the process to be gone. Safe to call twice.
func (s *server) kill() {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

func (s *server) Logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.logs.String()
}

func (s *server) pid() int { return s.cmd.Process.Pid }

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// waitReady polls /readyz until it answers 200 or the deadline passes.
func waitReady(ctx context.Context, c *client, base string) error {
	for {
		st, _, _, err := c.do(ctx, "GET", base+"/readyz", "", nil)
		if err == nil && st == 200 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not ready (last status %d, err %v): %w", st, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
