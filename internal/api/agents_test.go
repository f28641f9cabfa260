package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

type directoryFixture struct {
	url     string
	counter *adoption.Counter
	svc     *registry.Service
	hex     string
}

func newDirectoryServer(t *testing.T, openPublish bool) *directoryFixture {
	t.Helper()
	return newDirectoryServerWith(t, openPublish, directory.Config{}, nil)
}

// newDirectoryServerWith serves a directory configured by dcfg (its
// allow-list opened to loopback) behind the trusted proxies.
func newDirectoryServerWith(t *testing.T, openPublish bool, dcfg directory.Config, trusted []netip.Prefix) *directoryFixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.New(st, registry.Config{PublicURL: "http://registry.test", CacheBytes: 1 << 20})
	dcfg.Allow, dcfg.Logger = []string{"127.0.0.1/32"}, log
	dir, err := directory.New(st, dcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dir.Close) // before the store closes
	counter := adoption.New(st, log, nil)
	s := New(svc, Config{Logger: log, TrustedProxies: trusted}, WithDirectory(dir), WithAdoption(counter), WithAuthenticator(NewAuthenticator(svc, openPublish)))
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	res, err := svc.Publish(ctx, []byte("# Weather\n\nAsk for the weather.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return &directoryFixture{url: ts.URL, counter: counter, svc: svc, hex: res.Entry.Digest.Hex()}
}

func postJSON(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestRegisterAgentThroughTheAPI(t *testing.T) {
	f := newDirectoryServer(t, true)
	stored, elsewhere := f.hex, strings.Repeat("cd", 20)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/wellknown" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `{"`+stored+`": ["http://registry.test/protocol/`+stored+`"], "`+elsewhere+`": ["https://elsewhere/p"]}`)
	}))
	defer agent.Close()

	res, body := postJSON(t, f.url+"/api/v1/agents", `{"url":"`+agent.URL+`"}`)
	if res.StatusCode != http.StatusCreated || res.Header.Get("Location") != "/api/v1/agents/1" {
		t.Fatalf("register: %d %s", res.StatusCode, body)
	}
	var a AgentView
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Supported) != 2 || a.HTMLURL != "http://registry.test/agents/1" {
		t.Fatalf("registered view: %s", body)
	}
	for _, h := range a.Supported {
		if h.Known != (h.Hex == stored) {
			t.Fatalf("known is wrong for %s: %s", h.Hex, body)
		}
	}
	if _, body := get(t, f.url+"/api/v1/agents?speaks="+elsewhere, ""); !strings.Contains(body, `"id":1`) {
		t.Fatalf("list speaks a hash the registry lacks: %s", body)
	}
	if _, body := get(t, f.url+"/api/v1/protocols/"+stored+"/agents", ""); !strings.Contains(body, `"speakingCount":1`) {
		t.Fatalf("protocol agents: %s", body)
	}
	if _, body := get(t, f.url+"/api/v1/protocols/"+stored, ""); !strings.Contains(body, `"agents":1`) {
		t.Fatalf("the protocol view does not count the agent: %s", body)
	}
	if res, body := postJSON(t, f.url+"/api/v1/agents", `{"url":"`+agent.URL+`/another/path"}`); res.StatusCode != http.StatusOK ||
		!strings.Contains(body, `"id":1,`) || !strings.Contains(body, `"url":"`+agent.URL+`"`) || !strings.Contains(body, `"crawlStatus":"ok"`) {
		t.Fatalf("another path of the agent: %d %s", res.StatusCode, body)
	}
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	for _, bad := range []struct{ body, code string }{
		{`{"url":"ftp://x/"}`, "invalid_agent_url"},
		{`{"url":""}`, "invalid_json"},
		{`{"url":"http://x/","extra":1}`, "invalid_json"},
		{`{"url":"` + missing.URL + `/nope"}`, "agent_unreachable"},
	} {
		res, body := postJSON(t, f.url+"/api/v1/agents", bad.body)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"code":"`+bad.code+`"`) {
			t.Errorf("%s: %d %s", bad.body, res.StatusCode, body)
		}
	}
}

func TestRegisterAgentNeedsAToken(t *testing.T) {
	f := newDirectoryServer(t, false)
	res, body := postJSON(t, f.url+"/api/v1/agents", `{"url":"http://127.0.0.1:1/"}`)
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("tokenless registration on a closed registry: %d %s", res.StatusCode, body)
	}
}

// Fetches on the hot path and through the router, and resolutions, show
// in the JSON views once flushed.
func TestAdoptionCountsShowInViews(t *testing.T) {
	f := newDirectoryServer(t, true)
	for range 3 { // the first is a cache miss (router), the rest hot
		if res, _ := get(t, f.url+"/protocol/"+f.hex, ""); res.StatusCode != 200 {
			t.Fatal(res.Status)
		}
	}
	if res, _ := get(t, f.url+"/protocol/"+strings.Repeat("0", 40), ""); res.StatusCode != 404 {
		t.Fatal(res.Status)
	}
	postJSON(t, f.url+"/api/v1/resolve", `{"hashes":["`+f.hex+`","`+f.hex+`","`+strings.Repeat("0", 40)+`"]}`)
	if err := f.counter.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, f.url+"/api/v1/protocols/"+f.hex, "")
	if !strings.Contains(body, `"fetches":3`) || !strings.Contains(body, `"resolutions":2`) {
		t.Fatalf("after 3 fetches and 2 resolutions: %s", body)
	}
	if _, body := get(t, f.url+"/api/v1/protocols?sort=popular", ""); !strings.Contains(body, `"fetches":3`) {
		t.Fatalf("sort=popular: %s", body)
	}
	if res, body := get(t, f.url+"/api/v1/protocols?sort=popular&q=weather", ""); res.StatusCode != 400 {
		t.Fatalf("sort=popular with a query: %d %s", res.StatusCode, body)
	}
}

// POST /api/v1/match takes TaskSchema.to_json() as the Python SDK writes it.
func TestMatchTakesATaskSchema(t *testing.T) {
	f := newDirectoryServer(t, true)
	res, body := postJSON(t, f.url+"/api/v1/match", `{"description": "weather for a town", "input_schema": {"type": "object", "properties": {"town": {"type": "string"}}, "required": ["town"]}, "output_schema": {"type": "string", "description": "the weather"}}`)
	if res.StatusCode != 200 || !strings.Contains(body, `"hex":"`+f.hex+`"`) || !strings.Contains(body, `"kind":"text","words":["weather"]`) {
		t.Fatalf("match: %d %s", res.StatusCode, body)
	}
	if res, body := postJSON(t, f.url+"/api/v1/match", `{"task": "the"}`); res.StatusCode != 400 || !strings.Contains(body, "empty_match") {
		t.Fatalf("an empty match: %d %s", res.StatusCode, body)
	}
}

// TestA2AAgentThroughTheAPI: an agent publishing only an unsigned A2A card
// and an ARD manifest registers; its card and manifest are in its JSON,
// its list view names its dialects, and ?dialect= and ?q= find it.
func TestA2AAgentThroughTheAPI(t *testing.T) {
	f := newDirectoryServer(t, true)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/agent-card.json":
			io.WriteString(w, `{"name":"Route Planner","description":"plans","skills":[{"id":"r","name":"Traffic Router","tags":["maps"]}],
				"supportedInterfaces":[{"url":"https://a.test/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`)
		case "/.well-known/ai-catalog.json":
			io.WriteString(w, `{"entries":[{"identifier":"urn:air:a.test:agent:r","displayName":"Router Entry","type":"application/a2a-agent-card+json","url":"https://a.test/card.json"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer agent.Close()
	res, body := postJSON(t, f.url+"/api/v1/agents", `{"url":"`+agent.URL+`"}`)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", res.StatusCode, body)
	}
	var a AgentView
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	if a.A2A == nil || a.A2A.Skills[0].Name != "Traffic Router" || a.ARD == nil || a.ARD.Entries[0].DisplayName != "Router Entry" ||
		a.CardSignature == nil || *a.CardSignature != "unsigned" || strings.Join(a.Dialects, ",") != "a2a,ard" ||
		a.DialectStates["agora"].Error == "" || a.Name != "Route Planner" {
		t.Fatalf("registered view: %s", body)
	}
	for _, q := range []string{"dialect=a2a", "dialect=ard", "q=traffic+router", "q=router+entry"} {
		if _, body := get(t, f.url+"/api/v1/agents?"+q, ""); !strings.Contains(body, `"id":1,`) || strings.Contains(body, `"skills"`) ||
			!strings.Contains(body, `"cardSignature":"unsigned"`) {
			t.Fatalf("?%s: %s", q, body)
		}
	}
	if _, body := get(t, f.url+"/api/v1/agents?dialect=agora", ""); strings.Contains(body, `"id":1,`) {
		t.Fatalf("?dialect=agora lists an A2A agent: %s", body)
	}
	if res, body := get(t, f.url+"/api/v1/agents?dialect=mcp", ""); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("?dialect=mcp: %d %s", res.StatusCode, body)
	}
}
