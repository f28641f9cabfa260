package agent

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/client"
)

// buildBinary builds a command of this module.
func buildBinary(t *testing.T, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = "../.."
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, msg)
	}
	return out
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startProcess runs a binary until the test ends and waits for url to
// answer 200.
func startProcess(t *testing.T, url string, bin string, args ...string) {
	t.Helper()
	var logs bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("%s logs:\n%s", filepath.Base(bin), logs.String())
		}
	})
	for i := 0; i < 300; i++ {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not become healthy at %s; logs:\n%s", bin, url, logs.String())
}

// startRegistry runs the real registry as a process, with extra flags.
func startRegistry(t *testing.T, extra ...string) string {
	return startRegistryAt(t, buildBinary(t, "./cmd/registry"), freeAddr(t), extra...)
}

// startRegistryAt runs the registry binary bin on addr.
func startRegistryAt(t *testing.T, bin, addr string, extra ...string) string {
	base := "http://" + addr
	args := append([]string{"serve", "--addr", addr, "--data-dir", filepath.Join(t.TempDir(), "data"), "--open-publish", "--no-examples"}, extra...)
	startProcess(t, base+"/healthz", bin, args...)
	return base
}

func registryClient(t *testing.T, base string) *client.Client {
	guarded, err := agora.NewHTTPClient(agora.FetchPolicy{Allow: []string{strings.TrimPrefix(base, "http://")}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(base, guarded)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestEndToEndAliceAsksBobThroughRegistry(t *testing.T) {
	registry := startRegistry(t)
	ctx := context.Background()
	doc, d := weatherDoc(t)

	// Alice publishes the protocol and gets its registry sources.
	pub, err := registryClient(t, registry).Publish(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	if pub.Hex != d.Hex() || len(pub.Sources) == 0 {
		t.Fatalf("publish answer %+v", pub)
	}

	// Bob trusts the registry (added to his allow-list automatically) and
	// has no local copy of the document.
	cfg := weatherConfig(d)
	cfg.Registries = []string{registry}
	_, bob := startBob(t, cfg)

	// Alice follows the spec's sending workflow.
	hc := &http.Client{Timeout: 30 * time.Second}
	wk, err := FetchWellKnown(ctx, hc, bob)
	if err != nil {
		t.Fatal(err)
	}
	if got := wk.Supported[d]; len(got) != 1 || got[0] != registry+"/protocol/"+d.Hex() {
		t.Fatalf("Bob advertises %v", got)
	}
	choice, err := ChooseProtocol(wk, []Candidate{{Digest: d, Document: doc, Implemented: true}}, "weather")
	if err != nil || choice.Reason != "listed by the target" {
		t.Fatalf("choice %+v, %v", choice, err)
	}
	sources := SourcesFor(ctx, choice.Candidate, []*client.Client{registryClient(t, registry)}, false)
	if len(sources) == 0 || !strings.HasPrefix(sources[0], registry) {
		t.Fatalf("sources %v", sources)
	}
	hex := d.Hex()
	reply, err := Send(ctx, hc, bob, Outgoing{ProtocolHash: &hex, ProtocolSources: sources, Body: londonQuery})
	if err != nil || reply.Status != StatusSuccess || reply.Body != londonAnswer {
		t.Fatalf("reply %+v, %v", reply, err)
	}

	// A second Bob, given no sources at all, finds the document through the
	// registry's batch-resolve API; the Base64 spelling works too.
	_, bob2 := startBob(t, cfg)
	b64 := d.Base64()
	reply, err = Send(ctx, hc, bob2, Outgoing{ProtocolHash: &b64, ProtocolSources: []string{}, Body: londonQuery})
	if err != nil || reply.Status != StatusSuccess || reply.Body != londonAnswer {
		t.Fatalf("via registry: %+v, %v", reply, err)
	}

	// A hash the registry does not know, with no sources: rejected.
	unknown := strings.Repeat("ab", 20)
	cfg.Protocols = append(cfg.Protocols, ProtocolConfig{Hash: unknown, Routine: RoutineConfig{Builtin: "weather"}})
	_, bob3 := startBob(t, cfg)
	reply, err = Send(ctx, hc, bob3, Outgoing{ProtocolHash: &unknown, ProtocolSources: []string{}, Body: londonQuery})
	if err != nil || reply.Status != StatusRejected {
		t.Fatalf("unknown hash: %+v, %v", reply, err)
	}
}

// TestEndToEndThreeCommands runs what docs/agent.md shows: the registry,
// Bob from examples/agent.yaml, and "agent send", all as processes.
func TestEndToEndThreeCommands(t *testing.T) {
	registry := startRegistry(t)
	agentBin := buildBinary(t, "./cmd/agent")
	bobAddr := freeAddr(t)
	bob := "http://" + bobAddr
	// Bob is started like the docs say, with the example config; the
	// environment (inherited by the processes) points him at this test's
	// registry and port.
	t.Setenv("AGENT_REGISTRIES", registry)
	t.Setenv("AGENT_CACHE_DIR", t.TempDir())
	t.Setenv("AGENT_ADDR", bobAddr)
	startProcess(t, bob+"/healthz", agentBin, "serve", "--config", "../../examples/agent.yaml")

	send := exec.Command(agentBin, "send", "--to", bob, "--registry", registry, "--publish",
		"--protocol", "../../examples/protocols/weather-v1.md", "--body", londonQuery)
	var stdout, stderr bytes.Buffer
	send.Stdout, send.Stderr = &stdout, &stderr
	if err := send.Run(); err != nil {
		t.Fatalf("agent send: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != londonAnswer {
		t.Fatalf("agent send printed %q (stderr %s)", got, stderr.String())
	}

	// agent wellknown shows Bob's protocols.
	out, err := exec.Command(agentBin, "wellknown", bob).CombinedOutput()
	_, d := weatherDoc(t)
	if err != nil || !bytes.Contains(out, []byte(d.Hex())) {
		t.Fatalf("agent wellknown: %v\n%s", err, out)
	}
}
