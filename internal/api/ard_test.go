package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/ard"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// The conformance tool's identifier pattern (conformance/bin/conformance-test).
var ardURN = regexp.MustCompile(`^urn:air:([a-zA-Z0-9.-]+)(?::([a-zA-Z0-9._:-]+))?:([a-zA-Z0-9._-]+)$`)

// ardNode is a registry serving the ARD surface on a real socket, with
// the /ard/search requests it received counted.
type ardNode struct {
	url      string
	svc      *registry.Service
	st       *sqlite.Store
	fed      *ard.Federation
	searches atomic.Int64
	weather  protocol.Digest
}

// reserveServer is a server whose address is known before its handler.
func reserveServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	t.Cleanup(ts.Close)
	return ts, "http://" + ts.Listener.Addr().String()
}

// startARD serves a fresh registry on ts (reachable at base) following
// peers (base URLs), with two protocols and one agent speaking the first.
func startARD(t *testing.T, ts *httptest.Server, base string, peers ...string) *ardNode {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.New(st, registry.Config{PublicURL: base})
	dir, err := directory.New(st, directory.Config{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dir.Close)
	n := &ardNode{url: base, svc: svc, st: st}
	opts := []Option{WithDirectory(dir)}
	if len(peers) > 0 {
		if n.fed, err = ard.NewFederation(peers, nil); err != nil {
			t.Fatal(err)
		}
		n.fed.Timeout = 2 * time.Second
		opts = append(opts, WithFederation(n.fed))
	}
	h := New(svc, Config{Logger: log}, opts...).Handler()
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ard/search" {
			n.searches.Add(1)
		}
		h.ServeHTTP(w, r)
	})
	ts.Start()
	w, err := svc.Publish(ctx, []byte("---\ntitle: Weather forecast\ndescription: Forecasts by city. Daily.\ntags: [weather, forecast]\n---\n\nAsk for the weather forecast of a city.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	n.weather = w.Entry.Digest
	if _, err := svc.Publish(ctx, []byte("---\ntitle: Table booking\ndescription: Book a table.\ntags: [restaurant]\n---\n\nBook a restaurant table.\n"), nil, ""); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, _, err := st.RegisterAgent(ctx, "https://forecaster.example", now, entity.AgentCrawl{Name: "Forecaster", Description: "Speaks weather.",
		Kinds: []string{"weather"}, WellKnownURL: "https://forecaster.example/.well-known/agora",
		Supported: []entity.AgentProtocol{{Digest: n.weather}}}, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	return n
}

func newARDNode(t *testing.T, peers ...string) *ardNode {
	ts, base := reserveServer(t)
	return startARD(t, ts, base, peers...)
}

// ardDo sends a request and decodes a JSON answer into a generic value.
func ardDo(t *testing.T, method, u string, body string, header ...string) (*http.Response, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, u, rd)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s %s: %d, not a JSON object: %.300s", method, u, res.StatusCode, raw)
	}
	return res, v
}

// checkARDEntry asserts what the conformance tool asserts of an entry.
func checkARDEntry(t *testing.T, where string, v any) map[string]any {
	t.Helper()
	e, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: an entry is not an object: %v", where, v)
	}
	id, _ := e["identifier"].(string)
	if !ardURN.MatchString(id) {
		t.Fatalf("%s: identifier %q is no urn:air URN", where, id)
	}
	if s, _ := e["displayName"].(string); s == "" {
		t.Fatalf("%s: %s has no displayName", where, id)
	}
	if s, _ := e["type"].(string); s == "" {
		t.Fatalf("%s: %s has no type", where, id)
	}
	_, hasURL := e["url"]
	_, hasData := e["data"]
	if hasURL == hasData {
		t.Fatalf("%s: %s must carry exactly one of url and data", where, id)
	}
	if q, ok := e["representativeQueries"]; ok {
		if l, _ := q.([]any); len(l) < 2 || len(l) > 5 {
			t.Fatalf("%s: %s has %v representativeQueries", where, id, q)
		}
	}
	if m, ok := e["metadata"].(map[string]any); ok {
		for k, v := range m {
			switch v.(type) {
			case string, float64, bool, nil:
			default:
				t.Fatalf("%s: metadata %s of %s is not a scalar", where, k, id)
			}
		}
	}
	return e
}

