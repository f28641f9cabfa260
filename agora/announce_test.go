package agora

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// A directory stub that refuses the first two registrations, then crawls
// the agent's /.wellknown on each one and reports what it saw.
func TestAnnouncerRetriesAndReannouncesOnChange(t *testing.T) {
	_, d := weatherDoc(t)
	h, agentURL := startBob(t, weatherConfig(d))
	var posts atomic.Int32
	seen := make(chan int, 10)
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/agents" || r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "unexpected", http.StatusBadRequest)
			return
		}
		var body struct{ URL string }
		json.NewDecoder(r.Body).Decode(&body)
		if posts.Add(1) <= 2 {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		wk, err := FetchWellKnown(r.Context(), http.DefaultClient, body.URL)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		seen <- len(wk.Supported)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(Agent{ID: 1, URL: body.URL, SupportedCount: len(wk.Supported)})
	}))
	t.Cleanup(reg.Close)
	client, err := NewRegistry(reg.URL, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	client.Token = "tok"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	a := &Announcer{Registry: client, URL: agentURL, Handler: h, MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	go func() { a.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	if n := wait(t, seen); n != 1 || posts.Load() != 3 {
		t.Fatalf("first announcement saw %d protocols after %d posts", n, posts.Load())
	}
	other := Digest{1}
	h.Handle(other, weather)
	if n := wait(t, seen); n != 2 {
		t.Fatalf("after a change the registry saw %d protocols", n)
	}
	if err := h.Refuse(Digest{2}); err != nil {
		t.Fatal(err)
	}
	wait(t, seen)
	select {
	case n := <-seen:
		t.Fatalf("an announcement without a change (saw %d)", n)
	case <-time.After(100 * time.Millisecond):
	}
}

func wait(t *testing.T, c <-chan int) int {
	t.Helper()
	select {
	case n := <-c:
		return n
	case <-time.After(20 * time.Second):
		t.Fatal("no announcement")
		return 0
	}
}
