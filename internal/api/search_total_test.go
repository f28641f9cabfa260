package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// TestSearchAnswersTotalsAndSuggestions: a search page says how many
// results there are (total, or estimatedTotal past what a summary reads),
// respells a misspelt search that found nothing, and marks superseded
// versions.
func TestSearchAnswersTotalsAndSuggestions(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := registry.New(st, registry.Config{PublicURL: "http://registry.test"})
	publish := func(doc string) entity.Entry {
		t.Helper()
		res, err := svc.PublishRequest(ctx, registry.PublishRequest{Content: []byte(doc), Publisher: "acme"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Entry
	}
	v1 := publish("---\nname: Weather forecast\ntags: [weather]\n---\n\nBody.\n")
	publish(fmt.Sprintf("---\nname: Weather forecast v2\ntags: [weather]\nsupersedes: %s\n---\n\nBody.\n", v1.Digest.Hex()))
	ts := httptest.NewServer(New(svc, Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	t.Cleanup(ts.Close)

	search := func(query string) (out struct {
		Items []struct {
			Hex        string `json:"hex"`
			Superseded bool   `json:"superseded"`
		} `json:"items"`
		Total          *int   `json:"total"`
		EstimatedTotal *int   `json:"estimatedTotal"`
		Suggestion     string `json:"suggestion"`
	}) {
		t.Helper()
		res, body := get(t, ts.URL+"/api/v1/protocols?"+query, "")
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", query, res.StatusCode, body)
		}
		if err := json.Unmarshal([]byte(body), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	got := search("q=weath")
	if got.Total == nil || *got.Total != 2 || got.EstimatedTotal != nil || len(got.Items) != 2 || got.Suggestion != "" {
		t.Fatalf("q=weath: %+v", got)
	}
	if got.Items[0].Superseded || !got.Items[1].Superseded || got.Items[1].Hex != v1.Digest.Hex() {
		t.Fatalf("q=weath: the superseded version is not last and marked: %+v", got.Items)
	}
	if got := search("q=wether"); got.Total == nil || *got.Total != 0 || got.Suggestion != "weather" {
		t.Fatalf("q=wether: %+v", got)
	}

	var batch []store.NewDocument
	for i := range store.MaxCountRows + 10 {
		batch = append(batch, prepareDoc(t, fmt.Sprintf("---\nname: Bulk %d\n---\n\nPlenty of text.\n", i)))
	}
	if _, err := st.PutMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	if got := search("q=plenty"); got.Total != nil || got.EstimatedTotal == nil || *got.EstimatedTotal <= store.MaxCountRows {
		t.Fatalf("q=plenty over %d matches: %+v", store.MaxCountRows+10, got)
	}
	if got := search(""); got.Total == nil || *got.Total != store.MaxCountRows+12 {
		t.Fatalf("the whole listing: %+v", got)
	}
}

func prepareDoc(t *testing.T, content string) store.NewDocument {
	t.Helper()
	doc, err := protocol.Prepare([]byte(content), 0)
	if err != nil {
		t.Fatal(err)
	}
	return store.NewDocument{Document: doc}
}