// checkARDResult adds the search result's checks.
func checkARDResult(t *testing.T, v any) map[string]any {
	t.Helper()
	e := checkARDEntry(t, "search", v)
	score, ok := e["score"].(float64)
	if !ok || score != float64(int(score)) || score < 0 || score > 100 {
		t.Fatalf("score %v of %v is not an integer 0–100", e["score"], e["identifier"])
	}
	if s, _ := e["source"].(string); s == "" {
		t.Fatalf("result %v has no source", e["identifier"])
	}
	return e
}

func arr(t *testing.T, v any, what string) []any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("%s is not an array: %v", what, v)
	}
	return l
}

// TestARDConformanceChecks does what the spec's conformance tool does in
// its manifest and registry modes, and checks lookups of what it lists.
func TestARDConformanceChecks(t *testing.T) {
	n := newARDNode(t)
	res, m := ardDo(t, "GET", n.url+"/.well-known/ard.json", "")
	if res.StatusCode != 200 || m["specVersion"] != "1.0" {
		t.Fatalf("manifest: %d %v", res.StatusCode, m)
	}
	if h, _ := m["host"].(map[string]any); h == nil || h["displayName"] == "" {
		t.Fatalf("manifest host: %v", m["host"])
	}
	entries := arr(t, m["entries"], "entries")
	types := map[string]int{}
	for _, e := range entries {
		types[checkARDEntry(t, "manifest", e)["type"].(string)]++
	}
	if types[ard.TypeRegistry] != 1 || types[ard.TypeProtocol] != 2 || types[ard.TypeAgent] != 1 || len(entries) != 4 {
		t.Fatalf("manifest entries by type: %v", types)
	}
	if _, alias := ardDo(t, "GET", n.url+"/.well-known/ai-catalog.json", ""); fmt.Sprint(alias) != fmt.Sprint(m) {
		t.Fatal("the spec's well-known name answers another manifest")
	}
	// Every listed identifier looks up to the same entry.
	for _, e := range entries {
		id := e.(map[string]any)["identifier"].(string)
		res, got := ardDo(t, "GET", n.url+"/ard/agents/"+url.PathEscape(id), "")
		if e.(map[string]any)["type"] == ard.TypeAgent && len(arr(t, got["capabilities"], "capabilities")) != 1 {
			t.Fatalf("an agent's lookup lacks the hashes it speaks: %v", got)
		}
		delete(got, "capabilities") // listings carry counts, not lists
		if res.StatusCode != 200 || fmt.Sprint(got) != fmt.Sprint(e) {
			t.Fatalf("lookup %s: %d %v, listed as %v", id, res.StatusCode, got, e)
		}
	}

	res, l := ardDo(t, "GET", n.url+"/ard/agents", "")
	if res.StatusCode != 200 || len(arr(t, l["items"], "items")) != 3 {
		t.Fatalf("GET /ard/agents: %d %v", res.StatusCode, l)
	}

	// The tool's probes, verbatim.
	res, s := ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather forecast tools","filter":{"type":["application/mcp-server-card+json"]}},"federation":"none","pageSize":2}`)
	if res.StatusCode != 200 || len(arr(t, s["results"], "results")) != 0 {
		t.Fatalf("the tool's search: %d %v", res.StatusCode, s)
	}
	res, x := ardDo(t, "POST", n.url+"/ard/explore", `{"query":{"text":"weather"},"resultType":{"facets":[{"field":"type"}]}}`)
	if res.StatusCode != 200 || x["resultType"] != "facets" {
		t.Fatalf("the tool's explore: %d %v", res.StatusCode, x)
	}
	typ := x["facets"].(map[string]any)["type"].(map[string]any)
	if fmt.Sprint(typ["buckets"]) != fmt.Sprintf("[map[count:1 value:%s] map[count:1 value:%s]]", ard.TypeAgent, ard.TypeProtocol) {
		t.Fatalf("explore type facet: %v", typ)
	}

	// A search finds the protocol, and the agent that speaks it.
	_, s = ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather forecast"},"federation":"none"}`)
	rs := arr(t, s["results"], "results")
	if len(rs) != 2 {
		t.Fatalf("results: %v", rs)
	}
	top, agent := checkARDResult(t, rs[0]), checkARDResult(t, rs[1])
	if top["score"] != 100.0 || top["type"] != ard.TypeProtocol || top["source"] != n.url+"/ard" ||
		agent["identifier"] != "urn:air:forecaster.example:agora-agent:https" || agent["score"] != 100.0 {
		t.Fatalf("results: %v", rs)
	}
	_, s = ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather","filter":{"type":"`+ard.TypeAgent+`"}},"federation":"none"}`)
	if rs := arr(t, s["results"], "results"); len(rs) != 1 || checkARDResult(t, rs[0])["type"] != ard.TypeAgent {
		t.Fatalf("a type filter: %v", rs)
	}
	_, s = ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather"},"federation":"none","pageSize":1}`)
	if rs := arr(t, s["results"], "results"); len(rs) != 1 {
		t.Fatalf("pageSize 1 answers %d results", len(rs))
	}

	// Explore without a text counts the whole registry by type.
	_, x = ardDo(t, "POST", n.url+"/ard/explore", `{"resultType":{"facets":[{"field":"type","limit":1}]}}`)
	typ = x["facets"].(map[string]any)["type"].(map[string]any)
	if fmt.Sprint(typ["buckets"]) != fmt.Sprintf("[map[count:2 value:%s]]", ard.TypeProtocol) || typ["otherCount"] != 1.0 {
		t.Fatalf("explore of everything: %v", typ)
	}
}

