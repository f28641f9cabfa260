package translog_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// publish stores n new documents through the service and returns them.
func publish(t testing.TB, srv *security.Server, prefix string, n int) []protocol.Digest {
	t.Helper()
	out := make([]protocol.Digest, n)
	for i := range n {
		r, err := srv.Svc.Publish(ctx(t), fmt.Appendf(nil, "# %s %d\n\nBody of document %d.\n", prefix, i, i), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r.Entry.Digest
	}
	return out
}

// integrate drains the log's queue.
func integrate(t testing.TB, srv *security.Server) {
	t.Helper()
	if err := srv.Log.Integrate(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// httpClient is a client of the registry that speaks only HTTP.
func httpClient(t testing.TB, base string) *client.Client {
	t.Helper()
	c, err := client.New(base, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func get(t testing.TB, u string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// memHashes is tlog's stored hashes kept in memory.
type memHashes []tlog.Hash

func (m *memHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		if x >= int64(len(*m)) {
			return nil, fmt.Errorf("hash %d not stored", x)
		}
		out[i] = (*m)[x]
	}
	return out, nil
}

// TestTilesAreTlogs rebuilds the tree from the records the registry serves
// in data tiles and checks every hash tile and the signed root against
// tlog's own functions, on both engines.
func TestTilesAreTlogs(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			publish(t, srv, "Tiled", 300) // one full tile of 256 and a partial one
			integrate(t, srv)
			v, err := agora.NewLogVerifier(httpClient(t, srv.URL), srv.Log.VerifierKey())
			if err != nil {
				t.Fatal(err)
			}
			cp, _, err := v.Latest(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if cp.N != 300 || cp.Origin != srv.Log.Origin() {
				t.Fatalf("checkpoint %+v, want 300 records of %s", cp, srv.Log.Origin())
			}
			if _, _, m := get(t, srv.URL+"/metrics"); !bytes.Contains(m, []byte("\nregistry_log_size 300\n")) {
				t.Fatal("/metrics does not report registry_log_size 300")
			}
			var ref memHashes
			var texts [][]byte
			for _, dt := range []tlog.Tile{{H: 8, L: -1, N: 0, W: 256}, {H: 8, L: -1, N: 1, W: 44}} {
				status, _, body := get(t, srv.URL+"/log/"+dt.Path())
				if status != http.StatusOK {
					t.Fatalf("%s: %d %s", dt.Path(), status, body)
				}
				for _, rec := range strings.SplitAfter(string(body), "\n\n") {
					if rec != "" {
						texts = append(texts, []byte(strings.TrimSuffix(rec, "\n")))
					}
				}
			}
			if len(texts) != 300 {
				t.Fatalf("data tiles held %d records, want 300", len(texts))
			}
			for i, text := range texts {
				if _, err := agora.ParseLogRecord(text); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				hs, err := tlog.StoredHashes(int64(i), text, &ref)
				if err != nil {
					t.Fatal(err)
				}
				ref = append(ref, hs...)
			}
			root, err := tlog.TreeHash(300, &ref)
			if err != nil {
				t.Fatal(err)
			}
			if root != cp.Hash {
				t.Fatal("the checkpoint's root is not the tree of the served records")
			}
			for _, tile := range tlog.NewTiles(8, 0, 300) {
				want, err := tlog.ReadTileData(tile, &ref)
				if err != nil {
					t.Fatal(err)
				}
				status, h, got := get(t, srv.URL+"/log/"+tile.Path())
				if status != http.StatusOK || !bytes.Equal(got, want) {
					t.Fatalf("tile %s: status %d, %d bytes, want tlog's %d bytes", tile.Path(), status, len(got), len(want))
				}
				immutable := strings.Contains(h.Get("Cache-Control"), "immutable")
				if immutable != (tile.W == 256) {
					t.Fatalf("tile %s: Cache-Control %q", tile.Path(), h.Get("Cache-Control"))
				}
			}
			for _, path := range []string{"tile/8/0/001", "tile/8/0/001.p/45", "tile/8/1/000", "tile/8/0/x001/234"} {
				if status, _, _ := get(t, srv.URL+"/log/"+path); status != http.StatusNotFound {
					t.Fatalf("%s beyond the tree: status %d, want 404", path, status)
				}
			}
			for _, path := range []string{"tile/4/0/000", "tile/8/0/000.p/0", "tile/8/0/0", "tile/8/-1/000", "tile/8/0/000.p/256"} {
				if status, _, _ := get(t, srv.URL+"/log/"+path); status != http.StatusBadRequest {
					t.Fatalf("malformed tile path %s: status %d, want 400", path, status)
				}
			}
		})
	}
}

// TestProofsOverHTTP proves inclusion of every document and consistency
// between checkpoints with a client that only speaks HTTP.
func TestProofsOverHTTP(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			first := publish(t, srv, "Proved", 20)
			integrate(t, srv)
			c := httpClient(t, srv.URL)
			v, err := agora.NewLogVerifier(c, srv.Log.VerifierKey())
			if err != nil {
				t.Fatal(err)
			}
			old, _, err := v.Latest(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			more := publish(t, srv, "Later", 270)
			if err := srv.Svc.Withdraw(ctx(t), entity.Token{Name: "test"}, first[3], "spam\nwith a newline"); err != nil {
				t.Fatal(err)
			}
			// No explicit integration: lookup integrates a queued record.
			for i, d := range append(first, more...) {
				p, err := v.Prove(ctx(t), d)
				if err != nil {
					t.Fatalf("document %d: %v", i, err)
				}
				if p.Record.Event != agora.LogEventPublish || p.Record.Digest != d {
					t.Fatalf("document %d: record %+v", i, p.Record)
				}
			}
			integrate(t, srv)
			now, _, err := v.Latest(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if now.N != 291 {
				t.Fatalf("tree size %d, want 290 publishes and a withdrawal", now.N)
			}
			if err := v.Consistent(ctx(t), old, now); err != nil {
				t.Fatal(err)
			}
			// Base64 spelling, and the withdrawal record's text.
			if status, _, body := get(t, srv.URL+"/log/lookup/"+url.PathEscape(first[3].Base64())); status != http.StatusOK || !bytes.Contains(body, []byte(first[3].Hex())) {
				t.Fatalf("lookup by Base64: %d %s", status, body)
			}
			status, _, rec := get(t, srv.URL+"/log/record/290")
			parsed, err := agora.ParseLogRecord(rec)
			if status != http.StatusOK || err != nil || parsed.Event != "withdraw" || parsed.Status != "withdrawn" || parsed.Reason != "spam\nwith a newline" {
				t.Fatalf("withdrawal record: %d %q %v", status, rec, err)
			}
			if status, _, _ := get(t, srv.URL+"/log/lookup/"+strings.Repeat("0", 40)); status != http.StatusNotFound {
				t.Fatalf("lookup of an unknown hash: %d", status)
			}
			if status, _, _ := get(t, srv.URL+"/log/record/291"); status != http.StatusNotFound {
				t.Fatalf("record beyond the log: %d", status)
			}
		})
	}
}

// tamperingProxy forwards to base, changing one byte of every answer
// whose path passes match.
func tamperingProxy(t *testing.T, base string, match func(string) bool) string {
	t.Helper()
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(base + r.URL.RequestURI())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if match(r.URL.Path) && len(b) > 0 {
			b[len(b)/2] ^= 1
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(b)
	}))
	t.Cleanup(p.Close)
	return p.URL
}

