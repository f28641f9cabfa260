package html_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// TestSearchOperators: tag:, publisher: and status: in the API's q and the
// search box filter the search with the example protocols; a bad status is
// a 400 saying what to use; other words with a colon are plain words.
func TestSearchOperators(t *testing.T) {
	srv := startServer(t, serverOptions{examples: true})
	ctx := context.Background()
	_, err := srv.svc.PublishRequest(ctx, registry.PublishRequest{Publisher: "acme",
		Content: []byte("---\nname: Weather warnings\ndescription: Severe weather warnings.\ntags: [weather]\n---\n\nBody.\n")})
	if err != nil {
		t.Fatal(err)
	}
	old, err := srv.svc.PublishRequest(ctx, registry.PublishRequest{Publisher: "acme",
		Content: []byte("---\nname: Weather warnings old\ntags: [weather]\n---\n\nBody.\n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.st.SetStatus(ctx, old.Entry.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "acme"}); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv.URL)
	search := func(q string) (titles []string, total int) {
		t.Helper()
		resp, body := c.get("/api/v1/protocols?q="+url.QueryEscape(q), "application/json")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("q=%s: %d %s", q, resp.StatusCode, body)
		}
		var out struct {
			Items []struct {
				Title string `json:"title"`
			} `json:"items"`
			Total *int `json:"total"`
		}
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			titles = append(titles, it.Title)
		}
		if out.Total == nil {
			t.Fatalf("q=%s: no total in %s", q, body)
		}
		slices.Sort(titles)
		return titles, *out.Total
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"tag:currency", []string{"Currency Conversion v1"}},
		{"tag:currency conversion", []string{"Currency Conversion v1"}},
		{"publisher:examples weather", []string{"Weather Protocol v1"}},
		{"publisher:acme weather", []string{"Weather warnings", "Weather warnings old"}},
		{"status:deprecated", []string{"Weather warnings old"}},
		{"status:active publisher:acme", []string{"Weather warnings"}},
		{"foo:bar", nil},
	} {
		got, total := search(c.q)
		if !slices.Equal(got, c.want) || total != len(c.want) {
			t.Errorf("q=%s: %v (total %d), want %v", c.q, got, total, c.want)
		}
	}
	if got, _ := search("weather"); len(got) < 3 {
		t.Errorf("q=weather without operators finds %v", got)
	}

	resp, body := c.get("/api/v1/protocols?q="+url.QueryEscape("weather status:retired"), "application/json")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "status:active or status:deprecated") || !strings.Contains(body, `"invalid_request"`) {
		t.Errorf("status:retired: %d %s, want a 400 saying which statuses there are", resp.StatusCode, body)
	}

	// The search box: the same filters, links that keep the operators.
	resp, body = c.get("/protocols?q="+url.QueryEscape("tag:currency"), htmlAccept)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "Currency Conversion v1") || strings.Contains(body, "Weather Protocol v1") {
		t.Errorf("/protocols?q=tag:currency: %d, want Currency Conversion alone", resp.StatusCode)
	}
	resp, body = c.get("/protocols?q="+url.QueryEscape("status:retired"), htmlAccept)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "status:active or status:deprecated") {
		t.Errorf("/protocols?q=status:retired: %d, want a 400 with the message beside the box", resp.StatusCode)
	}
	resp, body = c.get("/protocols?q="+url.QueryEscape("publisher:acme"), htmlAccept)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "q=publisher%3Aacme") {
		t.Errorf("/protocols?q=publisher:acme: %d, want links keeping the operator", resp.StatusCode)
	}
	resp, body = c.get("/protocols?q="+url.QueryEscape("publisher:acme zzzqqq"), htmlAccept)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "<code>tag:currency</code>") {
		t.Errorf("an empty search: %d, want the operators among the hints", resp.StatusCode)
	}
}
