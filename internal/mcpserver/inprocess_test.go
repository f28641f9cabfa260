package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The /mcp handler asks the registry's handler in-process, as the MCP
// caller (its address, so per-client limits apply), and a refusal becomes
// a tool error carrying the registry's code.
func TestHandlerAsksInProcessAsTheCaller(t *testing.T) {
	var (
		mu    sync.Mutex
		peers []string
	)
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		peers = append(peers, r.RemoteAddr)
		mu.Unlock()
		if r.URL.Path == "/api/v1/agents" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"type":"about:blank","title":"Too Many Requests","status":429,"code":"rate_limited","detail":"slow down"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[],"nextCursor":null,"path":"`+r.URL.RequestURI()+`"}`)
	})
	h, err := Handler("http://registry.in-process", api, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.URL, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_protocols", Arguments: map[string]any{"query": "a b", "tags": []string{"x", "y"}, "limit": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.Contains(got, `/api/v1/protocols?limit=3\u0026q=a+b\u0026tag=x\u0026tag=y`) && !strings.Contains(got, `/api/v1/protocols?limit=3&q=a+b&tag=x&tag=y`) {
		t.Fatalf("search_protocols asked %s", got)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "find_agents", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; !res.IsError || !strings.HasPrefix(got, "rate_limited") {
		t.Fatalf("a refusal: %v %s", res.IsError, got)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range peers {
		if !strings.HasPrefix(p, "127.0.0.1:") || p == "127.0.0.1:0" {
			t.Fatalf("in-process requests came from %q, not the MCP caller's address", p)
		}
	}
}
