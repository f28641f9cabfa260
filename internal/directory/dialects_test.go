package directory_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// peer is a hostile (or honest) agent on loopback: each path answers what
// the test sets, anything else 404.
type peer struct {
	*httptest.Server
	mu    sync.Mutex
	paths map[string]http.HandlerFunc
}

func newPeer(t *testing.T) *peer {
	t.Helper()
	p := &peer{paths: map[string]http.HandlerFunc{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		h := p.paths[r.URL.Path]
		p.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *peer) serve(path string, body []byte) {
	p.handle(path, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) })
}

func (p *peer) handle(path string, h http.HandlerFunc) {
	p.mu.Lock()
	p.paths[path] = h
	p.mu.Unlock()
}

// canonical is the JCS form of a card the test builds: Go's encoder sorts
// map keys and writes no blanks; the cards hold ASCII strings and small
// integers only, where that is RFC 8785 (an independent spelling from the
// directory's).
func canonical(t *testing.T, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// signer is a key a test signs cards with.
type signer struct {
	alg string
	kid string
	key any // *ecdsa.PrivateKey, *rsa.PrivateKey, ed25519.PrivateKey or []byte (HMAC)
}

func newSigner(t *testing.T, alg, kid string) signer {
	t.Helper()
	s := signer{alg: alg, kid: kid}
	var err error
	switch alg {
	case "ES256":
		s.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "RS256":
		s.key, err = rsa.GenerateKey(rand.Reader, 2048)
	case "EdDSA":
		_, s.key, err = ed25519.GenerateKey(rand.Reader)
	default:
		s.key = []byte("a shared secret")
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// jwk is s's public key as a JWK.
func (s signer) jwk() map[string]string {
	switch k := s.key.(type) {
	case *ecdsa.PrivateKey:
		raw, _ := k.PublicKey.Bytes()
		return map[string]string{"kty": "EC", "crv": "P-256", "kid": s.kid, "x": b64(raw[1:33]), "y": b64(raw[33:])}
	case *rsa.PrivateKey:
		return map[string]string{"kty": "RSA", "kid": s.kid, "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	case ed25519.PrivateKey:
		return map[string]string{"kty": "OKP", "crv": "Ed25519", "kid": s.kid, "x": b64(k.Public().(ed25519.PublicKey))}
	default:
		return map[string]string{"kty": "oct", "kid": s.kid, "k": b64(k.([]byte))}
	}
}

func jwks(keys ...signer) []byte {
	var list []map[string]string
	for _, k := range keys {
		list = append(list, k.jwk())
	}
	b, _ := json.Marshal(map[string]any{"keys": list})
	return b
}

// sign is a signatures entry over payload with header {alg, kid, jku}.
func (s signer) sign(t *testing.T, payload []byte, jku string) map[string]string {
	t.Helper()
	h, _ := json.Marshal(map[string]string{"alg": s.alg, "typ": "JOSE", "kid": s.kid, "jku": jku})
	input := []byte(b64(h) + "." + b64(payload))
	digest := sha256.Sum256(input)
	var sig []byte
	switch k := s.key.(type) {
	case *ecdsa.PrivateKey:
		r, ss, err := ecdsa.Sign(rand.Reader, k, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = append(r.FillBytes(make([]byte, 32)), ss.FillBytes(make([]byte, 32))...)
	case *rsa.PrivateKey:
		var err error
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:]); err != nil {
			t.Fatal(err)
		}
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, input)
	default:
		m := hmac.New(sha256.New, k.([]byte))
		m.Write(input)
		sig = m.Sum(nil)
	}
	if s.alg == "none" {
		sig = []byte{0}
	}
	return map[string]string{"protected": b64(h), "signature": b64(sig)}
}

// card is a small A2A card for p.
func card(p *peer, skills int) map[string]any {
	list := []any{}
	for i := range skills {
		list = append(list, map[string]any{"id": fmt.Sprint("s", i), "name": fmt.Sprint("Skill ", i), "description": "does a thing",
			"tags": []any{"maps", "routing"}, "examples": []any{"plan a route"}})
	}
	return map[string]any{
		"name": "Route Planner", "description": "plans routes", "version": "1.2.0",
		"supportedInterfaces": []any{map[string]any{"url": p.URL + "/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
		"capabilities":        map[string]any{"streaming": true},
		"skills":              list,
	}
}

// signedCard is c with signatures by each signer over its canonical form.
func signedCard(t *testing.T, c map[string]any, jku string, by ...signer) []byte {
	t.Helper()
	payload := canonical(t, c)
	var sigs []any
	for _, s := range by {
		sigs = append(sigs, s.sign(t, payload, jku))
	}
	out := map[string]any{"signatures": sigs}
	for k, v := range c {
		out[k] = v
	}
	b, _ := json.MarshalIndent(out, "", "  ") // served pretty: the verifier canonicalizes
	return b
}

func dialectDirectory(t *testing.T, allow ...string) (*directory.Directory, store.Store, *clock) {
	t.Helper()
	st, clk := openStore(t), &clock{now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	return newDirectory(t, st, clk, allow...), st, clk
}

// TestA2AOnlyAgentRegistersWithVerifiedCard: an agent that publishes only
// a signed A2A card (no Agora list) registers; its skills, interfaces and
// the signature's state are on its record, for each algorithm accepted.
func TestA2AOnlyAgentRegistersWithVerifiedCard(t *testing.T) {
	for _, alg := range []string{"ES256", "RS256", "EdDSA"} {
		t.Run(alg, func(t *testing.T) {
			d, _, _ := dialectDirectory(t, "127.0.0.1/32")
			p := newPeer(t)
			key := newSigner(t, alg, "key-1")
			p.serve("/jwks.json", jwks(newSigner(t, "ES256", "unrelated"), key))
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 2), p.URL+"/jwks.json", key))
			a, created, err := d.Register(context.Background(), p.URL)
			if err != nil || !created {
				t.Fatalf("an A2A-only agent: %v", err)
			}
			c := a.A2A
			if c == nil || c.Signature != entity.SignatureVerified || c.SignatureKeyID != "key-1" || c.SignatureReason != "" {
				t.Fatalf("card %+v", c)
			}
			if a.Name != "Route Planner" || c.Version != "1.2.0" || c.SkillCount != 2 || len(c.Skills) != 2 || c.Skills[1].Name != "Skill 1" ||
				strings.Join(c.Skills[0].Tags, ",") != "maps,routing" || len(c.Interfaces) != 1 || c.Interfaces[0].ProtocolBinding != "JSONRPC" {
				t.Fatalf("card read as %+v", c)
			}
			if a.WellKnownURL != "" || a.Agora.Error == "" || strings.Join(a.Dialects(), ",") != "a2a" {
				t.Fatalf("dialects %v, Agora state %+v", a.Dialects(), a.Agora)
			}
		})
	}
}

// TestCardSignatureAttacks: each forged, misdirected or malformed
// signature leaves the card invalid, with the reason on the record.
func TestCardSignatureAttacks(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// setup serves the card (and keys) on p; evil is another loopback
		// server the allow-list also opens.
		setup func(t *testing.T, p, evil *peer)
		want  string
	}{
		{"a changed card", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "ES256", "k")
			p.serve("/jwks.json", jwks(key))
			body := signedCard(t, card(p, 1), p.URL+"/jwks.json", key)
			p.serve("/.well-known/agent-card.json", bytes.Replace(body, []byte("plans routes"), []byte("steals funds"), 1))
		}, "does not verify"},
		{"a key not in the key set under a kid that is", func(t *testing.T, p, _ *peer) {
			key, forger := newSigner(t, "ES256", "k"), newSigner(t, "ES256", "k")
			p.serve("/jwks.json", jwks(key))
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), p.URL+"/jwks.json", forger))
		}, "does not verify"},
		{"a kid the key set lacks", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "EdDSA", "k")
			p.serve("/jwks.json", jwks(newSigner(t, "EdDSA", "other")))
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), p.URL+"/jwks.json", key))
		}, `no key "k"`},
		{"alg none", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "none", "k")
			p.serve("/jwks.json", jwks(key))
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), p.URL+"/jwks.json", key))
		}, `algorithm "none" refused`},
		{"HS256 with the key set's secret", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "HS256", "k")
			p.serve("/jwks.json", jwks(key))
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), p.URL+"/jwks.json", key))
		}, `algorithm "HS256" refused`},
		{"a signature over another form than JCS", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "ES256", "k")
			p.serve("/jwks.json", jwks(key))
			c := card(p, 1)
			pretty, _ := json.MarshalIndent(c, "", " ") // what a signer skipping JCS signs
			out := map[string]any{"signatures": []any{key.sign(t, pretty, p.URL+"/jwks.json")}}
			for k, v := range c {
				out[k] = v
			}
			b, _ := json.Marshal(out)
			p.serve("/.well-known/agent-card.json", b)
		}, "does not verify"},
		{"a key set on another origin", func(t *testing.T, p, evil *peer) {
			key := newSigner(t, "ES256", "k")
			evil.serve("/jwks.json", jwks(key)) // anyone can vouch for a card there
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), evil.URL+"/jwks.json", key))
		}, "not on the agent's own origin"},
		{"a key set on a private address", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "ES256", "k")
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), "http://10.0.0.1/jwks.json", key))
		}, "not on the agent's own origin"},
		{"a key set that redirects to a loopback address the guard refuses", func(t *testing.T, p, evil *peer) {
			key := newSigner(t, "ES256", "k")
			hidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(jwks(key)) }))
			t.Cleanup(hidden.Close)
			p.handle("/jwks.json", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, hidden.URL+"/jwks.json", http.StatusFound)
			})
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), p.URL+"/jwks.json", key))
		}, "not allowed"},
		{"a huge key set", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "ES256", "k")
			p.serve("/jwks.json", append(jwks(key), bytes.Repeat([]byte(" "), 2<<20)...))
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), p.URL+"/jwks.json", key))
		}, "exceeds the limit"},
		{"the signer's key beyond the keys read from a set", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "EdDSA", "k")
			var filler []signer
			for i := range 40 {
				filler = append(filler, newSigner(t, "EdDSA", fmt.Sprint("f", i)))
			}
			p.serve("/jwks.json", jwks(append(filler, key)...))
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), p.URL+"/jwks.json", key))
		}, `no key "k"`},
		{"an RSA key under 2048 bits", func(t *testing.T, p, _ *peer) {
			weak, err := rsa.GenerateKey(rand.Reader, 1024)
			if err != nil {
				t.Fatal(err)
			}
			key := signer{alg: "RS256", kid: "k", key: weak}
			p.serve("/jwks.json", jwks(key))
			p.serve("/.well-known/agent-card.json", signedCard(t, card(p, 1), p.URL+"/jwks.json", key))
		}, "does not verify"},
		{"an unencoded payload (b64 false)", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "ES256", "k")
			p.serve("/jwks.json", jwks(key))
			c := card(p, 1)
			h, _ := json.Marshal(map[string]any{"alg": "ES256", "kid": "k", "jku": p.URL + "/jwks.json", "b64": false})
			digest := sha256.Sum256(append([]byte(b64(h)+"."), canonical(t, c)...))
			r, ss, err := ecdsa.Sign(rand.Reader, key.key.(*ecdsa.PrivateKey), digest[:])
			if err != nil {
				t.Fatal(err)
			}
			sig := append(r.FillBytes(make([]byte, 32)), ss.FillBytes(make([]byte, 32))...)
			c["signatures"] = []any{map[string]string{"protected": b64(h), "signature": b64(sig)}}
			b, _ := json.Marshal(c)
			p.serve("/.well-known/agent-card.json", b)
		}, "b64 header parameters are not understood"},
		{"a card nested too deep to canonicalize", func(t *testing.T, p, _ *peer) {
			key := newSigner(t, "ES256", "k")
			p.serve("/jwks.json", jwks(key))
			c := card(p, 1)
			var deep any = "bottom"
			for range 40 {
				deep = []any{deep}
			}
			c["extensions"] = deep
			p.serve("/.well-known/agent-card.json", signedCard(t, c, p.URL+"/jwks.json", key))
		}, "nested deeper"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, evil := newPeer(t), newPeer(t)
			// The guard opens these two servers only (port by port).
			d, _, _ := dialectDirectory(t, p.Listener.Addr().String(), evil.Listener.Addr().String())
			tc.setup(t, p, evil)
			a, _, err := d.Register(ctx, p.URL)
			if err != nil {
				t.Fatal(err)
			}
			if a.A2A == nil || a.A2A.Signature != entity.SignatureInvalid || !strings.Contains(a.A2A.SignatureReason, tc.want) {
				t.Fatalf("card %+v; want invalid, %q", a.A2A, tc.want)
			}
		})
	}
}

