package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
)

// TestPublishersEndToEnd runs the publisher lifecycle with the real binary
// on both engines: accounts and their tokens from the CLI, a publish under
// another publisher that changes nothing, a deprecation through
// `registry deprecate` seen in raw headers, resolve and history, and a
// domain verified over a loopback socket through the SSRF guard.
func TestPublishersEndToEnd(t *testing.T) {
	for name, dbArgs := range engines(t) {
		t.Run(name, func(t *testing.T) { publishersEndToEnd(t, dbArgs(t)) })
	}
}

func publishersEndToEnd(t *testing.T, db []string) {
	cli := func(env []string, args ...string) (string, string, error) {
		t.Helper()
		return runCLI(t, env, nil, append(args, db...)...)
	}
	must := func(out, stderr string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		return strings.TrimSpace(out)
	}
	must(cli(nil, "publisher", "create", "acme", "--display", "Acme Corp."))
	must(cli(nil, "publisher", "create", "globex"))
	if _, stderr, err := cli(nil, "publisher", "create", "acme"); err == nil || !strings.Contains(stderr, "exists already") {
		t.Fatalf("a second publisher create acme: %v %s", err, stderr)
	}
	if _, stderr, err := cli(nil, "publisher", "create", "mirror"); err == nil || !strings.Contains(stderr, "reserved") {
		t.Fatalf("publisher create of a reserved name: %v %s", err, stderr)
	}
	if list := must(cli(nil, "publisher", "list")); !strings.Contains(list, "acme") || !strings.Contains(list, "Acme Corp.") || !strings.Contains(list, "default") {
		t.Fatalf("publisher list:\n%s", list)
	}
	if _, stderr, err := cli(nil, "token", "create", "--name", "x", "--publisher", "nobody"); err == nil || !strings.Contains(stderr, "publisher create") {
		t.Fatalf("token for a publisher without an account: %v %s", err, stderr)
	}
	acmeTok := must(cli(nil, "token", "create", "--name", "acme-ci", "--publisher", "acme"))
	globexTok := must(cli(nil, "token", "create", "--name", "globex-ci", "--publisher", "globex"))

	srv := startServer(t, append([]string{"--no-examples"}, db...)...)
	base := srv.URL
	dir := t.TempDir()
	v1 := []byte("---\nname: Acme Weather\nversion: 1\n---\n\n# Acme Weather\n\nv1.\n")
	v1File := filepath.Join(dir, "v1.md")
	os.WriteFile(v1File, v1, 0o600)
	sum, _ := protocol.Hash(v1)
	v2 := []byte(fmt.Sprintf("---\nname: Acme Weather\nversion: 2\nsupersedes: %s\n---\n\n# Acme Weather\n\nv2.\n", sum.SHA1.Hex()))
	v2File := filepath.Join(dir, "v2.md")
	os.WriteFile(v2File, v2, 0o600)
	sum2, _ := protocol.Hash(v2)
	must(runCLI(t, []string{"REGISTRY_TOKEN=" + acmeTok}, nil, "publish", "--server", base, v1File, v2File))

	// The same bytes under another publisher change nothing and say whose they are.
	out, stderr, err := runCLI(t, []string{"REGISTRY_TOKEN=" + globexTok}, nil, "publish", "--server", base, v1File)
	if err != nil || !strings.HasPrefix(out, "exists ") || !strings.Contains(stderr, "first published by acme") {
		t.Fatalf("publish of acme's bytes by globex: %v %q %q", err, out, stderr)
	}

	// Another publisher cannot deprecate acme's document; acme can.
	if _, stderr, err := runCLI(t, []string{"REGISTRY_TOKEN=" + globexTok}, nil, "deprecate", "--server", base, "--message", "mine now", sum.SHA1.Hex()); err == nil || !strings.Contains(stderr, "not_your_document") && !strings.Contains(stderr, "belongs to publisher acme") {
		t.Fatalf("deprecate by another publisher: %v %s", err, stderr)
	}
	out = must(runCLI(t, []string{"REGISTRY_TOKEN=" + acmeTok}, nil, "deprecate", "--server", base, "--message", "use v2", "--replacement", sum2.SHA1.Hex(), sum.SHA1.Hex()))
	if !strings.HasPrefix(out, "deprecated "+sum.SHA1.Hex()) {
		t.Fatalf("deprecate output %q", out)
	}
	status, h, body := call(t, "GET", base+"/protocol/"+sum.SHA1.Hex(), nil)
	if status != 200 || string(body) != string(v1) || !strings.HasPrefix(h.Get("Deprecation"), "@") ||
		h.Get("Link") != "<"+base+"/protocol/"+sum2.SHA1.Hex()+`>; rel="successor-version"` {
		t.Fatalf("raw fetch of the deprecated document: %d %v %q", status, h, body)
	}
	if status, h, _ := call(t, "GET", base+"/protocol/"+sum2.SHA1.Hex(), nil); status != 200 || h.Get("Deprecation") != "" || h.Get("Link") != "" {
		t.Fatalf("raw fetch of the active document: %d %v", status, h)
	}
	_, _, body = call(t, "POST", base+"/api/v1/resolve", strings.NewReader(`{"hashes":["`+sum.SHA1.Hex()+`"]}`), "Content-Type", "application/json")
	var rr struct {
		Results []struct{ Status, Message, Replacement string }
	}
	if json.Unmarshal(body, &rr) != nil || len(rr.Results) != 1 || rr.Results[0].Status != "deprecated" ||
		rr.Results[0].Message != "use v2" || rr.Results[0].Replacement != sum2.SHA1.Hex() {
		t.Fatalf("resolve of the deprecated document: %s", body)
	}
	_, _, body = call(t, "GET", base+"/api/v1/protocols/"+sum.SHA1.Hex()+"/history", nil)
	var hist struct {
		Events []struct{ Actor, Status string }
	}
	if json.Unmarshal(body, &hist) != nil || len(hist.Events) != 1 || hist.Events[0].Actor != "acme" || hist.Events[0].Status != "deprecated" {
		t.Fatalf("history: %s", body)
	}
	_, _, body = call(t, "GET", base+"/api/v1/protocols?publisher=acme", nil)
	if strings.Count(string(body), `"publisher":"acme"`) != 2 {
		t.Fatalf("?publisher=acme: %s", body)
	}

	// Domain verification over loopback: refused by the guard unless the
	// address is allowed, then verified once the challenge is served.
	var served atomic.Value
	served.Store("")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/agora-publisher" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "# agora publisher proof")
		fmt.Fprintln(w, served.Load().(string))
	}))
	defer site.Close()
	domain := strings.TrimPrefix(site.URL, "http://")
	challenge := must(cli(nil, "publisher", "verify", "acme", "--domain", domain))
	if !strings.HasPrefix(challenge, "agora-publisher-verification=") {
		t.Fatalf("challenge %q", challenge)
	}
	if _, stderr, err := cli([]string{"REGISTRY_OUTBOUND_ALLOW=127.0.0.1"}, "publisher", "verify", "acme", "--domain", domain, "--check", "--scheme", "http"); err == nil || !strings.Contains(stderr, "challenge") {
		t.Fatalf("check before the challenge is served: %v %s", err, stderr)
	}
	served.Store(challenge)
	if _, stderr, err := cli(nil, "publisher", "verify", "acme", "--domain", domain, "--check", "--scheme", "http", "--outbound-allow", ""); err == nil || !strings.Contains(stderr, "--outbound-allow") {
		t.Fatalf("check of a loopback address without --outbound-allow: %v %s", err, stderr)
	}
	out = must(cli([]string{"REGISTRY_OUTBOUND_ALLOW=127.0.0.1"}, "publisher", "verify", "acme", "--domain", domain, "--check", "--scheme", "http"))
	if !strings.Contains(out, "verified for "+domain) {
		t.Fatalf("verify --check: %q", out)
	}
	_, _, body = call(t, "GET", base+"/api/v1/publishers/acme", nil)
	var pv struct {
		DisplayName    string
		VerifiedDomain *string
	}
	if json.Unmarshal(body, &pv) != nil || pv.VerifiedDomain == nil || *pv.VerifiedDomain != domain || pv.DisplayName != "Acme Corp." {
		t.Fatalf("publisher view: %s", body)
	}
	stopServer(t, srv)
}