// TestARDErrorsHaveTheSpecShape: each bad request gets its status and
// the spec's error body (errorCode, message) with the registry's code.
func TestARDErrorsHaveTheSpecShape(t *testing.T) {
	n := newARDNode(t)
	big := `{"query":{"text":"` + strings.Repeat("w ", ard.MaxRequestBytes/2) + `"}}`
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		errorCode, code          string
	}{
		{"no query", "POST", "/ard/search", `{}`, 400, "INVALID_ARGUMENT", "ard_invalid"},
		{"blank text", "POST", "/ard/search", `{"query":{"text":"  "}}`, 400, "INVALID_ARGUMENT", "ard_invalid"},
		{"unknown field", "POST", "/ard/search", `{"query":{"text":"x"},"limit":3}`, 400, "INVALID_ARGUMENT", "invalid_json"},
		{"not JSON", "POST", "/ard/search", `query=x`, 400, "INVALID_ARGUMENT", "invalid_json"},
		{"unknown filter key", "POST", "/ard/search", `{"query":{"text":"x","filter":{"colour":"red"}}}`, 400, "INVALID_ARGUMENT", "ard_unsupported_field"},
		{"filter value a number", "POST", "/ard/search", `{"query":{"text":"x","filter":{"tags":3}}}`, 400, "INVALID_ARGUMENT", "ard_invalid"},
		{"federation unknown", "POST", "/ard/search", `{"query":{"text":"x"},"federation":"all"}`, 400, "INVALID_ARGUMENT", "ard_invalid"},
		{"pageSize 0", "POST", "/ard/search", `{"query":{"text":"x"},"pageSize":0}`, 400, "INVALID_ARGUMENT", "ard_invalid"},
		{"pageToken", "POST", "/ard/search", `{"query":{"text":"x"},"pageToken":"abc"}`, 400, "INVALID_ARGUMENT", "ard_invalid_page_token"},
		{"body too large", "POST", "/ard/search", big, 413, "INVALID_ARGUMENT", "body_too_large"},
		{"explore without resultType", "POST", "/ard/explore", `{"query":{"text":"x"}}`, 400, "INVALID_ARGUMENT", "ard_invalid"},
		{"explore unknown field", "POST", "/ard/explore", `{"query":{"text":"x"},"resultType":{"facets":[{"field":"colour"}]}}`, 400, "INVALID_ARGUMENT", "ard_unsupported_field"},
		{"explore tags without text", "POST", "/ard/explore", `{"resultType":{"facets":[{"field":"tags"}]}}`, 400, "INVALID_ARGUMENT", "ard_unsupported_field"},
		{"explore too many facets", "POST", "/ard/explore", `{"query":{"text":"x"},"resultType":{"facets":[` + strings.Repeat(`{"field":"type"},`, ard.MaxFacets) + `{"field":"tags"}]}}`, 400, "INVALID_ARGUMENT", "ard_invalid"},
		{"explore limit 0", "POST", "/ard/explore", `{"query":{"text":"x"},"resultType":{"facets":[{"field":"type","limit":0}]}}`, 400, "INVALID_ARGUMENT", "ard_invalid"},
		{"list filter", "GET", "/ard/agents?filter=type%3Dx", "", 400, "INVALID_ARGUMENT", "ard_unsupported_field"},
		{"list bad token", "GET", "/ard/agents?pageToken=%21", "", 400, "INVALID_ARGUMENT", "ard_invalid_page_token"},
		{"list forged token", "GET", "/ard/agents?pageToken=cGJvZ3Vz", "", 400, "INVALID_ARGUMENT", "ard_invalid_page_token"},
		{"lookup unknown", "GET", "/ard/agents/urn:air:nowhere.example:agora-agent:https", "", 404, "NOT_FOUND", "ard_not_found"},
		{"lookup another registry's protocol", "GET", "/ard/agents/urn:air:other.example:agora-protocol:" + n.weather.Hex(), "", 404, "NOT_FOUND", "ard_not_found"},
		{"lookup not a URN", "GET", "/ard/agents/weather", "", 404, "NOT_FOUND", "ard_not_found"},
		{"no such route", "GET", "/ard/nothing", "", 404, "NOT_FOUND", "route_not_found"},
		{"wrong method", "GET", "/ard/search", "", 405, "INVALID_ARGUMENT", "method_not_allowed"},
	} {
		res, body := ardDo(t, c.method, n.url+c.path, c.body)
		if res.StatusCode != c.status || body["errorCode"] != c.errorCode || body["code"] != c.code || body["message"] == "" {
			t.Errorf("%s: %d %v; want %d %s %s", c.name, res.StatusCode, body, c.status, c.errorCode, c.code)
		}
	}
}

