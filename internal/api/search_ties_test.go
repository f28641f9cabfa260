package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/agora-registry/registry/internal/registry"
)

// TestSearchTiesInNaturalOrder: versions with the same text, equal in
// relevance, list v1, v2 … v9, v10 … through the API's pages, with words
// or operators in q, not newest first.
func TestSearchTiesInNaturalOrder(t *testing.T) {
	ctx := context.Background()
	ts, svc := newServer(t, Config{}, nil)
	var want []string
	for i := 1; i <= 12; i++ {
		want = append(want, fmt.Sprintf("Weather Alert v%d", i))
	}
	for _, i := range []int{5, 12, 1, 10, 3, 9, 7, 2, 11, 4, 8, 6} {
		doc := fmt.Sprintf("---\nname: Weather Alert v%d\ndescription: Severe weather alerts\ntags: [alerts]\n---\n\nAn alert.\n", i)
		if _, err := svc.PublishRequest(ctx, registry.PublishRequest{Content: []byte(doc), Publisher: "acme"}); err != nil {
			t.Fatal(err)
		}
	}

	for _, q := range []string{"weather alert", "weather", "weather tag:alerts", "alert publisher:acme status:active"} {
		var titles []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > 20 {
				t.Fatalf("%q: paging does not end", q)
			}
			res, body := get(t, ts.URL+"/api/v1/protocols?limit=5&q="+url.QueryEscape(q)+"&cursor="+url.QueryEscape(cursor), "")
			if res.StatusCode != 200 {
				t.Fatalf("%q: %d %s", q, res.StatusCode, body)
			}
			var page SearchResult
			if err := json.Unmarshal([]byte(body), &page); err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				titles = append(titles, it.Title)
			}
			if page.NextCursor == nil {
				break
			}
			cursor = *page.NextCursor
		}
		if !slices.Equal(titles, want) {
			t.Fatalf("%q in pages of 5: %q, want %q", q, titles, want)
		}
	}
}
