package api

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// collidingDocuments returns two documents whose SHA-1s share their first
// 8 hex digits (a birthday search over numbered documents: about 2^16
// hashes), so a prefix of that length is ambiguous.
func collidingDocuments(t *testing.T) (a, b []byte) {
	t.Helper()
	seen := map[string][]byte{}
	for i := 0; i < 1<<20; i++ {
		doc := []byte(fmt.Sprintf("---\nname: Prefix Twin %d\ndescription: d\n---\n# Twin %d\n", i, i))
		sum := sha1.Sum(doc)
		key := hex.EncodeToString(sum[:4])
		if other, ok := seen[key]; ok {
			return other, doc
		}
		seen[key] = doc
	}
	t.Fatal("no two documents share 8 hex digits")
	return nil, nil
}

// TestProtocolByPrefix: GET /api/v1/protocols/{prefix} answers the one
// document a hex prefix of 8+ digits names (the MCP tool and the CLI use
// it); an ambiguous prefix is a 409 naming the candidates; a shorter one
// says how many digits a prefix needs.
func TestProtocolByPrefix(t *testing.T) {
	ctx := context.Background()
	ts, svc := newServer(t, Config{}, nil)

	a, b := collidingDocuments(t)
	var hexes []string
	for _, doc := range [][]byte{a, b} {
		res, err := svc.Publish(ctx, doc, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		hexes = append(hexes, res.Entry.Digest.Hex())
	}
	if hexes[0][:8] != hexes[1][:8] || hexes[0][:12] == hexes[1][:12] {
		t.Fatalf("the twins %v do not share exactly the 8-digit prefix", hexes)
	}
	type answer struct {
		Hex    string `json:"hex"`
		Code   string `json:"code"`
		Detail string `json:"detail"`
	}
	fetch := func(path string) (int, answer) {
		t.Helper()
		res, body := get(t, ts.URL+"/api/v1/protocols/"+path, "application/json")
		var v answer
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, body)
		}
		return res.StatusCode, v
	}
	for _, h := range hexes {
		for _, p := range []string{h[:12], strings.ToUpper(h[:12]), h[:39]} {
			if status, v := fetch(p); status != http.StatusOK || v.Hex != h {
				t.Errorf("prefix %s: %d %+v, want 200 %s", p, status, v, h)
			}
		}
	}
	status, v := fetch(hexes[0][:8])
	if status != http.StatusConflict || v.Code != "ambiguous_hash_prefix" || !strings.Contains(v.Detail, hexes[0]) || !strings.Contains(v.Detail, hexes[1]) {
		t.Errorf("ambiguous prefix: %d %+v", status, v)
	}
	if status, v := fetch(hexes[0][:6]); status != http.StatusBadRequest || v.Code != "malformed_hash_prefix" || !strings.Contains(v.Detail, "8") {
		t.Errorf("6-digit prefix: %d %+v", status, v)
	}
	none := "0123456789ab"
	if hexes[0][:12] == none || hexes[1][:12] == none {
		none = "ba9876543210"
	}
	if status, v := fetch(none); status != http.StatusNotFound || !strings.Contains(v.Detail, none) {
		t.Errorf("unknown prefix: %d %+v", status, v)
	}
	if status, _ := fetch("weather"); status != http.StatusBadRequest {
		t.Errorf("a word: %d, want 400", status)
	}
}
