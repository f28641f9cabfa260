package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
)

// weatherDoc is the repository's Weather Protocol v1 document.
func weatherDoc(t testing.TB) ([]byte, protocol.Digest) {
	t.Helper()
	doc, err := os.ReadFile("../../examples/protocols/weather-v1.md")
	if err != nil {
		t.Fatal(err)
	}
	sums, err := protocol.Hash(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, sums.SHA1
}

// startBob runs an agent on a real loopback socket.
func startBob(t *testing.T, cfg Config) (*Agent, string) {
	t.Helper()
	if cfg.CacheDir == "" {
		cfg.CacheDir = t.TempDir()
	}
	a, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return a, srv.URL
}

// countingSource serves fixed bytes and counts requests.
type countingSource struct {
	*httptest.Server
	hits atomic.Int32
}

func newCountingSource(t *testing.T, body []byte) *countingSource {
	s := &countingSource{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

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

func weatherConfig(d protocol.Digest, allow ...string) Config {
	return Config{
		Name:      "bob",
		Allow:     allow,
		Protocols: []ProtocolConfig{{Hash: d.Hex(), Routine: RoutineConfig{Builtin: "weather"}}},
	}
}

func newHandlerServer(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
