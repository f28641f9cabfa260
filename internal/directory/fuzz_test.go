package directory

import (
	"net/url"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// FuzzParseWellKnown: whatever an agent answers, parsing never panics and
// what it keeps fits the store's limits.
func FuzzParseWellKnown(f *testing.F) {
	for _, seed := range []string{
		`{"supported": {"` + "0123456789abcdef0123456789abcdef01234567" + `": ["https://a"]}, "name": "n", "kinds": ["k"]}`,
		`{"0123456789abcdef0123456789abcdef01234567": ["s"], "_unsupported": ["ASNFZ4mrze8BI0VniavN7wEjRWc="], "_meta": {"name": "x"}}`,
		`{"_meta": 5, "_unsupported": {}, "x": null}`, `[]`, `null`, `{"supported": []}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, wk := range wellKnownPaths {
			c, err := wk.parse(raw)
			if err != nil {
				continue
			}
			if err := store.CheckCrawl(c); err != nil {
				t.Fatalf("%s kept what the store refuses: %v", wk.path, err)
			}
		}
	})
}

// FuzzOrigin: whatever URL a client sends, Origin never panics, and what
// it accepts is one origin, its own spelling, which every path of it
// spells too, and which the store takes.
func FuzzOrigin(f *testing.F) {
	for _, seed := range []string{
		"http://agent.example:8080/a/", "HTTPS://Bücher.Test:443/%61/../b", "http://[::ffff:127.0.0.1]:80", "http://127.1/",
		"http://a..b/", "http://x:0/", "http://agent_1.local./", "http://[2001:DB8::1]/", "http://%C3%BC.test/", "http://xn--zz/",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		o, err := Origin(raw)
		if err != nil {
			return
		}
		u, err := url.Parse(o)
		if err != nil || u.Path != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Host == "" ||
			(u.Scheme != "http" && u.Scheme != "https") || len(o) > store.MaxAgentURLBytes {
			t.Fatalf("Origin(%q) = %q, not an origin the store takes", raw, o)
		}
		if again, err := Origin(o); err != nil || again != o {
			t.Fatalf("Origin(%q) = %q, but Origin of that is %q, %v", raw, o, again, err)
		}
		if sub, err := Origin(o + "/a/../b/%61/"); err != nil || sub != o {
			t.Fatalf("a path of %q is %q, %v", o, sub, err)
		}
	})
}

// FuzzParseCardAndManifest: whatever an agent serves as its A2A card or
// ARD manifest, parsing never panics and what it keeps fits the store's
// limits.
func FuzzParseCardAndManifest(f *testing.F) {
	for _, seed := range []string{
		`{"name":"n","skills":[{"id":"a","name":"b","tags":["t"],"examples":["e"]}],"supportedInterfaces":[{"url":"https://a/","protocolBinding":"GRPC"}]}`,
		`{"name":"n","url":"https://a/","additionalInterfaces":[{"url":"https://b/","transport":"HTTP+JSON"}],"skills":{}}`,
		`{"entries":[{"identifier":"urn:air:a:b","displayName":"d","type":"t","url":"https://a/x","tags":["x"],"data":{}}],"host":{"displayName":"h"}}`,
		`{"entries":{}}`, `[]`, `null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if c, err := parseCard(raw); err == nil {
			c.Signature = entity.SignatureUnsigned
			if err := store.CheckCrawl(entity.AgentCrawl{A2A: &c}); err != nil {
				t.Fatalf("a card kept what the store refuses: %v", err)
			}
		}
		if m, err := parseManifest(raw); err == nil {
			if err := store.CheckCrawl(entity.AgentCrawl{ARD: &m}); err != nil {
				t.Fatalf("a manifest kept what the store refuses: %v", err)
			}
		}
	})
}
