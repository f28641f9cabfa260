package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestREADMEListsEveryTool: the README's MCP section names every tool the
// server has, with an example call that is a JSON object of the tool's
// own arguments, and its mcpServers blocks are JSON.
func TestREADMEListsEveryTool(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	go New(nil).Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		row := regexp.MustCompile("(?m)^\\| `" + tool.Name + "` \\|.*\\| `(\\{.*\\})` \\|$").FindStringSubmatch(readme)
		if row == nil {
			t.Errorf("the README's tool table has no row with an example call for %s", tool.Name)
			continue
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(row[1]), &args); err != nil {
			t.Errorf("%s's example %s is not a JSON object: %v", tool.Name, row[1], err)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		for k := range args {
			if !strings.Contains(string(schema), `"`+k+`"`) {
				t.Errorf("%s's example passes %q, which the tool does not take", tool.Name, k)
			}
		}
	}
	blocks := regexp.MustCompile("(?s)```json\n(\\{\n  \"mcpServers\".*?)```").FindAllStringSubmatch(readme, -1)
	if len(blocks) < 2 {
		t.Fatalf("the README shows %d mcpServers blocks, want stdio and HTTP", len(blocks))
	}
	for _, b := range blocks {
		if !json.Valid([]byte(b[1])) {
			t.Errorf("mcpServers block is not JSON:\n%s", b[1])
		}
	}
}