// TestARDRequestBodyIsCappedWhenItsLengthIsNot: a chunked body past
// ard.MaxRequestBytes is cut, not read whole.
func TestARDRequestBodyIsCappedWhenItsLengthIsNot(t *testing.T) {
	n := newARDNode(t)
	pr, pw := io.Pipe() // a body of unknown length goes chunked
	go func() {
		_, _ = io.WriteString(pw, `{"query":{"text":"`+strings.Repeat("w ", ard.MaxRequestBytes)+`"}}`)
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", n.url+"/ard/search", pr)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength, req.TransferEncoding = -1, []string{"chunked"}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var e ard.ErrorBody
	if err := json.NewDecoder(res.Body).Decode(&e); err != nil || res.StatusCode != 413 || e.Code != "body_too_large" {
		t.Fatalf("%d %+v %v", res.StatusCode, e, err)
	}
}

// TestARDManifestAndListPageThroughEverything: the manifest holds at most
// ManifestPageSize entries and links the next page as a nested catalog;
// following the links (and the list's tokens) yields every entry once.
func TestARDManifestAndListPageThroughEverything(t *testing.T) {
	n := newARDNode(t)
	ctx := context.Background()
	for i := range ard.ManifestPageSize + 5 {
		if _, err := n.svc.Publish(ctx, []byte(fmt.Sprintf("# Doc %d\n\nBody %d.\n", i, i)), nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	want := ard.ManifestPageSize + 5 + 2 + 1 // documents, the fixture's two, its agent
	seen := map[string]bool{}
	next, pages := n.url+"/.well-known/ard.json", 0
	for next != "" {
		pages++
		_, m := ardDo(t, "GET", next, "")
		entries := arr(t, m["entries"], "entries")
		if len(entries) > ard.ManifestPageSize+2 {
			t.Fatalf("a manifest page of %d entries", len(entries))
		}
		next = ""
		for _, e := range entries {
			e := checkARDEntry(t, "manifest", e)
			switch e["type"] {
			case ard.TypeCatalog:
				next = e["url"].(string)
			case ard.TypeRegistry:
			default:
				if seen[e["identifier"].(string)] {
					t.Fatalf("%v listed twice", e["identifier"])
				}
				seen[e["identifier"].(string)] = true
			}
		}
	}
	if len(seen) != want || pages != 2 {
		t.Fatalf("the manifest's %d pages list %d entries, want %d", pages, len(seen), want)
	}
	listed, tok := 0, ""
	for {
		_, l := ardDo(t, "GET", n.url+"/ard/agents?pageSize=7&pageToken="+url.QueryEscape(tok), "")
		items := arr(t, l["items"], "items")
		if len(items) > 7 {
			t.Fatalf("a list page of %d", len(items))
		}
		listed += len(items)
		tok, _ = l["pageToken"].(string)
		if tok == "" {
			break
		}
	}
	if listed != want {
		t.Fatalf("the list pages hold %d entries, want %d", listed, want)
	}
}

// ardPeer is a scripted federation peer: it counts searches, keeps the last
// request and its headers, and answers with answer.
type ardPeer struct {
	*httptest.Server
	hits   atomic.Int64
	mu     sync.Mutex
	body   map[string]any
	header http.Header
}

func newPeer(t *testing.T, answer http.HandlerFunc) *ardPeer {
	p := &ardPeer{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.hits.Add(1)
		raw, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		_ = json.Unmarshal(raw, &p.body)
		p.header = r.Header.Clone()
		p.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func peerResultJSON(id string, score int, pad int) string {
	return fmt.Sprintf(`{"identifier":%q,"displayName":"Peer %s","type":"application/a2a-agent-card+json","url":"https://peer.example/%d","score":%d,"source":"https://liar.example","description":%q}`,
		id, id, score, score, strings.Repeat("x", pad))
}

func writeResults(w http.ResponseWriter, results ...string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"results":[%s]}`, strings.Join(results, ","))
}

// TestARDFederationWithHostilePeers: a search federates to the followed
// registries only, keeps what a well-behaved one answers (its invalid
// results dropped), and survives peers that hang, flood, send junk,
// redirect or fail, without ever contacting an address a peer names.
func TestARDFederationWithHostilePeers(t *testing.T) {
	canary := newPeer(t, func(w http.ResponseWriter, r *http.Request) { writeResults(w) })
	good := newPeer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"results":[%s,%s,%s,%s,%s],"referrals":[{"identifier":"urn:air:c.example:r:x","displayName":"C","type":"application/ai-registry+json","url":%q}]}`,
			peerResultJSON("urn:air:peer.example:a:good", 90, 0),
			peerResultJSON("urn:air:peer.example:a:score", 900, 0),
			peerResultJSON("not-a-urn", 50, 0),
			peerResultJSON("urn:air:peer.example:a:huge", 80, ard.MaxPeerEntryBytes),
			`{"identifier":"urn:air:peer.example:a:both","displayName":"B","type":"t","url":"https://p.example","data":{},"score":1}`,
			canary.URL+"/ard")
	})
	release := make(chan struct{})
	slow := newPeer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	huge := newPeer(t, func(w http.ResponseWriter, r *http.Request) {
		writeResults(w, peerResultJSON("urn:air:huge.example:a:b", 10, ard.MaxAnswerBytes))
	})
	junk := newPeer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(`{"results":[{"identifier":`)) })
	redirect := newPeer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, canary.URL+"/ard/search", http.StatusTemporaryRedirect)
	})
	failing := newPeer(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) })

	n := newARDNode(t, good.URL, slow.URL, huge.URL, junk.URL, redirect.URL, failing.URL)
	n.fed.Timeout = 300 * time.Millisecond
	res, s := ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather forecast","filter":{"tags":"weather"}},"pageSize":5}`)
	if res.StatusCode != 200 || res.Header.Get(SkippedPeersHeader) != "5" {
		t.Fatalf("federated search: %d, skipped %q: %v", res.StatusCode, res.Header.Get(SkippedPeersHeader), s)
	}
	rs := arr(t, s["results"], "results")
	var ids []string
	for _, r := range rs {
		e := checkARDResult(t, r)
		ids = append(ids, e["identifier"].(string))
		if strings.HasPrefix(e["identifier"].(string), "urn:air:peer.example") && e["source"] != good.URL+"/ard" {
			t.Fatalf("a peer's result keeps the source it claims: %v", e["source"])
		}
	}
	if fmt.Sprint(ids) != "[urn:air:"+hostOf(n.url)+":agora-protocol:"+n.weather.Hex()+" urn:air:forecaster.example:agora-agent:https urn:air:peer.example:a:good]" {
		t.Fatalf("merged results: %v", ids)
	}
	if canary.hits.Load() != 0 {
		t.Fatal("a peer's referral or redirect made this registry contact another address")
	}
	good.mu.Lock()
	q, _ := json.Marshal(good.body["query"])
	if string(q) != `{"filter":{"tags":"weather"},"text":"weather forecast"}` || good.body["federation"] != "auto" || good.body["pageSize"] != 5.0 ||
		good.header.Get(ard.HopsHeader) != "1" || good.header.Get(ard.ViaHeader) != n.url+"/ard" {
		t.Fatalf("the peer was asked %v with %v", good.body, good.header)
	}
	good.mu.Unlock()

	// referrals and none ask nobody; a request at its last hop (or with a
	// malformed hop count) is not fanned out.
	before := good.hits.Load()
	_, s = ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather"},"federation":"referrals"}`)
	refs := arr(t, s["referrals"], "referrals")
	if len(refs) != 6 || refs[0].(map[string]any)["url"] != good.URL+"/ard" || refs[0].(map[string]any)["type"] != ard.TypeRegistry {
		t.Fatalf("referrals: %v", refs)
	}
	ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather"},"federation":"none"}`)
	ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather"}}`, ard.HopsHeader, fmt.Sprint(ard.MaxHops))
	ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather"}}`, ard.HopsHeader, "many")
	ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather"}}`, ard.ViaHeader, "http://elsewhere/ard "+n.url+"/ard")
	if got := good.hits.Load(); got != before {
		t.Fatalf("%d more requests to the peer", got-before)
	}
}

