package api

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

func TestHTMLSearchSharesTheHeavyRequestBound(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	pages := &fakePages{}
	s := New(registry.New(st, registry.Config{}), Config{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), MaxHeavyRequests: 1, HeavyQueueWait: 1,
	}, WithPages(pages))
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)

	s.heavy.slots <- struct{}{} // one search in flight
	res, body := get(t, ts.URL+"/protocols?q=x", "text/html")
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
		t.Fatalf("HTML search with the gate full: %d Retry-After=%q %s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	s.heavy.release()
	if res, body := get(t, ts.URL+"/protocols?q=x", "text/html"); res.StatusCode != 200 {
		t.Fatalf("after release: %d %s", res.StatusCode, body)
	}
}
