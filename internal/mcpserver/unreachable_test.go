package mcpserver

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agora-registry/registry/internal/client"
)

// TestUnreachableRegistryIsNamed: against a registry that is down, a
// tool's error names the registry's URL and what to do.
func TestUnreachableRegistryIsNamed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	c, err := client.New(base, client.NewHTTP(5*time.Second, 0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv := New(namedAPI{c, c.Origin()})
	go srv.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_protocol", Arguments: map[string]any{"hash": strings.Repeat("ab", 20)}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || !strings.HasPrefix(text, "registry_unreachable: ") || !strings.Contains(text, base) || !strings.Contains(text, "--registry") {
		t.Errorf("tool error = %q", text)
	}
}
