package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/testing/pgtest"
	"github.com/agora-registry/registry/internal/translog"
)

// publishOver posts a document and returns its hex hash.
func publishOver(t *testing.T, base, text string) string {
	t.Helper()
	status, _, body := call(t, http.MethodPost, base+"/api/v1/protocols", strings.NewReader(text), "Content-Type", "text/markdown")
	if status != http.StatusCreated {
		t.Fatalf("publish: %d %s", status, body)
	}
	var p struct{ Hex string }
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	return p.Hex
}

// feed reads the whole change feed.
func feed(t *testing.T, base string) translog.Changes {
	t.Helper()
	var all translog.Changes
	for {
		status, _, body := call(t, http.MethodGet, fmt.Sprintf("%s/api/v1/changes?after=%d&limit=1000", base, all.Next), nil)
		var page translog.Changes
		if status != http.StatusOK || json.Unmarshal(body, &page) != nil {
			t.Fatalf("changes: %d %s", status, body)
		}
		all.Changes = append(all.Changes, page.Changes...)
		all.Next, all.TreeSize = page.Next, page.TreeSize
		if len(page.Changes) == 0 {
			return all
		}
	}
}

// TestTwoProcessesKeepOneLog runs two registries on one PostgreSQL
// database, publishes through both at once, and audits one tree through
// each of them.
func TestTwoProcessesKeepOneLog(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a := startServer(t, "--database-url", dsn, "--open-publish", "--no-examples", "--public-url", "http://registry.test")
	b := startServer(t, "--database-url", dsn, "--open-publish", "--no-examples", "--public-url", "http://registry.test")
	const each = 60
	hashes := make([][]string, 2)
	var wg sync.WaitGroup
	for i, srv := range []string{a.URL, b.URL} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				hashes[i] = append(hashes[i], publishOver(t, srv, fmt.Sprintf("# Doc %d-%d\n\nBody %d %d.\n", i, j, i, j)))
			}
		}()
	}
	wg.Wait()
	all := append(append([]string{}, hashes[0]...), hashes[1]...)

	state := filepath.Join(t.TempDir(), "verify.json")
	for _, srv := range []string{a.URL, b.URL, a.URL} {
		out, errOut, err := runCLI(t, nil, nil, append([]string{"verify", "--registry", srv, "--state", state}, all...)...)
		if err != nil || strings.Count(out, " ok record ") != len(all) {
			t.Fatalf("verify through %s: %v\n%s\n%s", srv, err, out, errOut)
		}
	}
	// Both processes serve the same tree, each document once, gap-free.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, _, ca := call(t, http.MethodGet, a.URL+"/log/checkpoint", nil)
		_, _, cb := call(t, http.MethodGet, b.URL+"/log/checkpoint", nil)
		if bytes.Equal(ca, cb) && bytes.Contains(ca, []byte(fmt.Sprintf("\n%d\n", len(all)))) {
			if !bytes.HasPrefix(ca, []byte("registry.test\n")) {
				t.Fatalf("checkpoint origin: %q", ca)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the two processes serve different checkpoints:\n%s\n%s", ca, cb)
		}
		time.Sleep(100 * time.Millisecond)
	}
	f := feed(t, b.URL)
	seen := map[string]bool{}
	for i, c := range f.Changes {
		if c.Index != int64(i) || c.Event != "publish" || seen[c.Hex] {
			t.Fatalf("change %d: %+v (repeated: %v)", i, c, seen[c.Hex])
		}
		seen[c.Hex] = true
	}
	for _, h := range all {
		if !seen[h] {
			t.Fatalf("%s is not in the change feed", h)
		}
	}
}

