package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/testing/registryproc"
)

// binary is the registry built once for the end-to-end tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "registry-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if binary, err = registryproc.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runCLI runs the registry binary to completion.
func runCLI(t *testing.T, env []string, stdin []byte, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	err = cmd.Run()
	return out.String(), errb.String(), err
}

// startServer runs `registry serve` on a free loopback port and waits
// until it listens.
func startServer(t *testing.T, args ...string) *registryproc.Process {
	t.Helper()
	return registryproc.Start(t, binary, args, registryproc.Options{})
}

// stopServer sends SIGTERM and expects a clean exit.
func stopServer(t *testing.T, s *registryproc.Process) {
	t.Helper()
	if err := s.Stop(); err != nil {
		t.Fatalf("server: %v\n%s", err, s.Logs())
	}
}

// call makes one request and returns status, headers and body.
func call(t *testing.T, method, url string, body io.Reader, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, b
}

// problem is the API's error shape.
type problem struct {
	Type, Title, Code, Detail, RequestID string
	Status                               int
}

// wantProblem checks an error answer's status, code and shape.
func wantProblem(t *testing.T, what string, status int, h http.Header, body []byte, wantStatus int, wantCode string) {
	t.Helper()
	if status != wantStatus {
		t.Errorf("%s: status %d, want %d (%s)", what, status, wantStatus, body)
		return
	}
	if ct := h.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("%s: Content-Type %q", what, ct)
	}
	var p problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Errorf("%s: body is not a problem: %v: %s", what, err, body)
		return
	}
	if p.Status != wantStatus || p.Code != wantCode || p.Type != "https://agora-registry.dev/errors/"+wantCode ||
		p.Detail == "" || p.RequestID == "" || p.RequestID != h.Get("X-Request-ID") {
		t.Errorf("%s: problem %+v, want status %d code %s", what, p, wantStatus, wantCode)
	}
}