// TestUnsignedCard: a card without signatures is recorded unsigned.
func TestUnsignedCard(t *testing.T) {
	d, _, _ := dialectDirectory(t, "127.0.0.1/32")
	p := newPeer(t)
	b, _ := json.Marshal(card(p, 1))
	p.serve("/.well-known/agent-card.json", b)
	a, _, err := d.Register(context.Background(), p.URL)
	if err != nil || a.A2A == nil || a.A2A.Signature != entity.SignatureUnsigned {
		t.Fatalf("%+v, %v", a.A2A, err)
	}
}

// TestHostileCards: size, skill count and fetch guard bounds of the card.
func TestHostileCards(t *testing.T) {
	ctx := context.Background()
	t.Run("thousands of skills are cut to the limit and counted", func(t *testing.T) {
		d, _, _ := dialectDirectory(t, "127.0.0.1/32")
		p := newPeer(t)
		b, _ := json.Marshal(card(p, 5000))
		p.serve("/.well-known/agent-card.json", b)
		a, _, err := d.Register(ctx, p.URL)
		if err != nil || a.A2A == nil {
			t.Fatalf("a card of 5000 skills: %v", err)
		}
		if len(a.A2A.Skills) != store.MaxA2ASkills || a.A2A.SkillCount != 5000 {
			t.Fatalf("%d skills kept of %d", len(a.A2A.Skills), a.A2A.SkillCount)
		}
	})
	t.Run("a huge card is refused, the Agora list still read", func(t *testing.T) {
		d, _, _ := dialectDirectory(t, "127.0.0.1/32")
		p := newPeer(t)
		p.serve("/.well-known/agent-card.json", append([]byte(`{"name":"x","description":"`), bytes.Repeat([]byte("a"), 2<<20)...))
		p.serve("/wellknown", []byte(`{"`+weather.Hex()+`":[]}`))
		a, _, err := d.Register(ctx, p.URL)
		if err != nil || a.A2A != nil || !strings.Contains(a.A2AState.Error, "exceeds the limit") || len(a.Supported) != 1 {
			t.Fatalf("%v; card %+v, state %+v", err, a.A2A, a.A2AState)
		}
	})
	t.Run("a card answering with a redirect to loopback is refused", func(t *testing.T) {
		p := newPeer(t)
		d, _, _ := dialectDirectory(t, p.Listener.Addr().String())
		hidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := json.Marshal(card(p, 1))
			_, _ = w.Write(b)
		}))
		t.Cleanup(hidden.Close)
		p.handle("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, hidden.URL+"/card.json", http.StatusFound)
		})
		_, _, err := d.Register(ctx, p.URL)
		if err == nil || !strings.Contains(err.Error(), "not allowed") {
			t.Fatalf("a card redirected to loopback: %v", err)
		}
	})
}