// TestLogKeyKeptAcrossRestarts: the generated key is stored with the data;
// a key file replaces it; verify pins the key it first saw.
func TestLogKeyKeptAcrossRestarts(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, "--data-dir", data, "--open-publish", "--no-examples")
	_, _, wk1 := call(t, http.MethodGet, s.URL+"/.well-known/agora", nil)
	h := publishOver(t, s.URL, "# Kept\n\nAcross restarts.\n")
	stopServer(t, s)
	s = startServer(t, "--data-dir", data, "--open-publish", "--no-examples")
	_, _, wk2 := call(t, http.MethodGet, s.URL+"/.well-known/agora", nil)
	key := func(b []byte) string {
		var w struct{ Log struct{ VerifierKey string } }
		if err := json.Unmarshal(b, &w); err != nil || w.Log.VerifierKey == "" {
			t.Fatalf("well-known: %v %s", err, b)
		}
		return w.Log.VerifierKey
	}
	if key(wk1) != key(wk2) {
		t.Fatalf("the log key changed across a restart: %s, %s", key(wk1), key(wk2))
	}
	state := filepath.Join(t.TempDir(), "verify.json")
	if out, errOut, err := runCLI(t, nil, nil, "verify", "--registry", s.URL, "--state", state, "--key", key(wk2), h); err != nil {
		t.Fatalf("verify: %v\n%s%s", err, out, errOut)
	}
	stopServer(t, s)

	// Another key, from a file: the registry re-signs its head, and the
	// pinned key refuses it.
	skey, err := translog.GenerateKey("other.example")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "log.key")
	if err := os.WriteFile(keyFile, []byte(skey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s = startServer(t, "--data-dir", data, "--open-publish", "--no-examples", "--log-key-file", keyFile)
	_, _, cp := call(t, http.MethodGet, s.URL+"/log/checkpoint", nil)
	if !bytes.HasPrefix(cp, []byte("other.example\n1\n")) {
		t.Fatalf("checkpoint under the key file: %q", cp)
	}
	out, errOut, err := runCLI(t, nil, nil, "verify", "--registry", s.URL, "--state", state, h)
	if err == nil || !strings.Contains(out+errOut, "does not verify") {
		t.Fatalf("verify with the old pinned key against a re-keyed log: %v\n%s%s", err, out, errOut)
	}
}

// TestFollowProcess: `registry serve --follow` replicates another
// registry process, withdrawals included, and reports its lag.
func TestFollowProcess(t *testing.T) {
	upData := t.TempDir()
	up := startServer(t, "--data-dir", upData, "--open-publish", "--no-examples")
	h := publishOver(t, up.URL, "# Followed\n\nReplicated.\n")
	gone := publishOver(t, up.URL, "# Followed then withdrawn\n\nGoes.\n")
	down := startServer(t, "--data-dir", t.TempDir(), "--no-examples", "--follow", up.URL)
	waitFor := func(what, path string, want int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			status, _, _ := call(t, http.MethodGet, down.URL+path, nil)
			if status == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s answered %d, want %d\n%s", what, path, status, want, down.Logs())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("replication", "/protocol/"+h, http.StatusOK)
	waitFor("replication", "/protocol/"+gone, http.StatusOK)
	token, errOut, err := runCLI(t, nil, nil, "token", "create", "--data-dir", upData, "--name", "admin", "--scope", "admin")
	if err != nil {
		t.Fatalf("token create: %v %s", err, errOut)
	}
	if status, _, body := call(t, http.MethodDelete, up.URL+"/api/v1/protocols/"+gone, strings.NewReader(`{"reason":"test"}`),
		"Authorization", "Bearer "+strings.TrimSpace(token), "Content-Type", "application/json"); status != http.StatusNoContent {
		t.Fatalf("withdraw upstream: %d %s", status, body)
	}
	waitFor("withdrawal", "/protocol/"+gone, http.StatusGone)

	// The upstream restarts on its address: the follower backs off and
	// resumes from its cursor.
	stopServer(t, up)
	up = startServer(t, "--data-dir", upData, "--open-publish", "--no-examples", "--addr", strings.TrimPrefix(up.URL, "http://"))
	after := publishOver(t, up.URL, "# Published after a restart\n\nStill followed.\n")
	waitFor("replication after the upstream's restart", "/protocol/"+after, http.StatusOK)
	_, _, m := call(t, http.MethodGet, down.URL+"/metrics", nil)
	if !bytes.Contains(m, []byte(`registry_follow_lag_records{upstream="`+up.URL+`"}`)) {
		t.Fatalf("no lag metric for the upstream:\n%s", m)
	}
}

// TestFollowPrivateUpstream: a follower given the read token of a
// --private upstream (--follow-token-file) replicates it; one without it
// replicates nothing; a pair naming no --follow upstream, a malformed pair
// or a missing file stops the start with the reason.
func TestFollowPrivateUpstream(t *testing.T) {
	upData := t.TempDir()
	mint := func(name, scope string) string {
		t.Helper()
		out, errOut, err := runCLI(t, nil, nil, "token", "create", "--data-dir", upData, "--name", name, "--scope", scope)
		if err != nil {
			t.Fatalf("token create: %v %s", err, errOut)
		}
		return strings.TrimSpace(out)
	}
	pub, read := mint("publisher", "publish"), mint("follower", "read")
	up := startServer(t, "--data-dir", upData, "--private", "--no-examples")
	status, _, body := call(t, http.MethodPost, up.URL+"/api/v1/protocols", strings.NewReader("# Private and followed\n\nReplicated with a token.\n"),
		"Content-Type", "text/markdown", "Authorization", "Bearer "+pub)
	if status != http.StatusCreated {
		t.Fatalf("publish upstream: %d %s", status, body)
	}
	var doc struct{ Hex string }
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(t.TempDir(), "follow-token")
	if err := os.WriteFile(tokenFile, []byte(read+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	for pair, want := range map[string]string{
		"http://elsewhere.test=" + tokenFile: "not one of --follow",
		up.URL:                               "takes URL=FILE pairs",
		up.URL + "=":                         "takes URL=FILE pairs",
		up.URL + "=" + tokenFile + ".gone":   "follow token file",
	} {
		if _, errOut, err := runCLI(t, nil, nil, "serve", "--data-dir", t.TempDir(), "--no-examples", "--addr", "127.0.0.1:0",
			"--follow", up.URL, "--follow-token-file", pair); err == nil || !strings.Contains(errOut, want) {
			t.Fatalf("--follow-token-file %s: %v\n%s", pair, err, errOut)
		}
	}
	without := startServer(t, "--data-dir", t.TempDir(), "--no-examples", "--follow", up.URL)
	with := startServer(t, "--data-dir", t.TempDir(), "--no-examples", "--follow", up.URL, "--follow-token-file", up.URL+"="+tokenFile)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if status, _, _ := call(t, http.MethodGet, with.URL+"/protocol/"+doc.Hex, nil); status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the follower with the read token did not replicate the private upstream\n%s", with.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if status, _, _ := call(t, http.MethodGet, without.URL+"/protocol/"+doc.Hex, nil); status != http.StatusNotFound {
		t.Fatalf("the follower without a token answers %d for the private document, want 404", status)
	}
}

// TestWebhookSurvivesARestart: a delivery that failed is retried by the
// next process from the queue in the database, signed.
func TestWebhookSurvivesARestart(t *testing.T) {
	var (
		mu    sync.Mutex
		calls int
		got   []byte
		sig   http.Header
	)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		got, sig = b, r.Header.Clone()
	}))
	defer hook.Close()
	data := t.TempDir()
	// No --secret: the command makes one and prints it once.
	out, errOut, err := runCLI(t, nil, nil, "webhook", "add", "--data-dir", data, "--events", "publish", hook.URL)
	_, secret, ok := strings.Cut(strings.TrimSpace(out), "\nsecret ")
	if err != nil || !ok || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("webhook add: %v %s %s", err, out, errOut)
	}
	s := startServer(t, "--data-dir", data, "--open-publish", "--no-examples", "--outbound-allow", "127.0.0.1")
	h := publishOver(t, s.URL, "# Hooked\n\nDelivered.\n")
	deadline := time.Now().Add(20 * time.Second)
	for {
		mu.Lock()
		n := calls
		mu.Unlock()
		if n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivery attempt:\n%s", s.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopServer(t, s)
	s = startServer(t, "--data-dir", data, "--no-examples", "--outbound-allow", "127.0.0.1")
	deadline = time.Now().Add(40 * time.Second) // the first retry waits 10 s
	for {
		mu.Lock()
		body, signature := got, sig
		mu.Unlock()
		if body != nil {
			if err := agora.VerifyWebhook(secret, signature, body, time.Now(), 0); err != nil || !bytes.Contains(body, []byte(h)) || !bytes.Contains(body, []byte(`"specversion":"1.0"`)) {
				t.Fatalf("delivered %s signed %v: %v", body, signature, err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failed delivery was not retried after the restart:\n%s", s.Logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The cursor is saved after the receiver answered: wait for it.
	for deadline = time.Now().Add(20 * time.Second); ; {
		out, _, err = runCLI(t, nil, nil, "webhook", "list", "--data-dir", data)
		if err == nil && strings.Contains(out, "delivered 1 attempts 0") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook list: %v %q", err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
