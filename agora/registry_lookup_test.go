package agora

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLookupRefusesAnotherDocument: a registry that answers a prefix (or a
// hash) with a document whose hash does not start with it is caught.
func TestLookupRefusesAnotherDocument(t *testing.T) {
	asked := Digest{0xab, 0xcd, 0xef, 0x01, 0x23, 0x45}
	other := Digest{0x11}
	answer := asked
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"hex":"` + answer.Hex() + `","base64":"` + answer.Base64() + `","title":"t"}`))
	}))
	defer srv.Close()
	reg, err := NewRegistry(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []string{asked.Hex()[:12], strings.ToUpper(asked.Hex()[:12]), asked.Hex(), asked.Base64()} {
		if p, err := reg.Lookup(ctx, q); err != nil || p.Hex != asked.Hex() {
			t.Fatalf("Lookup(%s) = %+v, %v", q, p, err)
		}
	}
	answer = other
	for _, q := range []string{asked.Hex()[:12], asked.Hex(), asked.Base64()} {
		if _, err := reg.Lookup(ctx, q); !errors.Is(err, ErrRegistryBadAnswer) {
			t.Errorf("Lookup(%s) answered by another document: %v", q, err)
		}
	}
}
