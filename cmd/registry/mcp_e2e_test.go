package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The MCP tools, driven by the SDK's own client: over stdio from
// `registry mcp` against a running registry, and over streamable HTTP at
// the registry's /mcp. Both answer the same.
func TestMCPWithTheSDKClient(t *testing.T) {
	srv := startServer(t, "--data-dir", filepath.Join(t.TempDir(), "data")) // seeded with the examples
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	for name, transport := range map[string]mcp.Transport{
		"stdio": &mcp.CommandTransport{Command: exec.Command(binary, "mcp", "--registry", srv.URL)},
		"http":  &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true},
	} {
		t.Run(name, func(t *testing.T) {
			cs, err := client.Connect(ctx, transport, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
				if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
					t.Errorf("tool %s is not marked read-only", tool.Name)
				}
			}
			slices.Sort(names)
			if strings.Join(names, ",") != "find_agents,get_protocol,match_task,resolve_hashes,search_protocols" {
				t.Fatalf("tools %v", names)
			}
			call := func(tool string, args map[string]any) (string, bool) {
				t.Helper()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				return res.Content[0].(*mcp.TextContent).Text, res.IsError
			}
			found, _ := call("search_protocols", map[string]any{"query": "weather"})
			if !strings.Contains(found, `"title":"Weather`) {
				t.Fatalf("search_protocols: %s", found)
			}
			hex := found[strings.Index(found, `"hex":"`)+7:][:40]
			if got, _ := call("get_protocol", map[string]any{"hash": hex, "content": true}); !strings.Contains(got, `"content":"`) {
				t.Fatalf("get_protocol: %.300s", got)
			}
			if got, _ := call("resolve_hashes", map[string]any{"hashes": []string{hex, "nope"}}); !strings.Contains(got, `"found":true`) || !strings.Contains(got, "malformed_hash") {
				t.Fatalf("resolve_hashes: %s", got)
			}
			if got, _ := call("find_agents", map[string]any{"speaks": hex}); !strings.Contains(got, `"items":[]`) {
				t.Fatalf("find_agents: %s", got)
			}
			if got, _ := call("match_task", map[string]any{"task": "weather forecast for a city",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}); !strings.Contains(got, `"reasons":[`) || !strings.Contains(got, hex) {
				t.Fatalf("match_task: %s", got)
			}
			if got, isErr := call("get_protocol", map[string]any{"hash": "zz"}); !isErr || !strings.Contains(got, "malformed_hash") {
				t.Fatalf("a malformed hash: %v %s", isErr, got)
			}
		})
	}
}