// TestManifests: an ARD manifest's entries are recorded, cut to the limit
// and counted, a million of them included.
func TestManifests(t *testing.T) {
	ctx := context.Background()
	entry := func(i int) string {
		return fmt.Sprintf(`{"identifier":"urn:air:a.test:agent:%d","displayName":"Agent %d","type":"application/a2a-agent-card+json","url":"https://a.test/%d.json","tags":["t"]}`, i, i, i)
	}
	t.Run("entries recorded", func(t *testing.T) {
		d, _, _ := dialectDirectory(t, "127.0.0.1/32")
		p := newPeer(t)
		p.serve("/.well-known/ai-catalog.json", []byte(`{"specVersion":"1.0","entries":[`+entry(1)+`,
			{"identifier":"urn:air:a.test:x:js","displayName":"JS","type":"text/html","url":"javascript:alert(1)"},
			{"displayName":"no type"}],"host":{"displayName":"Acme"}}`))
		a, _, err := d.Register(ctx, p.URL)
		if err != nil || a.ARD == nil || a.ARD.Host != "Acme" || a.ARD.EntryCount != 3 || len(a.ARD.Entries) != 2 ||
			a.ARD.Entries[0].URL != "https://a.test/1.json" || a.ARD.Entries[1].URL != "" || a.ARD.URL != p.URL+"/.well-known/ai-catalog.json" {
			t.Fatalf("%v; manifest %+v", err, a.ARD)
		}
	})
	t.Run("ard.json answers when ai-catalog.json does not", func(t *testing.T) {
		d, _, _ := dialectDirectory(t, "127.0.0.1/32")
		p := newPeer(t)
		p.serve("/.well-known/ard.json", []byte(`{"entries":[`+entry(1)+`]}`))
		a, _, err := d.Register(ctx, p.URL)
		if err != nil || a.ARD == nil || a.ARD.URL != p.URL+"/.well-known/ard.json" {
			t.Fatalf("%v; %+v", err, a.ARD)
		}
	})
	t.Run("a million entries", func(t *testing.T) {
		st, clk := openStore(t), &clock{now: time.Now()}
		d := newDirectoryWith(t, st, directory.Config{Allow: []string{"127.0.0.1/32"}, Now: clk.Now, MaxBytes: 64 << 20, Timeout: time.Minute})
		p := newPeer(t)
		var b bytes.Buffer
		b.WriteString(`{"entries":[`)
		for i := range 1_000_000 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"type":"a","displayName":"e"}`)
		}
		b.WriteString(`]}`)
		p.serve("/.well-known/ai-catalog.json", b.Bytes())
		a, _, err := d.Register(ctx, p.URL)
		if err != nil || a.ARD == nil {
			t.Fatalf("a manifest of a million entries: %v", err)
		}
		if len(a.ARD.Entries) != store.MaxARDEntries || a.ARD.EntryCount != 1_000_000 {
			t.Fatalf("%d entries kept of %d", len(a.ARD.Entries), a.ARD.EntryCount)
		}
		// Under the default size limit, the same manifest is refused.
		d2, _, _ := dialectDirectory(t, "127.0.0.1/32")
		if _, _, err := d2.Register(ctx, p.URL); err == nil || !strings.Contains(err.Error(), "exceeds the limit") {
			t.Fatalf("a 30 MB manifest under the default limit: %v", err)
		}
	})
}

// TestDialectFailureKeepsOtherDialects: a dialect that fails keeps its
// last good data while the others update, until it has failed
// MaxFailures crawls in a row; the agent stays while any dialect answers.
func TestDialectFailureKeepsOtherDialects(t *testing.T) {
	d, _, clk := dialectDirectory(t, "127.0.0.1/32") // MaxFailures 3
	ctx := context.Background()
	p := newPeer(t)
	b, _ := json.Marshal(card(p, 1))
	p.serve("/.well-known/agent-card.json", b)
	p.serve("/wellknown", []byte(`{"`+weather.Hex()+`":[]}`))
	a, _, err := d.Register(ctx, p.URL)
	if err != nil || a.A2A == nil || len(a.Supported) != 1 {
		t.Fatalf("%v; %+v", err, a)
	}
	p.handle("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) })
	p.serve("/wellknown", []byte(`{"`+weather.Hex()+`":[],"`+other.Hex()+`":[]}`))
	for i := 1; i <= 3; i++ {
		clk.add(2 * time.Hour)
		if _, err := d.CrawlDue(ctx); err != nil {
			t.Fatal(err)
		}
		a, err = d.Get(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Supported) != 2 || a.A2AState.Failures != i || !strings.Contains(a.A2AState.Error, "500") || a.Failures != 0 {
			t.Fatalf("crawl %d: supported %d, A2A state %+v, failures %d", i, len(a.Supported), a.A2AState, a.Failures)
		}
		if kept := a.A2A != nil; kept != (i < 3) {
			t.Fatalf("crawl %d: card kept %v", i, kept)
		}
	}
	// Now the Agora list fails and the card is back: the list is kept.
	p.serve("/.well-known/agent-card.json", b)
	p.handle("/wellknown", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusInternalServerError) })
	clk.add(2 * time.Hour)
	if _, err := d.CrawlDue(ctx); err != nil {
		t.Fatal(err)
	}
	if a, err = d.Get(ctx, a.ID); err != nil || a.A2A == nil || a.A2AState.Failures != 0 || len(a.Supported) != 2 || a.Agora.Failures != 1 {
		t.Fatalf("%v; card %v, supported %d, Agora %+v", err, a.A2A != nil, len(a.Supported), a.Agora)
	}
}
