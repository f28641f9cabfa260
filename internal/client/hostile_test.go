package client_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/protocol"
)

// hostile is a real server answering every request with answer.
func hostile(t *testing.T, answer http.HandlerFunc) *client.Client {
	t.Helper()
	srv := httptest.NewServer(answer)
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL, "")
	c.MaxBytes = 100
	return c
}

func TestFetchRefusesOversizedAnswers(t *testing.T) {
	big := bytes.Repeat([]byte("a"), 101)
	announced := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write(big) })
	chunked := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush() // no Content-Length to go by
		for range 1000 {
			if _, err := w.Write(big); err != nil {
				return
			}
		}
	})
	d := digestOf(t, big)
	for name, c := range map[string]*client.Client{"announced": announced, "chunked": chunked} {
		_, err := c.Fetch(context.Background(), d)
		if !errors.Is(err, client.ErrTooLarge) || apperr.KindOf(err) != apperr.TooLarge {
			t.Errorf("%s: err = %v, want too large", name, err)
		}
	}
	// Exactly at the cap is fine.
	exact := big[:100]
	at := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write(exact) })
	if got, err := at.Fetch(context.Background(), digestOf(t, exact)); err != nil || !bytes.Equal(got, exact) {
		t.Fatalf("at the cap: %q, %v", got, err)
	}
	// MaxDocumentBytes caps documents apart from JSON answers.
	at.MaxDocumentBytes = 99
	if _, err := at.Fetch(context.Background(), digestOf(t, exact)); !errors.Is(err, client.ErrTooLarge) {
		t.Fatalf("MaxDocumentBytes not applied: %v", err)
	}
}

func TestFetchRefusesWrongBytes(t *testing.T) {
	liar := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("# Not what you asked for\n")) })
	got, err := liar.Fetch(context.Background(), digestOf(t, doc))
	if !errors.Is(err, protocol.ErrHashMismatch) || got != nil {
		t.Fatalf("got %q, err %v; want a hash mismatch and no bytes", got, err)
	}
}

func TestProblemDocumentsBecomeErrors(t *testing.T) {
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"type":"x","title":"Too Many Requests","status":429,"code":"rate_limited","detail":"slow down\u001b[2J\nforged log line ` + strings.Repeat("x", 1000) + `"}`))
	})
	_, err := c.Publish(context.Background(), doc)
	e := wantAnswer(t, err, http.StatusTooManyRequests, "rate_limited")
	if apperr.KindOf(err) != apperr.RateLimited {
		t.Fatalf("kind %v, want rate limited", apperr.KindOf(err))
	}
	if strings.ContainsAny(e.Message, "\x1b\n") || len([]rune(e.Message)) > 301 || !strings.HasPrefix(e.Message, "slow down") {
		t.Fatalf("the stranger's detail is not tamed: %q", e.Message)
	}

	// Not a problem document: the status alone, classified.
	plain := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>boom</html>", http.StatusBadGateway)
	})
	_, err = plain.Resolve(context.Background(), []protocol.Digest{digestOf(t, doc)})
	if e := wantAnswer(t, err, http.StatusBadGateway, ""); apperr.KindOf(e) != apperr.Unavailable || strings.Contains(e.Error(), "boom") {
		t.Fatalf("err %v (kind %v)", e, apperr.KindOf(e))
	}
}

func TestBadJSONAnswer(t *testing.T) {
	c := hostile(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"results": [`)) })
	if _, err := c.Resolve(context.Background(), []protocol.Digest{digestOf(t, doc)}); !errors.Is(err, client.ErrBadAnswer) {
		t.Fatalf("err = %v, want a bad answer", err)
	}
	huge := hostile(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"items": [` + strings.Repeat(`{},`, 100) + `{}]}`))
	})
	if _, err := huge.Search(context.Background(), client.Query{}); !errors.Is(err, client.ErrTooLarge) {
		t.Fatalf("err = %v, want too large", err)
	}
}

func TestUnreachableNamesNoAddress(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there any more
	_, err := newClient(t, base, "").Fetch(context.Background(), digestOf(t, doc))
	if !errors.Is(err, client.ErrUnreachable) || apperr.KindOf(err) != apperr.Unavailable {
		t.Fatalf("err = %v, want unreachable", err)
	}
	if msg := apperr.As(err).Message; strings.Contains(msg, strings.TrimPrefix(base, "http://")) {
		t.Fatalf("the message %q names the address", msg)
	}
}

func TestNewChecksTheBaseURL(t *testing.T) {
	for _, bad := range []string{"", "ftp://example.org", "registry.example.org", "http://x/?q=1", "http://x/#f", "http:///path"} {
		if _, err := client.New(bad, http.DefaultClient); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	if _, err := client.New("http://x", nil); err == nil {
		t.Error("New accepted no http.Client")
	}
	c, err := client.New("https://user:secret@a.example/reg/", http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	d := digestOf(t, doc)
	if c.Origin() != "https://a.example/reg" || c.RawURL(d) != "https://a.example/reg/protocol/"+d.Hex() {
		t.Fatalf("origin %q, raw URL %q (credentials must not show)", c.Origin(), c.RawURL(d))
	}
}