func TestTamperedTileIsDetected(t *testing.T) {
	srv := security.Start(t, security.Options{})
	ds := publish(t, srv, "Tamper", 40)
	integrate(t, srv)
	for _, what := range []string{"/log/tile/8/0/"} {
		proxy := tamperingProxy(t, srv.URL, func(p string) bool { return strings.HasPrefix(p, what) })
		v, err := agora.NewLogVerifier(httpClient(t, proxy), srv.Log.VerifierKey())
		if err != nil {
			t.Fatal(err)
		}
		failed := 0
		for _, d := range ds {
			if _, err := v.Prove(ctx(t), d); err != nil {
				failed++
			}
		}
		if failed != len(ds) {
			t.Fatalf("a tampered level-0 tile proved %d of %d documents", len(ds)-failed, len(ds))
		}
	}
	// A tampered record or checkpoint is refused too.
	for _, what := range []string{"/log/lookup/", "/log/checkpoint"} {
		proxy := tamperingProxy(t, srv.URL, func(p string) bool { return strings.HasPrefix(p, what) })
		v, _ := agora.NewLogVerifier(httpClient(t, proxy), srv.Log.VerifierKey())
		if _, err := v.Prove(ctx(t), ds[0]); what == "/log/lookup/" && err == nil {
			t.Fatalf("a tampered lookup answer proved")
		}
		if _, _, err := v.Latest(ctx(t)); what == "/log/checkpoint" && !errors.Is(err, agora.ErrBadLogCheckpoint) {
			t.Fatalf("a tampered checkpoint: %v", err)
		}
	}
}

// TestForkIsDetected signs two different histories with one key: a reader
// that saw one refuses the other.
func TestForkIsDetected(t *testing.T) {
	key, err := translog.ParseKey(mustKey(t))
	if err != nil {
		t.Fatal(err)
	}
	skey := mustKeyText
	a := security.Start(t, security.Options{LogKey: skey})
	b := security.Start(t, security.Options{LogKey: skey})
	publish(t, a, "Shared", 5)
	publish(t, b, "Shared", 5)
	integrate(t, a)
	integrate(t, b)
	publish(t, a, "Honest", 3)
	publish(t, b, "Forked", 4)
	integrate(t, a)
	integrate(t, b)

	st := translog.State{VerifierKey: key.VerifierKey}
	audit, err := translog.RunAudit(ctx(t), httpClient(t, a.URL), st, translog.AuditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	forked, err := translog.RunAudit(ctx(t), httpClient(t, b.URL), audit.State, translog.AuditOptions{})
	if err != nil || forked.Fork == nil || !errors.Is(forked.Fork.Err, agora.ErrLogFork) || forked.Exit() != 1 {
		t.Fatalf("auditing the forked log after the honest one: %+v %v, want a fork", forked.Fork, err)
	}
	// The same history grown is consistent.
	publish(t, a, "Honest more", 2)
	integrate(t, a)
	if _, err := translog.RunAudit(ctx(t), httpClient(t, a.URL), audit.State, translog.AuditOptions{}); err != nil {
		t.Fatalf("auditing the honest log again: %v", err)
	}
}

var (
	keyOnce     sync.Once
	mustKeyText string
)

func mustKey(t *testing.T) string {
	keyOnce.Do(func() {
		k, err := translog.GenerateKey("fork.example")
		if err != nil {
			t.Fatal(err)
		}
		mustKeyText = k
	})
	return mustKeyText
}
