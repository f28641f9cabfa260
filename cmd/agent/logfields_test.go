package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/agent"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// requestFields serves one GET through h and returns the keys of the
// "request" record h logged.
func requestFields(t *testing.T, logs *bytes.Buffer, h http.Handler, path string) []string {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" {
			var keys []string
			for k := range rec {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			return keys
		}
	}
	t.Fatalf("no request record logged:\n%s", logs)
	return nil
}

// TestBothBinariesLogRequestsWithTheSameFieldNames: one log query
// (durationMs > 100, a client's address) reads the registry's and the
// agent's request lines alike.
func TestBothBinariesLogRequestsWithTheSameFieldNames(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var regLogs, agentLogs bytes.Buffer
	reg := api.New(registry.New(st, registry.Config{PublicURL: "http://registry.test"}), api.Config{Logger: slog.New(slog.NewJSONHandler(&regLogs, nil))})
	bob, err := agent.New(agent.Config{Name: "bob", CacheDir: t.TempDir()}, slog.New(slog.NewJSONHandler(&agentLogs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	regKeys := requestFields(t, &regLogs, reg.Handler(), "/healthz")
	agentKeys := requestFields(t, &agentLogs, bob.Handler(), "/healthz")
	for _, k := range []string{"durationMs", "client", "method", "path", "status"} {
		if !slices.Contains(regKeys, k) || !slices.Contains(agentKeys, k) {
			t.Errorf("field %q: registry logs %v, agent logs %v; want it in both", k, regKeys, agentKeys)
		}
	}
	for _, k := range agentKeys {
		if !slices.Contains(regKeys, k) {
			t.Errorf("the agent logs %q, which the registry's request lines name otherwise (registry: %v)", k, regKeys)
		}
	}
}