func hostOf(u string) string {
	p, _ := url.Parse(u)
	return p.Hostname()
}

// TestARDFederationResultsAreBounded: however many results the peers
// send, an answer holds pageSize results and each peer adds at most that.
func TestARDFederationResultsAreBounded(t *testing.T) {
	flood := func(prefix string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var rs []string
			for i := range 300 {
				rs = append(rs, peerResultJSON(fmt.Sprintf("urn:air:%s.example:a:r%d", prefix, i), 99, 0))
			}
			writeResults(w, rs...)
		}
	}
	a, b := newPeer(t, flood("a")), newPeer(t, flood("b"))
	n := newARDNode(t, a.URL, b.URL)
	for _, c := range []struct {
		body string
		want int
	}{
		{`{"query":{"text":"weather"},"pageSize":3}`, 3},
		{`{"query":{"text":"weather"},"pageSize":1000}`, ard.MaxPageSize},
		{`{"query":{"text":"weather"}}`, ard.DefaultPageSize},
	} {
		_, s := ardDo(t, "POST", n.url+"/ard/search", c.body)
		if rs := arr(t, s["results"], "results"); len(rs) != c.want {
			t.Fatalf("%s: %d results, want %d", c.body, len(rs), c.want)
		}
	}
	// pageSize 1000 asks each peer for at most 100: 2 local results + 100 + 100,
	// cut to 100; peers' extra results never reach the merge.
	_, s := ardDo(t, "POST", n.url+"/ard/search", `{"query":{"text":"weather"},"pageSize":1000}`)
	from := map[string]int{}
	for _, r := range arr(t, s["results"], "results") {
		from[r.(map[string]any)["source"].(string)]++
	}
	if from[a.URL+"/ard"] > ard.MaxPageSize || from[b.URL+"/ard"] > ard.MaxPageSize {
		t.Fatalf("results by source: %v", from)
	}
}

