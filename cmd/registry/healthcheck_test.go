package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// runWith runs a subcommand in-process with the given environment.
func runWith(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &environment{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }}
	return run(context.Background(), env, args), out.String(), errb.String()
}

func TestHealthcheckCommand(t *testing.T) {
	status := http.StatusOK
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	defer ts.Close()
	addr := strings.TrimPrefix(ts.URL, "http://")
	port := addr[strings.LastIndex(addr, ":"):]

	if code, _, stderr := runWith(t, map[string]string{"REGISTRY_ADDR": port}, "healthcheck"); code != 0 {
		t.Fatalf("healthy server via REGISTRY_ADDR=%s: exit %d, %s", port, code, stderr)
	}
	// The probe reads only the address: a bad value of an option it does not
	// use must not fail the container's health.
	if code, _, stderr := runWith(t, map[string]string{"REGISTRY_ADDR": port, "REGISTRY_CACHE_TTL": "5"}, "healthcheck"); code != 0 {
		t.Fatalf("healthy server with an unrelated bad variable: exit %d, %s", code, stderr)
	}
	if code, _, stderr := runWith(t, nil, "healthcheck", "--addr", "0.0.0.0"+port); code != 0 {
		t.Fatalf("healthy server via --addr: exit %d, %s", code, stderr)
	}
	status = http.StatusServiceUnavailable
	if code, _, _ := runWith(t, map[string]string{"REGISTRY_ADDR": port}, "healthcheck"); code != 1 {
		t.Fatalf("unhealthy server: exit %d, want 1", code)
	}
	ts.Close()
	if code, _, _ := runWith(t, map[string]string{"REGISTRY_ADDR": port}, "healthcheck"); code != 1 {
		t.Fatalf("no server: exit %d, want 1", code)
	}
}

func TestVersionCommand(t *testing.T) {
	code, out, _ := runWith(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "registry ") || len(strings.TrimSpace(out)) <= len("registry") {
		t.Fatalf("version: exit %d, %q", code, out)
	}
	if code, _, _ := runWith(t, nil, "version", "extra"); code != 2 {
		t.Fatalf("version with an argument: exit %d, want 2", code)
	}
}
