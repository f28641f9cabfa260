package agora

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func newClient(t *testing.T, allow ...string) *Fetcher {
	t.Helper()
	c, err := NewFetcher(FetchPolicy{Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoopbackRefusedUnlessAllowed(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("hello"))
	}))
	defer srv.Close()
	ctx := context.Background()

	_, err := newClient(t).Get(ctx, srv.URL, 100)
	if !errors.Is(err, ErrFetchBlocked) {
		t.Fatalf("loopback fetch without allow-list: err = %v, want ErrFetchBlocked", err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the blocked fetch reached the server")
	}
	u, _ := url.Parse(srv.URL)
	for _, allow := range []string{"127.0.0.0/8", "127.0.0.1", u.Host} {
		body, err := newClient(t, allow).Get(ctx, srv.URL, 100)
		if err != nil || string(body) != "hello" {
			t.Fatalf("allow %q: got %q, %v", allow, body, err)
		}
	}
	// A host:port entry opens that port only.
	_, err = newClient(t, "127.0.0.1:1").Get(ctx, srv.URL, 100)
	if !errors.Is(err, ErrFetchBlocked) {
		t.Fatalf("other port allowed: %v", err)
	}
}

func TestBlockedHostsByName(t *testing.T) {
	// localhost resolves to loopback: the guard sees the resolved address.
	_, err := newClient(t).Get(context.Background(), "http://localhost:9/", 100)
	if !errors.Is(err, ErrFetchBlocked) {
		t.Fatalf("err = %v, want ErrFetchBlocked", err)
	}
	for _, u := range []string{"http://169.254.169.254/latest/meta-data/", "http://10.1.2.3/", "http://100.64.0.1/", "http://[::1]:9/", "http://[::ffff:127.0.0.1]:9/"} {
		if _, err := newClient(t).Get(context.Background(), u, 100); !errors.Is(err, ErrFetchBlocked) {
			t.Errorf("%s: err = %v, want ErrFetchBlocked", u, err)
		}
	}
}

func TestRedirectToBlockedAddressIsRefused(t *testing.T) {
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret")) }))
	defer inner.Close()
	// The outer server is reached through its host:port entry only; its
	// redirect points at another loopback port, which must be refused.
	outer := httptest.NewServer(http.RedirectHandler(inner.URL, http.StatusFound))
	defer outer.Close()
	u, _ := url.Parse(outer.URL)
	_, err := newClient(t, u.Host).Get(context.Background(), outer.URL, 100)
	if !errors.Is(err, ErrFetchBlocked) {
		t.Fatalf("err = %v, want ErrFetchBlocked", err)
	}
}

func TestRedirectLimitAndScheme(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			w.Write([]byte("ok"))
		}
	}))
	defer srv.Close()
	c := newClient(t, "127.0.0.1")
	if _, err := c.Get(context.Background(), srv.URL+"/loop", 100); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Fatalf("redirect loop: %v", err)
	}
	if _, err := c.Get(context.Background(), srv.URL+"/file", 100); !errors.Is(err, ErrFetchScheme) {
		t.Fatalf("file redirect: %v", err)
	}
	if _, err := c.Get(context.Background(), "ftp://127.0.0.1/x", 100); !errors.Is(err, ErrFetchScheme) {
		t.Fatalf("ftp: %v", err)
	}
}

func TestSizeLimitAndStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(strings.Repeat("x", 11)))
	}))
	defer srv.Close()
	c := newClient(t, "127.0.0.1")
	if _, err := c.Get(context.Background(), srv.URL, 10); !errors.Is(err, ErrFetchTooLarge) {
		t.Fatalf("err = %v, want ErrFetchTooLarge", err)
	}
	if b, err := c.Get(context.Background(), srv.URL, 11); err != nil || len(b) != 11 {
		t.Fatalf("exactly at the limit: %d, %v", len(b), err)
	}
	if _, err := c.Get(context.Background(), srv.URL+"/missing", 10); !errors.Is(err, ErrFetchStatus) {
		t.Fatalf("err = %v, want ErrFetchStatus", err)
	}
}

func TestBadAllowEntry(t *testing.T) {
	if _, err := NewFetcher(FetchPolicy{Allow: []string{"http://x/"}}); err == nil {
		t.Fatal("malformed allow entry accepted")
	}
}

// fetcher.HTTP alone classifies transport failures in words fit for a
// stranger, as Get does: the API client relays them.
func TestHTTPClientClassifiesTransportFailures(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	u, _ := url.Parse(dead.URL)
	dead.Close() // nothing listens there any more
	c := newClient(t, u.Host)
	resp, err := c.HTTP.Get(dead.URL)
	if err == nil {
		resp.Body.Close()
		t.Fatal("a closed port answered")
	}
	e := asError(err)
	if e == nil || e.Code != ErrFetchFailed.Code || e.Message != "the connection was refused" || strings.Contains(e.Message, u.Port()) {
		t.Fatalf("err = %v, want %s with a message naming no address", err, ErrFetchFailed.Code)
	}
}
