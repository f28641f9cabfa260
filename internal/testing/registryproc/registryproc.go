// Package registryproc builds the registry binary and runs it as a real
// process on a loopback port, for end-to-end, fault and load tests.
package registryproc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Build compiles ./cmd/registry into dir and returns the binary's path.
func Build(dir string) (string, error) {
	binary := filepath.Join(dir, "registry")
	build := exec.Command("go", "build", "-o", binary, "github.com/agora-registry/registry/cmd/registry")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building the registry: %w", err)
	}
	return binary, nil
}

// startTimeout bounds how long a server may take to listen.
const startTimeout = 30 * time.Second

// Options tunes a started process.
type Options struct {
	// Keep decides which log lines are kept for Logs; nil keeps all. A load
	// test keeps its memory flat by dropping per-request lines.
	Keep func(line []byte) bool
}

// Process is a running `registry serve`.
type Process struct {
	URL  string // http://127.0.0.1:PORT
	cmd  *exec.Cmd
	keep func([]byte) bool
	mu   sync.Mutex
	logs bytes.Buffer
	done chan error
}

// Start runs `binary serve --addr 127.0.0.1:0 --log-format json ARGS...`
// and waits until it logs the address it serves on. The process is killed
// when the test ends, and its log is shown if the test failed.
func Start(t testing.TB, binary string, args []string, opts Options) *Process {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}, args...)...)
	cmd.Env = os.Environ()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Process{cmd: cmd, keep: opts.Keep, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go p.readLog(bufio.NewScanner(stderr), addr)
	select {
	case a := <-addr:
		p.URL = "http://" + a
	case err := <-p.done:
		t.Fatalf("server exited before listening (%v):\n%s", err, p.Logs())
	case <-time.After(startTimeout):
		p.Kill()
		t.Fatalf("server did not start within %s:\n%s", startTimeout, p.Logs())
	}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(p.Logs(), 8000))
		}
	})
	return p
}

func (p *Process) readLog(sc *bufio.Scanner, addr chan<- string) {
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		p.mu.Lock()
		if p.keep == nil || p.keep(line) {
			p.logs.Write(line)
			p.logs.WriteByte('\n')
		}
		p.mu.Unlock()
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(line, &rec) == nil && rec.Msg == "serving" {
			addr <- rec.Addr
		}
	}
	p.done <- p.cmd.Wait()
}

// Logs returns the kept log lines.
func (p *Process) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// PID is the process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Kill sends SIGKILL (no chance to flush or close anything) and waits for
// the process to be gone. Safe to call twice.
func (p *Process) Kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGTERM and waits for the exit; an unclean exit is an error.
func (p *Process) Stop() error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-p.done:
		if err != nil {
			return fmt.Errorf("exit after SIGTERM: %w", err)
		}
		return nil
	case <-time.After(startTimeout):
		return fmt.Errorf("did not stop within %s of SIGTERM", startTimeout)
	}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
