package agent

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/protocol"
)

// syncBuffer is a log sink the agent's goroutines may write to while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startRegistryWithPublisher runs the real registry as a process with a
// publisher account "acme" made by the CLI, returning its URL and a
// publish token of acme.
func startRegistryWithPublisher(t *testing.T) (string, string) {
	bin := buildBinary(t, "./cmd/registry")
	data := filepath.Join(t.TempDir(), "data")
	if out, err := exec.Command(bin, "publisher", "create", "acme", "--data-dir", data).CombinedOutput(); err != nil {
		t.Fatalf("publisher create: %v\n%s", err, out)
	}
	tok, err := exec.Command(bin, "token", "create", "--name", "acme-ci", "--publisher", "acme", "--data-dir", data).Output()
	if err != nil {
		t.Fatalf("token create: %v", err)
	}
	addr := freeAddr(t)
	base := "http://" + addr
	startProcess(t, base+"/healthz", bin, "serve", "--addr", addr, "--data-dir", data, "--no-examples")
	return base, strings.TrimSpace(string(tok))
}

// TestDeprecatedProtocolEndToEnd: acme deprecates Weather v1 for v2 in the
// real registry. Bob, resolving v1 through the registry, logs the message
// and the replacement; "agent send --protocol v1" (a process) uses v2 when
// the target lists v2, says so on stderr, and keeps v1 when the target
// lists only v1.
func TestDeprecatedProtocolEndToEnd(t *testing.T) {
	registry, token := startRegistryWithPublisher(t)
	ctx := context.Background()
	v1, d1 := weatherDoc(t)
	v2 := append(append([]byte(nil), v1...), "\nVersion 2: the same fields, documented again.\n"...)
	sums, _ := protocol.Hash(v2)
	d2 := sums.SHA1

	acme := registryClient(t, registry)
	acme.Token = token
	for _, doc := range [][]byte{v1, v2} {
		if _, err := acme.Publish(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := acme.SetStatus(ctx, d1, "deprecated", "use v2, it is documented better", d2.Hex()); err != nil {
		t.Fatal(err)
	}

	// Bob knows v1 by hash only and fetches it through the registry.
	var logs syncBuffer
	cfg := weatherConfig(d1)
	cfg.Registries, cfg.CacheDir = []string{registry}, t.TempDir()
	bob, err := New(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	bobSrv := httptest.NewServer(bob.Handler())
	t.Cleanup(bobSrv.Close)
	if a := call(t, "POST", bobSrv.URL, tx(d1.Hex(), []string{}, londonQuery)); a.Status != StatusSuccess || a.Body != londonAnswer {
		t.Fatalf("Bob's answer to v1: %+v", a)
	}
	if l := logs.String(); !strings.Contains(l, "protocol deprecated") || !strings.Contains(l, "use v2, it is documented better") ||
		!strings.Contains(l, "replacement="+d2.Hex()) || !strings.Contains(l, "hash="+d1.Hex()) {
		t.Fatalf("Bob's log says nothing of the deprecation:\n%s", l)
	}

	agentBin := buildBinary(t, "./cmd/agent")
	send := func(target string) (string, string) {
		t.Helper()
		cmd := exec.Command(agentBin, "send", "--to", target, "--registry", registry, "--protocol", d1.Hex(), "--body", londonQuery)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("agent send: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
		}
		return strings.TrimSpace(stdout.String()), stderr.String()
	}
	deprecatedNote := "protocol " + d1.Hex() + ` is deprecated: "use v2, it is documented better"; its publisher names ` + d2.Hex() + " instead"

	// A target listing v2: the replacement is sent, and stderr says why.
	cfg2 := weatherConfig(d2)
	cfg2.Registries = []string{registry}
	_, bob2 := startBob(t, cfg2)
	answer, stderr := send(bob2)
	if answer != londonAnswer || !strings.Contains(stderr, deprecatedNote) ||
		!strings.Contains(stderr, "using "+d2.Hex()+" instead of the deprecated "+d1.Hex()+": the target lists the replacement") ||
		!strings.Contains(stderr, "protocol "+d2.Hex()+" (Weather Protocol v1): listed by the target") {
		t.Fatalf("send to a target listing v2 printed %q; stderr:\n%s", answer, stderr)
	}

	// A target listing only v1: v1 it is, with the note.
	_, bob1 := startBob(t, cfg)
	answer, stderr = send(bob1)
	if answer != londonAnswer || !strings.Contains(stderr, deprecatedNote) || strings.Contains(stderr, "using ") ||
		!strings.Contains(stderr, "protocol "+d1.Hex()) {
		t.Fatalf("send to a target listing only v1 printed %q; stderr:\n%s", answer, stderr)
	}

	// The resolve answer the agent read names the publisher too.
	res, err := acme.Resolve(ctx, []agora.Digest{d1})
	if err != nil || len(res) != 1 || res[0].Publisher != "acme" {
		t.Fatalf("resolve: %+v, %v", res, err)
	}
}
