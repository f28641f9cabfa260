package api

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/registry"
)

// TestBodyLimitSpeaksInUnits: a body over the limit is refused in the
// units the operator set and names the option, whether its length was
// declared or not.
func TestBodyLimitSpeaksInUnits(t *testing.T) {
	// Open publishing: the body is read past auth, so its limit shows.
	ts, _ := newServer(t, Config{MaxBodyBytes: 3 << 20}, func(svc *registry.Service) []Option {
		return []Option{WithAuthenticator(NewAuthenticator(svc, true))}
	})
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
