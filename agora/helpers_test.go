package agora

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// weatherDoc is the repository's Weather Protocol v1 document.
func weatherDoc(t testing.TB) ([]byte, Digest) {
	t.Helper()
	doc, err := os.ReadFile("../examples/protocols/weather-v1.md")
	if err != nil {
		t.Fatal(err)
	}
	sums, err := Hash(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, sums.SHA1
}

// agentSetup is a test agent: handler options, the resolver's fetch
// allow-list, and the routines to register.
type agentSetup struct {
	Options
	Allow    []string
	CacheDir string
	Routines map[Digest]Routine
}

// startBob runs an agent on a real loopback socket.
func startBob(t *testing.T, cfg agentSetup) (*Handler, string) {
	t.Helper()
	if cfg.CacheDir == "" {
		cfg.CacheDir = t.TempDir()
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	r, err := NewResolver(ResolverOptions{CacheDir: cfg.CacheDir, Fetch: FetchPolicy{Allow: cfg.Allow}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Options.Resolver, cfg.Options.Log = r, log
	h, err := NewHandler(cfg.Options)
	if err != nil {
		t.Fatal(err)
	}
	for d, rt := range cfg.Routines {
		h.Handle(d, rt)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv.URL
}

// weather answers the Weather Protocol v1 as the spec's example does: the
// spec's London query gets the spec's answer, any other body an error.
var weather = RoutineFunc(func(_ context.Context, req Request) (string, error) {
	var q struct{ Location, Date string }
	if json.Unmarshal([]byte(req.Body), &q) == nil && q.Location == "London, UK" && q.Date == "2024-09-27" {
		return londonAnswer, nil
	}
	return `{"error":"unknown location or date"}`, nil
})

// post sends raw bytes and decodes the answer, checking the HTTP 200 and
// the string body every answer must carry.
func call(t *testing.T, method, url string, payload []byte) Answer {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), method, url, bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: HTTP %d %s", method, url, resp.StatusCode, raw)
	}
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("answer is not JSON: %s", raw)
	}
	if _, ok := fields["body"].(string); !ok {
		t.Fatalf("answer has no string body: %s", raw)
	}
	var a Answer
	json.Unmarshal(raw, &a)
	if a.Status != StatusSuccess && a.Error == "" {
		t.Fatalf("%s answer without an error message: %s", a.Status, raw)
	}
	return a
}

func tx(hash any, sources any, body string) []byte {
	b, _ := json.Marshal(map[string]any{"protocolHash": hash, "protocolSources": sources, "body": body})
	return b
}

const londonQuery = `{"location": "London, UK", "date": "2024-09-27"}`
const londonAnswer = `{"temperature":11,"precipitation":12,"weatherCondition":"rainy"}`

func weatherConfig(d Digest, allow ...string) agentSetup {
	return agentSetup{Options: Options{Name: "bob"}, Allow: allow, Routines: map[Digest]Routine{d: weather}}
}
