package agent

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agora-registry/registry/agora"
)

// lockedBuffer is a log sink shared by the server's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startBobLogged is startBob keeping the agent's log.
func startBobLogged(t *testing.T, cfg Config) (string, *lockedBuffer) {
	t.Helper()
	if cfg.CacheDir == "" {
		cfg.CacheDir = t.TempDir()
	}
	logs := &lockedBuffer{}
	a, err := New(cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	return srv.URL, logs
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestHTTPRoutineFailureLeaksNothing: an http routine's URL is the
// operator's secret (internal host, password, API key). When the routine
// fails, the sender gets a generic message and a stable code; the agent's
// log gets the detail with the credentials redacted.
func TestHTTPRoutineFailureLeaksNothing(t *testing.T) {
	doc, d := weatherDoc(t)
	failing := newHandlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "internal trace: db=10.1.2.3", http.StatusBadGateway)
	})
	hangUp := newHandlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	})
	const secrets = "routineuser:S3cretPass@"
	const path = "/internal/forecast?api_key=K3Y-9f8e7d&region=eu"
	rows := map[string]string{
		"answers 502":        strings.Replace(failing, "http://", "http://"+secrets, 1) + path,
		"connection refused": "http://" + secrets + closedPort(t) + path,
		"hangs up":           strings.Replace(hangUp, "http://", "http://"+secrets, 1) + path,
	}
	for name, routineURL := range rows {
		t.Run(name, func(t *testing.T) {
			cfg := Config{Protocols: []ProtocolConfig{{Hash: d.Hex(), Routine: RoutineConfig{HTTP: &HTTPConfig{URL: routineURL}}}}}
			bob, logs := startBobLogged(t, cfg)
			raw := postRaw(t, bob, tx(d.Hex(), []string{agora.DataURI(doc)}, londonQuery))
			var a Answer
			if err := json.Unmarshal(raw, &a); err != nil || a.Status != StatusFailure || a.Code != "routine_failed" {
				t.Fatalf("answer %s, want failure routine_failed", raw)
			}
			host := routineURL[len("http://"+secrets):strings.Index(routineURL, "/internal")]
			for _, leak := range []string{"S3cretPass", "K3Y-9f8e7d", "routineuser", host, "127.0.0.1", "/internal/forecast", "10.1.2.3", "dial", "EOF"} {
				if strings.Contains(string(raw), leak) {
					t.Errorf("the answer %s tells the sender %q", raw, leak)
				}
			}
			line := logLine(logs.String(), "routine failed")
			if line == "" {
				t.Fatalf("no \"routine failed\" line in the log:\n%s", logs)
			}
			for _, want := range []string{"routineuser:xxxxx@" + host + "/internal/forecast", "api_key=xxxxx"} {
				if !strings.Contains(line, want) {
					t.Errorf("log line %q lacks the redacted detail %q", line, want)
				}
			}
			for _, leak := range []string{"S3cretPass", "K3Y-9f8e7d"} {
				if strings.Contains(logs.String(), leak) {
					t.Errorf("the log holds the credential %q:\n%s", leak, logs)
				}
			}
		})
	}
}

// TestSourceFailureLeaksNoLocalDetail: a source that cannot be reached is
// reported to the sender in words ("the connection was refused"), never as
// the raw Go error naming local addresses; a configured registry is named
// by its place in the config, not its (possibly internal) address.
func TestSourceFailureLeaksNoLocalDetail(t *testing.T) {
	_, d := weatherDoc(t)
	registry := "http://" + closedPort(t)
	source := "http://" + closedPort(t) + "/weather.md"
	cfg := weatherConfig(d, "127.0.0.1")
	cfg.Registries = []string{registry}
	bob, logs := startBobLogged(t, cfg)
	raw := postRaw(t, bob, tx(d.Hex(), []string{source}, londonQuery))
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil || a.Status != StatusRejected || a.Code != "protocol_unresolvable" {
		t.Fatalf("answer %s, want rejected protocol_unresolvable", raw)
	}
	if !strings.Contains(a.Error, "the connection was refused") || !strings.Contains(a.Error, "configured registry 1") {
		t.Errorf("the refusal %q does not say what failed", a.Error)
	}
	for _, leak := range []string{"dial tcp", "connect:", strings.TrimPrefix(registry, "http://")} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("the answer %s tells the sender %q", raw, leak)
		}
	}
	if !strings.Contains(logs.String(), "connection refused") || !strings.Contains(logs.String(), registry) {
		t.Errorf("the log lacks the detail:\n%s", logs)
	}
}

func postRaw(t *testing.T, url string, payload []byte) []byte {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d, %v: %s", resp.StatusCode, err, raw)
	}
	return raw
}

// logLine is the first line of logs containing msg.
func logLine(logs, msg string) string {
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, msg) {
			return l
		}
	}
	return ""
}
