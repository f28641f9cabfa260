package directory

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/store/sqlite"
)

// TestEveryonesQueueIsBounded: past maxQueued registrations under way, all
// clients together, a new one is refused with 503 directory_busy instead
// of held in memory.
func TestEveryonesQueueIsBounded(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	d, err := New(st, Config{Allow: []string{"127.0.0.1/32"}, RegisterWait: 20 * time.Millisecond, Timeout: time.Minute,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	d.maxQueued = 2
	stop := make(chan struct{})
	var urls []string
	for range 3 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-stop:
			case <-r.Context().Done():
			}
			http.NotFound(w, r)
		}))
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	t.Cleanup(func() { close(stop) })
	for i, client := range []string{"192.0.2.1", "192.0.2.2"} {
		if r, err := d.Submit(context.Background(), urls[i], client); err != nil || !r.Pending {
			t.Fatalf("registration %d: %+v, %v", i, r, err)
		}
	}
	if _, err := d.Submit(context.Background(), urls[2], "192.0.2.3"); !errors.Is(err, ErrBusy) {
		t.Fatalf("past everyone's queue: %v", err)
	}
	if r, err := d.Submit(context.Background(), urls[0]+"/x", "192.0.2.3"); err != nil || !r.Pending {
		t.Fatalf("joining a crawl under way takes no place: %+v, %v", r, err)
	}
}
