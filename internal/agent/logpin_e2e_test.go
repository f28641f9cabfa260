package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

// TestPinnedRegistryLogKey: Bob resolves the Weather Protocol through the
// real registry (loopback sockets, its transparency log) with the log's
// verifier key pinned. With the right key he answers; with another key, a
// registry whose log lacks the document's record, or one whose tiles were
// tampered with, he rejects the transaction with protocol_unproved.
func TestPinnedRegistryLogKey(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) { testPinnedRegistryLogKey(t, engine) })
	}
}

func testPinnedRegistryLogKey(t *testing.T, engine string) {
	ctx := context.Background()
	doc, d := weatherDoc(t)
	skey, err := translog.GenerateKey("pinned.test")
	if err != nil {
		t.Fatal(err)
	}
	reg := security.Start(t, security.Options{Engine: engine, LogKey: skey})
	// Other documents first, so the proof needs hashes from the tiles.
	for i := range 4 {
		if _, err := reg.Svc.Publish(ctx, fmt.Appendf(nil, "# Filler %d\n", i), nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := reg.Svc.Publish(ctx, doc, nil, ""); err != nil {
		t.Fatal(err)
	}
	key := reg.Log.VerifierKey()

	// The same key's log, without the weather document.
	other := security.Start(t, security.Options{Engine: engine, LogKey: skey})
	if _, err := other.Svc.Publish(ctx, []byte("# Something else\n"), nil, ""); err != nil {
		t.Fatal(err)
	}
	wrongSkey, _ := translog.GenerateKey("pinned.test")
	wrong, err := translog.ParseKey(wrongSkey)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name     string
		registry string
		key      string
		want     string // answer code; "" is success
		why      string // in the message
	}{
		{"right key", reg.URL, key, "", ""},
		{"wrong key", reg.URL, wrong.VerifierKey, "protocol_unproved", "signature does not verify"},
		{"log without the record", logFrom(t, reg.URL, other.URL, nil), key, "protocol_unproved", "no document with this hash is in the transparency log"},
		{"tampered tile", logFrom(t, reg.URL, reg.URL, flipTileByte), key, "protocol_unproved", "inconsistent tile"},
		{"no key pinned", logFrom(t, reg.URL, other.URL, nil), "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := weatherConfig(d)
			cfg.Registries = []string{c.registry}
			if c.key != "" {
				cfg.RegistryLogKeys = map[string]string{c.registry + "/": c.key}
			}
			_, bob := startBob(t, cfg)
			a := call(t, "POST", bob, tx(d.Hex(), nil, londonQuery))
			if c.want == "" {
				if a.Status != StatusSuccess || a.Body != londonAnswer {
					t.Fatalf("answer %+v, want the weather", a)
				}
				return
			}
			if a.Status != StatusRejected || a.Code != c.want || !strings.Contains(a.Error, "configured registry 1") || !strings.Contains(a.Error, c.why) {
				t.Fatalf("answer %+v, want rejected %s", a, c.want)
			}
			// Nothing unproved was cached: the next request is refused too.
			if a := call(t, "POST", bob, tx(d.Hex(), nil, londonQuery)); a.Code != c.want {
				t.Fatalf("second answer %+v, want rejected %s", a, c.want)
			}
		})
	}

	// A key pinned for a URL that is no configured registry is an error
	// at start, not a registry left unchecked.
	cfg := weatherConfig(d)
	cfg.Registries = []string{reg.URL}
	cfg.RegistryLogKeys = map[string]string{other.URL: key}
	cfg.CacheDir = t.TempDir()
	if _, err := New(cfg, nil); err == nil {
		t.Fatal("a log key for an unconfigured registry was accepted")
	}
}

// logFrom is a registry that serves docs from docs and its /log/ paths
// from logs, each answer of logs passed through edit when given.
func logFrom(t *testing.T, docs, logs string, edit func(path string, body []byte) []byte) string {
	t.Helper()
	du, _ := url.Parse(docs)
	lu, _ := url.Parse(logs)
	dp, lp := httputil.NewSingleHostReverseProxy(du), httputil.NewSingleHostReverseProxy(lu)
	if edit != nil {
		lp.ModifyResponse = func(r *http.Response) error {
			body, err := readAllClose(r)
			if err != nil {
				return err
			}
			body = edit(r.Request.URL.Path, body)
			r.Body, r.ContentLength = bodyOf(body), int64(len(body))
			r.Header.Del("Content-Length")
			return nil
		}
	}
	return newHandlerServer(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/log/") {
			lp.ServeHTTP(w, r)
			return
		}
		dp.ServeHTTP(w, r)
	})
}

// flipTileByte changes the first hash of every level-0 hash tile.
func flipTileByte(path string, body []byte) []byte {
	if strings.HasPrefix(path, "/log/tile/8/0/") && len(body) > 0 {
		body = append([]byte(nil), body...)
		body[0] ^= 1
	}
	return body
}

func readAllClose(r *http.Response) ([]byte, error) {
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}

func bodyOf(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
