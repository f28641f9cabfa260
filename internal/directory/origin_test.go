package directory_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// TestOriginSpellsAnAgentOneWay: every spelling of one origin is one agent.
func TestOriginSpellsAnAgentOneWay(t *testing.T) {
	for want, spellings := range map[string][]string{
		"http://agent.example:8080": {"HTTP://Agent.Example:8080/a/", "http://agent.example:8080", "http://agent.example:8080/",
			"http://agent.example:08080/b/../a2", "http://agent.example.:8080/%613", " http://AGENT.example:8080/x/y/z/ "},
		"http://agent.example":      {"http://agent.example:80/", "http://agent.example:/", "http://ａｇｅｎｔ.example/"},
		"https://agent.example":     {"https://agent.example:443/a", "HTTPS://agent.EXAMPLE/"},
		"https://agent.example:80":  {"https://agent.example:80/"},
		"http://xn--bcher-kva.test": {"http://bücher.test/", "http://BÜCHER.test", "http://b%C3%BCcher.test/", "http://xn--bcher-kva.test/"},
		"http://127.0.0.1:9":        {"http://127.0.0.1:9/", "http://[::ffff:127.0.0.1]:9/", "http://[::FFFF:7f00:1]:9"},
		"http://[2001:db8::1]:8080": {"http://[2001:DB8:0::1]:8080/p", "http://[2001:0db8::0001]:8080"},
		"http://agent_1.local:7000": {"http://Agent_1.local:7000/"},
	} {
		for _, s := range spellings {
			if got, err := directory.Origin(s); err != nil || got != want {
				t.Errorf("Origin(%q) = %q, %v; want %q", s, got, err, want)
			}
		}
	}
	for _, bad := range []string{
		"http://127.1/", "http://0x7f.0.0.1/", "http://2130706433/", "http://127.0.0.01/", "http://1.2.3.4.5/",
		"http://a..b/", "http://.a/", "http://[fe80::1%25eth0]/", "http://x:0/", "http://x:65536/", "http://a%20b/",
		"http://a!b/", "http://xn--zz/", "http://-a.test/",
		"http://127.0x1/",             // a last label in hex is a number to some resolvers
		"http://ab\u05d0\u0661.test/", // a label mixing directions (IDNA bidi rule)
	} {
		if got, err := directory.Origin(bad); !errors.Is(err, directory.ErrBadURL) {
			t.Errorf("Origin(%q) = %q, %v; want ErrBadURL", bad, got, err)
		}
	}
}

// TestPathVariantsAreOneAgent re-runs the attack: one client registers 300
// path spellings of one agent; the directory holds one agent, the protocol
// it speaks counts one speaker, and another client still registers.
func TestPathVariantsAreOneAgent(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	d := newDirectoryWith(t, st, directory.Config{Allow: []string{"127.0.0.1/32"}, Now: clk.Now, PerClientDay: 20, PerClientTotal: 100})
	stub := newSpecStub(t, map[string][]string{weather.Hex(): {"https://a/1"}})
	ctx := context.Background()
	ids := map[int64]bool{}
	for i := range 300 {
		path := []string{"/a%d", "/b/../a%d", "/%%61%d", "/A%d/", "//a%d", "/./a%d/."}[i%6]
		r, err := d.Submit(ctx, stub.URL+fmt.Sprintf(path, i), "192.0.2.66")
		if err != nil {
			t.Fatalf("registration %d: %v", i, err)
		}
		if r.Pending || r.Agent.URL != stub.URL {
			t.Fatalf("registration %d: %+v", i, r)
		}
		ids[r.Agent.ID] = true
	}
	page, err := d.List(ctx, store.AgentQuery{Limit: store.MaxPageSize})
	if err != nil || len(page.Agents) != 1 || len(ids) != 1 {
		t.Fatalf("300 path variants made %d agents (%d ids), %v", len(page.Agents), len(ids), err)
	}
	counts, err := d.SpeakerCounts(ctx, []protocol.Digest{weather})
	if err != nil || counts[weather] != 1 {
		t.Fatalf("the protocol's speakers: %v, %v", counts, err)
	}
	if pa, err := d.For(ctx, weather); err != nil || pa.SpeakingCount != 1 || len(pa.Speaking) != 1 {
		t.Fatalf("the protocol page's \"Spoken by\": %+v, %v", pa, err)
	}
	other := newSpecStub(t, map[string][]string{weather.Hex(): {"https://a/2"}})
	if r, err := d.Submit(ctx, other.URL, "192.0.2.67"); err != nil || !r.Created {
		t.Fatalf("another client's registration: %+v, %v", r, err)
	}
	if counts, _ := d.SpeakerCounts(ctx, []protocol.Digest{weather}); counts[weather] != 2 {
		t.Fatalf("two origins speak it, counted %d", counts[weather])
	}
}
