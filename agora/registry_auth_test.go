package agora

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// A private registry's token goes to that registry only: with a source
// URL on its origin and to its API, never to a source on another origin,
// nor to the place the registry redirects to.
func TestRegistryTokenStaysWithItsOrigin(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // server → the Authorization it got
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen["other"] = r.Header.Get("Authorization")
		mu.Unlock()
		w.Write([]byte(doc))
	}))
	t.Cleanup(other.Close)
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen["registry"] = r.Header.Get("Authorization")
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer agr_secret" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, other.URL+"/elsewhere", http.StatusFound)
	}))
	t.Cleanup(reg.Close)
	r, err := NewResolver(ResolverOptions{CacheDir: t.TempDir(), Registries: []string{reg.URL}, Tokens: map[string]string{reg.URL: "agr_secret"},
		Fetch: FetchPolicy{Allow: []string{"127.0.0.1/32"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ResolveTransient(context.Background(), digest, []string{RawURL(reg.URL, digest)}); err != nil {
		t.Fatal(err)
	}
	if seen["registry"] != "Bearer agr_secret" || seen["other"] != "" {
		t.Fatalf("the registry got %q, the host it redirected to got %q; want the token at the registry only", seen["registry"], seen["other"])
	}
	seen = map[string]string{}
	if _, err := r.ResolveTransient(context.Background(), digest, []string{other.URL + "/doc"}); err != nil || seen["other"] != "" {
		t.Fatalf("a source on another origin got %q (%v)", seen["other"], err)
	}
	// The registry client's own requests: same rule.
	seen = map[string]string{}
	if _, err := r.Registries()[0].Fetch(context.Background(), digest); err != nil || seen["registry"] != "Bearer agr_secret" || seen["other"] != "" {
		t.Fatalf("the registry client: registry got %q, other got %q (%v)", seen["registry"], seen["other"], err)
	}
	if _, err := NewResolver(ResolverOptions{CacheDir: t.TempDir(), Tokens: map[string]string{"https://elsewhere.test": "x"}}); err == nil {
		t.Fatal("a token for no configured registry was taken")
	}
}
