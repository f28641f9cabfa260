package api

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// slashDocument is a document whose Base64 digest holds a '/'.
func slashDocument(t *testing.T) (doc, b64 string) {
	for i := 0; ; i++ {
		doc = fmt.Sprintf("# Slash %d\n\nIts Base64 hash holds a slash.\n", i)
		sum := sha1.Sum([]byte(doc))
		if b64 = base64.StdEncoding.EncodeToString(sum[:]); strings.Contains(b64, "/") {
			return doc, b64
		}
	}
}

// TestHashInPathIsUnescapedOnce (issue 13.11): %2F in a path hash is a '/',
// but %252F is the text "%2F" and no hash.
func TestHashInPathIsUnescapedOnce(t *testing.T) {
	s, ts, _ := newGateServer(t, Config{})
	s.auth.openPublish = true
	doc, b64 := slashDocument(t)
	c := clientFrom("127.0.0.1")
	if res, body := send(t, c, "POST", ts.URL+"/api/v1/protocols", "text/markdown", doc); res.StatusCode != 201 {
		t.Fatalf("publish: %d %s", res.StatusCode, body)
	}
	once := strings.ReplaceAll(b64, "/", "%2F")
	twice := strings.ReplaceAll(b64, "/", "%252F")
	for _, prefix := range []string{"/protocol/", "/api/v1/protocols/"} {
		if res, body := send(t, c, "GET", ts.URL+prefix+once, "", ""); res.StatusCode != 200 {
			t.Errorf("%s%s: %d %s", prefix, once, res.StatusCode, body)
		}
		if res, body := send(t, c, "GET", ts.URL+prefix+twice, "", ""); res.StatusCode != 400 || !strings.Contains(body, `"code":"malformed_hash"`) {
			t.Errorf("%s%s: %d %s, want 400 malformed_hash", prefix, twice, res.StatusCode, body)
		}
	}
}

// TestEveryAnswerIsNosniff (issue 13.11): JSON answers, problems and the
// heavy routes' buffered answers carry X-Content-Type-Options: nosniff.
func TestEveryAnswerIsNosniff(t *testing.T) {
	_, ts, _ := newGateServer(t, Config{})
	c := clientFrom("127.0.0.1")
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/", ""},
		{"GET", "/api/v1/stats", ""},
		{"GET", "/api/v1/tags", ""},
		{"GET", "/api/v1/protocols?q=x", ""},
		{"POST", "/api/v1/resolve", `{"hashes":["x"]}`},
		{"GET", "/api/v1/protocols/zz", ""},
		{"GET", "/nowhere", ""},
		{"GET", "/healthz", ""},
	} {
		res, body := send(t, c, r.method, ts.URL+r.path, "application/json", r.body)
		if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s %s (%d %.80s): X-Content-Type-Options %q", r.method, r.path, res.StatusCode, body, got)
		}
	}
}

// TestHeadHomeAnswersLikeGet (issue 13.11): HEAD / is GET / without a body.
func TestHeadHomeAnswersLikeGet(t *testing.T) {
	_, ts, _ := newGateServer(t, Config{})
	c := clientFrom("127.0.0.1")
	get, _ := send(t, c, "GET", ts.URL+"/", "", "")
	head, body := send(t, c, "HEAD", ts.URL+"/", "", "")
	if head.StatusCode != 200 || body != "" || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
		t.Errorf("HEAD /: %d %q Content-Type %q (GET: %d %q)", head.StatusCode, body, head.Header.Get("Content-Type"), get.StatusCode, get.Header.Get("Content-Type"))
	}
}
