package api

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store/sqlite"
)

// TestBodyLimitSpeaksInUnits: a body over the limit is refused in the
// units the operator set and names the option, whether its length was
// declared or not.
func TestBodyLimitSpeaksInUnits(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc := registry.New(st, registry.Config{PublicURL: "http://registry.test"})
	ts := httptest.NewServer(New(svc, Config{MaxBodyBytes: 3 << 20, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		WithAuthenticator(NewAuthenticator(svc, true))).Handler())
	t.Cleanup(ts.Close)
	body := bytes.Repeat([]byte("a"), 5<<20)
	for _, declared := range []bool{true, false} {
		var r io.Reader = bytes.NewReader(body)
		if !declared {
			r = io.MultiReader(r) // no length: chunked
		}
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/protocols", r)
		req.Header.Set("Content-Type", "text/markdown")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "3 MiB, its --max-body-bytes") || strings.Contains(string(b), "3145728") {
			t.Errorf("declared length %v: %d %s", declared, res.StatusCode, b)
		}
	}
}
