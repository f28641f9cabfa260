package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/agora/agoratest"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// POST /api/v1/match with a model: each client (by the address the IP
// extractor believes, an IPv6 client by its /64) gets its share of
// re-ranks, the registry its total; past them the answer is 200 in the
// deterministic order with reranked: false, rerankSkipped and the header.
func TestMatchRerankBudgetPerClient(t *testing.T) {
	ctx := context.Background()
	llm := agoratest.NewTextLLM(t, func([]agoratest.Message) string { return "[2, 1]" })
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := registry.New(st, registry.Config{PublicURL: "http://registry.test", MatchLLM: registry.MatchLLM{
		Model:     &agora.LLM{BaseURL: llm.BaseURL(), Model: "scripted", MaxResponse: registry.MaxRerankAnswerBytes},
		PerMinute: 3, ClientPerMinute: 1}})
	for _, doc := range []string{"# Weather forecast\n\nAsk for it.\n", "# Sky log\n\nIt keeps the weather of each night.\n"} {
		if _, err := svc.Publish(ctx, []byte(doc), nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ts := httptest.NewServer(New(svc, Config{Logger: log, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}).Handler())
	t.Cleanup(ts.Close)

	n := 0
	match := func(client string) (MatchResult, string) {
		t.Helper()
		n++ // a task of its own each time: no cached re-rank
		req, _ := http.NewRequest("POST", ts.URL+"/api/v1/match", strings.NewReader(fmt.Sprintf(`{"task": "weather forecast zq%d"}`, n)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", client)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var out MatchResult
		if res.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil || len(out.Items) != 2 {
			t.Fatalf("match from %s: %d %s", client, res.StatusCode, body)
		}
		if (out.RerankSkipped == "") != out.Reranked || (out.RankedBy == "llm") != out.Reranked {
			t.Fatalf("match from %s: %s", client, body)
		}
		if !strings.Contains(string(body), `"reranked":`) {
			t.Fatalf("no reranked field: %s", body)
		}
		return out, res.Header.Get(RerankSkippedHeader)
	}
	for i := range 10 {
		res, header := match("198.51.100.7")
		if i == 0 && !res.Reranked || i > 0 && (res.RerankSkipped != registry.SkipClientBudget || header != registry.SkipClientBudget) {
			t.Fatalf("match %d of one client: reranked %v, skipped %q, header %q", i, res.Reranked, res.RerankSkipped, header)
		}
	}
	if res, header := match("2001:db8:1:1::1"); !res.Reranked || header != "" {
		t.Fatalf("another client: reranked %v, skipped %q, header %q", res.Reranked, res.RerankSkipped, header)
	}
	if res, _ := match("2001:db8:1:1::2"); res.RerankSkipped != registry.SkipClientBudget {
		t.Fatalf("the same /64 is the same client: reranked %v, skipped %q", res.Reranked, res.RerankSkipped)
	}
	if res, _ := match("203.0.113.9"); !res.Reranked {
		t.Fatalf("a third client: reranked %v, skipped %q", res.Reranked, res.RerankSkipped)
	}
	if res, header := match("203.0.113.10"); res.RerankSkipped != registry.SkipBudget || header != registry.SkipBudget {
		t.Fatalf("past the registry's total: reranked %v, skipped %q, header %q", res.Reranked, res.RerankSkipped, header)
	}
	if n := len(llm.Calls()); n != 3 {
		t.Fatalf("%d completions, the budget is 3", n)
	}
	// The first task again: the model's order from the cache, budget or not.
	n = 0
	if res, header := match("198.51.100.7"); !res.Reranked || header != "" {
		t.Fatalf("a cached re-rank: reranked %v, skipped %q", res.Reranked, res.RerankSkipped)
	}
	if n := len(llm.Calls()); n != 3 {
		t.Fatalf("a cache hit made a completion (%d)", n)
	}
	_, metrics := get(t, ts.URL+"/metrics", "")
	for _, want := range []string{`registry_match_reranks_total{outcome="llm"} 3`, `registry_match_reranks_total{outcome="client_budget"} 10`,
		`registry_match_reranks_total{outcome="budget"} 1`, `registry_match_reranks_total{outcome="cached"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("no %s in\n%s", want, grepLines(metrics, "registry_match_reranks_total"))
		}
	}
}
