package directory

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/store"
)

func TestParseFlatSeedShape(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	raw := `{"` + a + `": ["s1", 7, "s2"], "` + b + `": "not a list", "_unsupported": ["` + b + `", "junk", "` + strings.Repeat("c", 40) + `"],
		"_meta": {"name": "Bob\u001b[31m", "description": "d", "kinds": ["x", "x", 3, "y"]}}`
	c, err := parseFlat([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "Bob[31m" || c.Description != "d" || fmt.Sprint(c.Kinds) != "[x y]" {
		t.Fatalf("meta: %+v", c)
	}
	if len(c.Supported) != 2 || fmt.Sprint(c.Supported[0].Sources) != "[s1 s2]" || len(c.Supported[1].Sources) != 0 {
		t.Fatalf("supported: %+v", c.Supported)
	}
	// b is listed both ways: supported wins.
	if len(c.Unsupported) != 1 || c.Unsupported[0].Hex() != strings.Repeat("c", 40) {
		t.Fatalf("unsupported: %+v", c.Unsupported)
	}
	if err := store.CheckCrawl(c); err != nil {
		t.Fatal(err)
	}
}

// A list over the limits is cut to them, keeping the same hashes every time.
func TestParseCutsToLimits(t *testing.T) {
	list := map[string][]string{}
	for i := range store.MaxAgentProtocols + 50 {
		var sources []string
		for j := range store.MaxAgentSources + 3 {
			sources = append(sources, fmt.Sprintf("https://s/%d/%d", i, j))
		}
		list[fmt.Sprintf("%040x", i)] = sources
	}
	raw, _ := json.Marshal(map[string]any{"supported": list, "name": strings.Repeat("n", 500)})
	first, err := parseStructured(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Supported) != store.MaxAgentProtocols || len(first.Supported[0].Sources) != store.MaxAgentSources || len([]rune(first.Name)) != store.MaxAgentNameRunes {
		t.Fatalf("not cut: %d hashes, %d sources", len(first.Supported), len(first.Supported[0].Sources))
	}
	if first.Supported[0].Digest.Hex() != fmt.Sprintf("%040x", 0) || first.Supported[len(first.Supported)-1].Digest.Hex() != fmt.Sprintf("%040x", store.MaxAgentProtocols-1) {
		t.Fatal("the cut does not keep the lowest hashes")
	}
	if err := store.CheckCrawl(first); err != nil {
		t.Fatal(err)
	}
	if _, err := parseStructured([]byte(`{"name": "no supported"}`)); err == nil {
		t.Fatal("a structured list without supported was read")
	}
}
