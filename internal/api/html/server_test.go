package html_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/agora-registry/registry/examples"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/api/html"
	"github.com/agora-registry/registry/internal/auth"
	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/render"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/testing/pgtest"
	"github.com/agora-registry/registry/internal/translog"
)

// testServer is the real registry server (API + pages over the embedded
// SQLite store) on a real loopback socket.
type testServer struct {
	URL  string
	svc  *registry.Service
	dir  *directory.Directory // the agent directory (loopback agents allowed)
	log  *translog.Log        // with serverOptions.log
	st   store.Store
	auth *auth.OIDC // with serverOptions.signIn
}

type serverOptions struct {
	openPublish bool
	examples    bool
	documents   *render.Documents // nil: the default renderer
	publicURL   string            // "": the server's own address
	log         bool              // keep a transparency log (integrate with srv.log.Integrate)
	postgres    bool              // the PostgreSQL engine (a throw-away database) instead of SQLite
	// signIn, when set, makes the sign-in the pages offer, over the
	// server's store and public URL.
	signIn     func(t testing.TB, st auth.Store, publicURL string) *auth.OIDC
	private    bool // --private
	cacheBytes int  // the raw documents' cache (registry.Config.CacheBytes); 0: none
}

func startServer(t testing.TB, o serverOptions) *testServer {
	t.Helper()
	ctx := context.Background()
	var st store.Store
	var err error
	if o.postgres {
		st, err = postgres.Open(ctx, pgtest.NewDatabase(t))
	} else {
		st, err = sqlite.Open(ctx, filepath.Join(t.TempDir(), "registry.db"))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	public := base
	if o.publicURL != "" {
		public = o.publicURL
	}
	var tl *translog.Log
	if o.log {
		skey, err := translog.GenerateKey("registry.test/log")
		if err != nil {
			t.Fatal(err)
		}
		key, err := translog.ParseKey(skey)
		if err != nil {
			t.Fatal(err)
		}
		tl = translog.New(st, key, log)
	}
	svc := registry.New(st, registry.Config{PublicURL: public, Logger: log, Log: tl, CacheBytes: o.cacheBytes})
	if o.examples {
		if _, err := svc.SeedExamples(ctx, examples.Protocols, "protocols"); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := directory.New(st, directory.Config{Allow: []string{"127.0.0.1/32"}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	var signIn *auth.OIDC
	if o.signIn != nil {
		signIn = o.signIn(t, st, public)
	}
	pages, err := html.New(svc, html.Options{OpenPublish: o.openPublish, Logger: log, Documents: o.documents, Directory: dir, Auth: signIn})
	if err != nil {
		t.Fatal(err)
	}
	authn := api.NewAuthenticator(svc, o.openPublish)
	srv := api.New(svc, api.Config{Logger: log},
		api.WithPages(pages), api.WithAuthenticator(authn), api.WithDirectory(dir), api.WithReadGate(o.private, signIn))
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv.Handler()}} // with the fast raw path, as served
	hs.Start()
	t.Cleanup(hs.Close)
	return &testServer{URL: base, svc: svc, dir: dir, log: tl, st: st, auth: signIn}
}