// TestARDFederationStopsLoopsAndLongChains: two registries following each
// other answer a search with one request each; along a chain, the
// registry MaxHops steps away asks nobody.
func TestARDFederationStopsLoopsAndLongChains(t *testing.T) {
	tsA, urlA := reserveServer(t)
	tsB, urlB := reserveServer(t)
	a := startARD(t, tsA, urlA, urlB)
	b := startARD(t, tsB, urlB, urlA)
	if res, _ := ardDo(t, "POST", a.url+"/ard/search", `{"query":{"text":"weather"}}`); res.StatusCode != 200 {
		t.Fatal(res.Status)
	}
	if a.searches.Load() != 1 || b.searches.Load() != 1 {
		t.Fatalf("a loop: A answered %d searches, B %d; want 1 each", a.searches.Load(), b.searches.Load())
	}

	var ts [4]*httptest.Server
	var urls [4]string
	for i := range ts {
		ts[i], urls[i] = reserveServer(t)
	}
	var nodes [4]*ardNode
	for i := range nodes {
		var peers []string
		if i+1 < len(urls) {
			peers = []string{urls[i+1]}
		}
		nodes[i] = startARD(t, ts[i], urls[i], peers...)
	}
	ardDo(t, "POST", nodes[0].url+"/ard/search", `{"query":{"text":"weather"}}`)
	for i, want := range []int64{1, 1, 1, 0} {
		if got := nodes[i].searches.Load(); got != want {
			t.Fatalf("registry %d of the chain answered %d searches, want %d", i, got, want)
		}
	}
}

// TestARDLookupCarriesRepresentativeQueries: a protocol whose front matter
// lists representativeQueries is looked up with them, not with queries
// derived from its title.
func TestARDLookupCarriesRepresentativeQueries(t *testing.T) {
	n := newARDNode(t)
	r, err := n.svc.Publish(context.Background(), []byte("---\ntitle: Currency conversion\nrepresentativeQueries:\n  - how many euros is 20 dollars\n  - convert yen to pounds\n---\n\nConvert.\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	_, m := ardDo(t, "GET", n.url+"/.well-known/ard.json", "")
	var id string
	for _, e := range arr(t, m["entries"], "entries") {
		if strings.HasSuffix(e.(map[string]any)["identifier"].(string), ":"+r.Entry.Digest.Hex()) {
			id = e.(map[string]any)["identifier"].(string)
		}
	}
	if id == "" {
		t.Fatal("the protocol is not in the manifest")
	}
	_, got := ardDo(t, "GET", n.url+"/ard/agents/"+url.PathEscape(id), "")
	if q := fmt.Sprint(got["representativeQueries"]); q != "[how many euros is 20 dollars convert yen to pounds]" {
		t.Fatalf("representativeQueries of the lookup: %s", q)
	}
}
