package html_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/registry"
)

// A private registry answers no read without a session or a read token:
// pages send a browser to sign in, machines get 401 problem+json, raw
// documents too when the cache holds them (the fast raw path beside the
// router), and only the probes stay open.
func TestPrivateModeGatesEveryRead(t *testing.T) {
	p := startProvider(t)
	cfg := p.Config()
	srv := startServer(t, serverOptions{private: true, log: true, cacheBytes: 1 << 20, signIn: signInWith(cfg.Issuer, cfg.ClientID, cfg.ClientSecret, &clock{})})
	ctx := context.Background()
	res, err := srv.svc.PublishRequest(ctx, registry.PublishRequest{Content: []byte("---\nname: Secret\ndescription: Team only.\n---\n# Secret\n")})
	if err != nil {
		t.Fatal(err)
	}
	raw := "/protocol/" + res.Entry.Digest.Hex()
	reader, err := srv.svc.CreateToken(ctx, "reader", []entity.Scope{entity.ScopeRead})
	if err != nil {
		t.Fatal(err)
	}
	anon := noRedirects(t)
	do := func(c *http.Client, path, accept, token string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Accept", accept)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	reads := []string{raw, "/api/v1/protocols", "/api/v1/protocols/" + res.Entry.Digest.Hex(), "/api/v1/tags", "/api/v1/changes",
		"/log/checkpoint", "/llms.txt", "/feed.atom", "/metadata", "/.well-known/agora", "/mcp", "/metrics", "/api/v1/openapi.json",
		raw + ".tlog-proof", "/.well-known/ard.json", "/.well-known/ai-catalog.json", "/ard/agents", "/ard/agents/urn:air:x:agora-protocol:" + res.Entry.Digest.Hex()}
	// The reader's fetch first, so the raw document is in the cache.
	for _, path := range reads {
		if resp := do(anon, path, "*/*", reader.Secret); resp.StatusCode >= 400 && resp.StatusCode != http.StatusMethodNotAllowed && resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusNotAcceptable && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s with a read token: %d", path, resp.StatusCode)
		}
	}
	if resp := do(anon, raw, "*/*", reader.Secret); resp.StatusCode != 200 {
		t.Fatalf("the raw document with a read token: %d", resp.StatusCode)
	}
	for _, path := range reads {
		resp := do(anon, path, "application/json", "")
		want := "application/problem+json"
		if strings.HasPrefix(path, "/ard/") {
			want = "application/json" // the ARD API's own error shape
		}
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("Content-Type"), want) {
			t.Errorf("%s without a token: %d %s, want 401 %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), want)
		}
		if resp := do(anon, path, "application/json", "agr_wrong"); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with a wrong token: %d, want 401", path, resp.StatusCode)
		}
	}
	for _, path := range []string{"/", "/protocols", "/protocols/" + res.Entry.Digest.Hex(), "/tags", "/log", "/agents", "/publish"} {
		resp := do(anon, path, htmlAccept, "")
		if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login?next=") {
			t.Errorf("the page %s without a session: %d → %q, want a redirect to sign in", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if resp := do(anon, path, "*/*", ""); resp.StatusCode != 200 {
			t.Errorf("%s in private mode: %d, want 200", path, resp.StatusCode)
		}
	}
	// A signed-in browser reads pages and the API alike.
	p.QueueUser(&mockoidc.MockUser{Subject: "r1", Email: "rita@corp.test", EmailVerified: true})
	ua := userAgent(t)
	resp, _ := fetch(t, ua, "GET", srv.URL+"/login?next="+"/protocols", nil)
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/protocols" {
		t.Fatalf("signing in to a private registry: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	if resp := do(noRedirectsWithJar(ua), raw, "*/*", ""); resp.StatusCode != 200 {
		t.Errorf("the raw document with a session: %d", resp.StatusCode)
	}
	if resp := do(noRedirectsWithJar(ua), "/api/v1/protocols", "application/json", ""); resp.StatusCode != 200 {
		t.Errorf("the API with a session: %d", resp.StatusCode)
	}
}
