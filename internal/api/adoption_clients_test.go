package api

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/adoption"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/sqlite"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// clientsFixture is a registry on one engine with five documents and the
// adoption counter, driven in process with a chosen peer address.
type clientsFixture struct {
	h       http.Handler
	st      store.Store
	counter *adoption.Counter
	hexes   []string
	dir     string // the SQLite store's directory ("" for PostgreSQL)
	dsn     string // the PostgreSQL database
}

var clientEngines = []string{"sqlite", "postgres"}

func newClientsFixture(t *testing.T, engine string, trusted []netip.Prefix) *clientsFixture {
	t.Helper()
	ctx := context.Background()
	f := &clientsFixture{}
	var err error
	switch engine {
	case "sqlite":
		f.dir = t.TempDir()
		f.st, err = sqlite.Open(ctx, filepath.Join(f.dir, "r.db"))
	default:
		f.dsn = pgtest.NewDatabase(t)
		f.st, err = postgres.Open(ctx, f.dsn)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.New(f.st, registry.Config{PublicURL: "http://registry.test", CacheBytes: 1 << 20})
	f.counter = adoption.New(f.st, log, nil)
	f.h = New(svc, Config{Logger: log, TrustedProxies: trusted}, WithAdoption(f.counter)).Handler()
	for i := range 5 {
		res, err := svc.Publish(ctx, fmt.Appendf(nil, "# Protocol %d\n\nNumber %d.\n", i, i), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		f.hexes = append(f.hexes, res.Entry.Digest.Hex())
	}
	return f
}

// fetch is one raw fetch of hex from peer (host:port), with an
// X-Forwarded-For when xff is set.
func (f *clientsFixture) fetch(t *testing.T, hex, peer, xff string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/protocol/"+hex, nil)
	r.RemoteAddr = peer
	if xff != "" {
		r.Header.Set("X-Forwarded-For", xff)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("fetch from %s: %d %s", peer, w.Code, w.Body)
	}
}

func (f *clientsFixture) flush(t *testing.T) {
	t.Helper()
	if err := f.counter.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (f *clientsFixture) getJSON(t *testing.T, path string, v any) {
	t.Helper()
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	if w.Code != http.StatusOK {
		t.Fatalf("%s: %d %s", path, w.Code, w.Body)
	}
	if err := json.Unmarshal(w.Body.Bytes(), v); err != nil {
		t.Fatal(err)
	}
}

func (f *clientsFixture) view(t *testing.T, hex string) ProtocolView {
	t.Helper()
	var v ProtocolView
	f.getJSON(t, "/api/v1/protocols/"+hex, &v)
	return v
}

func (f *clientsFixture) popular(t *testing.T) []string {
	t.Helper()
	var page struct{ Items []ProtocolView }
	f.getJSON(t, "/api/v1/protocols?sort=popular&limit=10", &page)
	var out []string
	for _, v := range page.Items {
		out = append(out, v.Hex)
	}
	return out
}

func peer(i int) string { return fmt.Sprintf("10.1.%d.%d:40000", i/250, i%250+1) }

// The attack re-run: five protocols ranked by distinct clients; 3,000 raw
// fetches of the last one from one connection, flushed three times within
// the day, add one client and 3,000 fetches, and the order stands.
func TestOneConnectionCannotClimbPopular(t *testing.T) {
	for _, engine := range clientEngines {
		t.Run(engine, func(t *testing.T) {
			f := newClientsFixture(t, engine, nil)
			for i, hex := range f.hexes {
				for j := range (5 - i) * 10 { // 50, 40, 30, 20, 10 clients
					f.fetch(t, hex, peer(j), "")
				}
			}
			f.flush(t)
			before := f.popular(t)
			if !slices.Equal(before[:5], f.hexes) {
				t.Fatalf("popular before = %v, want %v", before, f.hexes)
			}
			last := f.hexes[4]
			v := f.view(t, last)
			if v.Clients != 10 || v.Fetches != 10 {
				t.Fatalf("before: %d clients, %d fetches", v.Clients, v.Fetches)
			}
			for i := range 3000 {
				f.fetch(t, last, "198.51.100.9:51000", "")
				if i%1000 == 999 {
					f.flush(t)
				}
			}
			v = f.view(t, last)
			if v.Clients != 11 || v.Fetches != 3010 {
				t.Fatalf("after 3000 fetches from one client: %d clients, %d fetches; want 11 and 3010", v.Clients, v.Fetches)
			}
			if after := f.popular(t); !slices.Equal(after, before) {
				t.Fatalf("popular moved: %v, was %v", after, before)
			}
		})
	}
}

// N distinct clients count N (exactly, up to the sketch's exact range).
func TestDistinctClientsShowInTheView(t *testing.T) {
	for _, engine := range clientEngines {
		t.Run(engine, func(t *testing.T) {
			f := newClientsFixture(t, engine, nil)
			const n = 200
			for j := range n {
				f.fetch(t, f.hexes[0], peer(j), "")
				f.fetch(t, f.hexes[0], peer(j), "")
			}
			f.flush(t)
			if v := f.view(t, f.hexes[0]); v.Clients != n || v.Fetches != 2*n {
				t.Fatalf("%d clients fetching twice: %d clients, %d fetches", n, v.Clients, v.Fetches)
			}
		})
	}
}

// IPv6 clients are their /64; X-Forwarded-For only names the client when
// a trusted proxy sends it.
func TestClientsAreTheAddressTheRegistryBelieves(t *testing.T) {
	f := newClientsFixture(t, "sqlite", []netip.Prefix{netip.MustParsePrefix("192.0.2.1/32")})
	a, b := f.hexes[0], f.hexes[1]
	for _, p := range []string{"[2001:db8:1:2::1]:1", "[2001:db8:1:2::2]:2", "[2001:db8:1:2:ffff::9]:3", "[2001:db8:1:3::1]:4"} {
		f.fetch(t, a, p, "")
	}
	for i := range 100 {
		f.fetch(t, b, "203.0.113.5:1", fmt.Sprintf("10.9.0.%d", i))  // an untrusted peer's header
		f.fetch(t, b, "192.0.2.1:1", fmt.Sprintf("10.8.0.%d", i%40)) // the proxy's
	}
	f.flush(t)
	if v := f.view(t, a); v.Clients != 2 {
		t.Fatalf("three addresses of one /64 and one of another: %d clients, want 2", v.Clients)
	}
	if v := f.view(t, b); v.Clients != 41 {
		t.Fatalf("one untrusted peer whatever its header, 40 clients behind the proxy: %d clients, want 41", v.Clients)
	}
}

// No client address reaches the store, in any spelling: the stored bytes
// (SQLite's files, PostgreSQL's adoption rows) hold neither the text nor
// the address's bytes.
func TestNoClientAddressReachesTheStore(t *testing.T) {
	v4, v6 := netip.MustParseAddr("203.0.113.77"), netip.MustParseAddr("2001:db8:77:99::5")
	v6Prefix := v6.As16()
	needles := [][]byte{[]byte(v4.String()), []byte("2001:db8:77:99"), v4.AsSlice(), v6Prefix[:8]}
	for _, n := range needles[2:] {
		needles = append(needles, []byte(hex.EncodeToString(n)))
	}
	for _, engine := range clientEngines {
		t.Run(engine, func(t *testing.T) {
			f := newClientsFixture(t, engine, nil)
			for _, hex := range f.hexes {
				f.fetch(t, hex, v4.String()+":1234", "")
				f.fetch(t, hex, "["+v6.String()+"]:1234", "")
			}
			f.flush(t)
			var stored [][]byte
			if engine == "sqlite" {
				f.st.Close()
				files, _ := filepath.Glob(filepath.Join(f.dir, "*"))
				for _, p := range files {
					b, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					stored = append(stored, b)
				}
			} else {
				stored = postgresAdoptionBytes(t, f.dsn)
			}
			if len(stored) == 0 {
				t.Fatal("nothing read from the store")
			}
			for _, b := range stored {
				for _, n := range needles {
					if bytes.Contains(bytes.ToLower(b), bytes.ToLower(n)) {
						t.Fatalf("the store holds %q (%x)", n, n)
					}
				}
			}
		})
	}
}

// postgresAdoptionBytes are the adoption tables' rows, as text and their
// sketches as bytes.
func postgresAdoptionBytes(t *testing.T, dsn string) [][]byte {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var out [][]byte
	for _, q := range []string{
		`SELECT t::text::bytea FROM adoption_daily t`,
		`SELECT client_sketch FROM adoption_daily WHERE client_sketch IS NOT NULL`,
		`SELECT t::text::bytea FROM adoption_scores t`,
	} {
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got...)
	}
	if len(out) < 5+5+5 {
		t.Fatalf("read %d rows and sketches, want every hash's", len(out))
	}
	return out
}
