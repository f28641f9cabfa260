package demo

import (
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/testing/security"
)

// A Python str may hold a lone surrogate (from surrogateescape, or a
// cut-off emoji), and json.dumps sends it as "\ud800". Decoded into Go it
// would become U+FFFD: the stored document, and so its hash, would not be
// the one the client hashed. Every JSON publish path refuses it, and
// stores nothing; a proper pair is one character and is stored exactly.
func TestLoneSurrogateIsRefused(t *testing.T) {
	eachEngine(t, security.Options{}, func(t *testing.T, s *security.Server) {
		auth := []string{"Authorization", "Bearer " + s.PublishToken}
		before := s.Snapshot(t)
		for _, c := range []struct {
			name, path, body string
		}{
			{"demo publish", "/", `{"name": "x", "description": "y", "protocol": "Protocol text \ud83d"}`},
			{"demo publish, low half", "/", `{"name": "x", "description": "y", "protocol": "\ude00 text"}`},
			{"demo publish, in the name", "/", `{"name": "Weather \udc00", "description": "y", "protocol": "Protocol text"}`},
			{"JSON publish", "/api/v1/protocols", `{"content": "# Doc\n\n\ud800\n"}`},
			{"resolve", "/api/v1/resolve", `{"hashes": ["\ud800"]}`},
		} {
			r := call(t, "POST", s.URL+c.path, c.body, auth...)
			if r.Status != 400 || !strings.Contains(string(r.Body), `"code":"lone_surrogate"`) {
				t.Errorf("%s: %d %s, want 400 lone_surrogate", c.name, r.Status, r.Body)
			}
		}
		if after := s.Snapshot(t); !after.Equal(before) {
			t.Fatalf("a refused request changed the store:\n%v\n%v", before, after)
		}

		doc := "Protocol with an emoji 😀 and °C."
		res, id, source := submit(t, s, "Emoji", "A pair is one character.", doc)
		if res.Status != 200 || !strings.Contains(string(res.Body), id) {
			t.Fatalf("submit with a surrogate pair: %d %s", res.Status, res.Body)
		}
		// download_and_verify_protocol: the fetched text hashes to the id.
		if r := call(t, "GET", source, ""); r.Status != 200 || string(r.Body) != doc || computeHash(t, string(r.Body)) != id {
			t.Fatalf("fetch: %d %q", r.Status, r.Body)
		}
	})
}
