package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

var doc = []byte("---\nname: Client Test\ndescription: Published through internal/client.\ntags: [clienttest]\n---\n\n# Client Test\n")

// liveRegistry is the real API handler over a real socket, with a publish
// and an admin token.
type liveRegistry struct {
	url, publishToken, adminToken string
}

func startRegistry(t *testing.T) liveRegistry {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "registry.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.New(st, registry.Config{PublicURL: "http://registry.test", Logger: log})
	s := api.New(svc, api.Config{Logger: log}, api.WithAuthenticator(api.NewAuthenticator(svc, false)))
	srv := httptest.NewServer(s.Echo())
	t.Cleanup(srv.Close)
	pub, err := svc.CreateToken(ctx, "publisher", []entity.Scope{entity.ScopePublish})
	if err != nil {
		t.Fatal(err)
	}
	adm, err := svc.CreateToken(ctx, "admin", []entity.Scope{entity.ScopeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	return liveRegistry{url: srv.URL, publishToken: pub.Secret, adminToken: adm.Secret}
}

func newClient(t *testing.T, base, token string) *client.Client {
	t.Helper()
	c, err := client.New(base, client.NewHTTP(5*time.Second, 3))
	if err != nil {
		t.Fatal(err)
	}
	c.Token = token
	return c
}

func digestOf(t *testing.T, b []byte) protocol.Digest {
	t.Helper()
	sums, err := protocol.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	return sums.SHA1
}

// wantAnswer checks err is the registry's answer with this status and code.
func wantAnswer(t *testing.T, err error, status int, code string) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) || e.Status != status || e.Code != code {
		t.Fatalf("err = %v, want HTTP %d %s", err, status, code)
	}
	return e
}

func TestAgainstTheRealRegistry(t *testing.T) {
	reg := startRegistry(t)
	ctx := context.Background()
	d := digestOf(t, doc)
	publisher := newClient(t, reg.url, reg.publishToken)

	p, err := publisher.Publish(ctx, doc)
	if err != nil || !p.Created || p.Hex != d.Hex() || p.Title != "Client Test" || len(p.Sources) == 0 {
		t.Fatalf("publish: %+v, %v", p, err)
	}
	if again, err := publisher.Publish(ctx, doc); err != nil || again.Created || again.Hex != d.Hex() {
		t.Fatalf("republish: %+v, %v", again, err)
	}

	anonymous := newClient(t, reg.url, "")
	if got, err := anonymous.Fetch(ctx, d); err != nil || !bytes.Equal(got, doc) {
		t.Fatalf("fetch: %q, %v", got, err)
	}
	meta, err := anonymous.Get(ctx, d, true)
	if err != nil || meta.Hex != d.Hex() || meta.Content == nil || *meta.Content != string(doc) || meta.Description != "Published through internal/client." {
		t.Fatalf("get: %+v, %v", meta, err)
	}
	page, err := anonymous.Search(ctx, client.Query{Text: "client", Tags: []string{"clienttest"}, Limit: 5})
	if err != nil || len(page.Items) != 1 || page.Items[0].Hex != d.Hex() {
		t.Fatalf("search: %+v, %v", page, err)
	}
	unknown := digestOf(t, []byte("# unknown\n"))
	res, err := anonymous.Resolve(ctx, []protocol.Digest{d, unknown})
	if err != nil || len(res) != 2 || !res[0].Found || res[0].Hex != d.Hex() || len(res[0].Sources) == 0 || res[1].Found {
		t.Fatalf("resolve: %+v, %v", res, err)
	}

	// Scopes are the registry's: its refusal comes back with its code.
	_, err = anonymous.Publish(ctx, doc)
	wantAnswer(t, err, http.StatusUnauthorized, "missing_token")
	err = publisher.Withdraw(ctx, d, "test")
	wantAnswer(t, err, http.StatusForbidden, "insufficient_scope")
	if apperr.KindOf(err) != apperr.Forbidden {
		t.Fatalf("kind %v, want forbidden", apperr.KindOf(err))
	}
	if err := newClient(t, reg.url, reg.adminToken).Withdraw(ctx, d, "superseded"); err != nil {
		t.Fatalf("withdraw: %v", err)
	}
	_, err = anonymous.Fetch(ctx, d)
	wantAnswer(t, err, http.StatusGone, store.ErrWithdrawn.Code)
	if !errors.Is(err, store.ErrWithdrawn) || apperr.KindOf(err) != apperr.Gone {
		t.Fatalf("a withdrawn document is not store.ErrWithdrawn: %v", err)
	}
	if res, err := anonymous.Resolve(ctx, []protocol.Digest{d}); err != nil || len(res) != 1 || !res[0].Withdrawn {
		t.Fatalf("resolve after withdraw: %+v, %v", res, err)
	}
	_, err = anonymous.Get(ctx, unknown, false)
	wantAnswer(t, err, http.StatusNotFound, store.ErrNotFound.Code)
	if apperr.KindOf(err) != apperr.NotFound {
		t.Fatalf("kind %v, want not found", apperr.KindOf(err))
	}
}
