package agent

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/agora/agoratest"
	"github.com/agora-registry/registry/internal/agent/routine"
	"github.com/agora-registry/registry/internal/protocol"
)

// serveAgent runs New(cfg).Serve on a loopback socket until the test ends
// and returns the agent and its URL.
func serveAgent(t *testing.T, cfg Config) (*Agent, string) {
	t.Helper()
	if cfg.CacheDir == "" {
		cfg.CacheDir = t.TempDir()
	}
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return a, "http://" + ln.Addr().String()
}

// speakers polls the registry's directory until cond holds of the URLs of
// the agents speaking d.
func speakers(t *testing.T, registry string, d protocol.Digest, cond func([]string) bool) []string {
	t.Helper()
	reg, err := agora.NewRegistry(registry, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		page, err := reg.Agents(context.Background(), agora.AgentQuery{Speaks: d})
		var urls []string
		for _, a := range page.Items {
			urls = append(urls, a.URL)
		}
		if err == nil && cond(urls) {
			return urls
		}
		if time.Now().After(deadline) {
			t.Fatalf("directory lists %v as speaking %s (%v)", urls, d.Hex(), err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func has(url string) func([]string) bool {
	return func(urls []string) bool { return len(urls) == 1 && urls[0] == url }
}

// agent serve --announce: the registry is down when the agent starts, so
// the first announcements fail while the agent serves; once the registry
// is up a retry registers it, and a new protocol reaches the directory at
// once, not at the next crawl (an hour away).
func TestAnnounceRetriesThenFollowsChanges(t *testing.T) {
	bin := buildBinary(t, "./cmd/registry")
	addr := freeAddr(t)
	_, d := weatherDoc(t)
	cfg := weatherConfig(d)
	cfg.Announce = []string{"http://" + addr}
	a, bob := serveAgent(t, cfg)
	if resp, err := http.Get(bob + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the agent does not serve while announcing fails: %v", err)
	}
	registry := startRegistryAt(t, bin, addr, "--outbound-allow", "127.0.0.1")
	speakers(t, registry, d, has(bob))

	other := protocol.Digest{7}
	a.handler.Handle(other, routine.Weather{})
	speakers(t, registry, other, has(bob))
}

// agent send --speaking: of two agents speaking the protocol the one seen
// last is taken; when it stops answering, the other.
func TestSendSpeakingPicksTheMostRecentlySeen(t *testing.T) {
	registry := startRegistry(t, "--outbound-allow", "127.0.0.1")
	agentBin := buildBinary(t, "./cmd/agent")
	doc, d := weatherDoc(t)
	if _, err := registryClient(t, registry).Publish(context.Background(), doc); err != nil {
		t.Fatal(err)
	}
	older := weatherConfig(d)
	older.Name, older.Announce, older.Registries = "older", []string{registry}, []string{registry}
	_, olderURL := serveAgent(t, older)
	speakers(t, registry, d, has(olderURL))

	newer := weatherConfig(d)
	newer.Name, newer.Registries, newer.CacheDir = "newer", []string{registry}, t.TempDir()
	newerAgent, err := New(newer, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: newerAgent.Handler()}
	go srv.Serve(ln)
	newerURL := "http://" + ln.Addr().String()
	if _, err := registryClient(t, registry).RegisterAgent(context.Background(), newerURL); err != nil {
		t.Fatal(err)
	}

	send := func(extra ...string) (string, string, error) {
		args := append([]string{"send", "--speaking", d.Base64(), "--registry", registry, "--body", londonQuery}, extra...)
		cmd := exec.Command(agentBin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return strings.TrimSpace(stdout.String()), stderr.String(), err
	}
	out, log, err := send("--allow", "127.0.0.1")
	if err != nil || out != londonAnswer || !strings.Contains(log, "target "+newerURL+" (newer), listed by "+registry+" as speaking "+d.Hex()) {
		t.Fatalf("send: %v, printed %q; stderr:\n%s", err, out, log)
	}
	// Without --allow the guard keeps a directory's loopback addresses out.
	if _, log, err := send(); err == nil || !strings.Contains(log, "passing over "+newerURL) {
		t.Fatalf("send without --allow: %v; stderr:\n%s", err, log)
	}
	srv.Close()
	out, log, err = send("--allow", "127.0.0.1")
	if err != nil || out != londonAnswer || !strings.Contains(log, "passing over "+newerURL) || !strings.Contains(log, "target "+olderURL+" (older)") {
		t.Fatalf("send with the newer agent gone: %v, printed %q; stderr:\n%s", err, out, log)
	}
}

// A protocol only the registry's match finds for the task (no single
// search for all the task's words holds it) is judged and used, without
// negotiating.
func TestSendTaskUsesTheRegistrysMatch(t *testing.T) {
	registry := startRegistry(t)
	agentBin := buildBinary(t, "./cmd/agent")
	const doc = "---\nname: City forecast\ndescription: The temperature of a city.\n---\n\nSend {\"city\": string}; the answer is {\"temperature\": number}.\n"
	pub, err := registryClient(t, registry).Publish(context.Background(), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	page, err := registryClient(t, registry).Search(context.Background(), agora.Query{Text: "temperature of a city tomorrow"})
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("a search finds %d documents (%v): the test would not tell match from search", len(page.Items), err)
	}
	bobLLM := agoratest.NewTextLLM(t, func([]agoratest.Message) string { return `{"temperature": 3}` })
	_, bob := startBob(t, Config{Name: "bob", Registries: []string{registry}, LLM: LLMConfig{BaseURL: bobLLM.BaseURL()}})
	aliceLLM := agoratest.NewTextLLM(t, func(msgs []agoratest.Message) string {
		if strings.Contains(agoratest.LastUser(msgs), "City forecast") {
			return "ADEQUATE"
		}
		return "INADEQUATE"
	})
	cmd := exec.Command(agentBin, "send", "--to", bob, "--registry", registry, "--task", "temperature of a city tomorrow",
		"--negotiate", "--body", `{"city": "Oslo"}`)
	cmd.Env = append(os.Environ(), "AGENT_LLM_BASE_URL="+aliceLLM.BaseURL())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || strings.TrimSpace(stdout.String()) != `{"temperature": 3}` {
		t.Fatalf("send: %v, printed %q; stderr:\n%s", err, stdout.String(), stderr.String())
	}
	log := stderr.String()
	if !strings.Contains(log, "match: protocol "+pub.Hex+" (City forecast)") || !strings.Contains(log, "judged it adequate") || strings.Contains(log, "negotiated") {
		t.Fatalf("stderr:\n%s", log)
	}
}

// A registry to announce to that is not an http(s) base URL stops the
// agent at start, naming the option.
func TestAnnounceURLIsChecked(t *testing.T) {
	for _, bad := range []string{"ftp://registry", "http://registry/?q=1", "registry"} {
		_, err := New(Config{CacheDir: t.TempDir(), Announce: []string{bad}}, nil)
		if err == nil || !strings.Contains(err.Error(), "announce") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
