package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
)

// TestSendTakesAHashPrefix: --protocol takes the 12-digit prefix listings
// show, asked of the registries; an ambiguous one is an error naming the
// candidates, and a short one says what a prefix is.
func TestSendTakesAHashPrefix(t *testing.T) {
	want := agora.Digest{0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/abcdef01") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusConflict)
			w.Write([]byte(`{"status":409,"code":"ambiguous_hash_prefix","detail":"2 protocols' hashes start with abcdef01: x (A), y (B); give more digits"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"hex":"` + want.Hex() + `","base64":"` + want.Base64() + `","title":"t"}`))
	}))
	defer srv.Close()
	reg, err := agora.NewRegistry(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := loadCandidates(ctx, []*agora.Registry{reg}, []string{want.Hex()[:12]})
	if err != nil || len(got) != 1 || got[0].Digest != want {
		t.Fatalf("a 12-digit prefix: %+v %v", got, err)
	}
	if _, err := loadCandidates(ctx, []*agora.Registry{reg}, []string{"abcdef01"}); err == nil || !strings.Contains(err.Error(), "give more digits") {
		t.Errorf("an ambiguous prefix: %v", err)
	}
	if _, err := loadCandidates(ctx, []*agora.Registry{reg}, []string{"abcdef"}); err == nil || !strings.Contains(err.Error(), "at least 8 hex digits") {
		t.Errorf("a 6-digit prefix: %v", err)
	}
	if _, err := loadCandidates(ctx, nil, []string{want.Hex()[:12]}); err == nil || !strings.Contains(err.Error(), "--registry") {
		t.Errorf("no registry: %v", err)
	}
}
