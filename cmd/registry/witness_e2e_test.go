package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/agora-registry/registry/internal/testing/witnesstest"
	"github.com/agora-registry/registry/internal/translog"
)

// TestServeWithLitewitness: `registry serve --witness VKEY@URL` pointing at
// the real litewitness (the log's origin and key registered with
// witnessctl, as docs/operations.md says) serves, after a publish, a
// checkpoint cosigned by the witness; the cosignature verifies with the
// witness's key, and the metric counts it.
func TestServeWithLitewitness(t *testing.T) {
	skey, errOut, err := runCLI(t, nil, nil, "log-key", "registry.test/witnessed")
	if err != nil {
		t.Fatalf("log-key: %v %s", err, errOut)
	}
	vkey := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(errOut), "verifier key:"))
	keyFile := filepath.Join(t.TempDir(), "log.key")
	if err := os.WriteFile(keyFile, []byte(skey), 0o600); err != nil {
		t.Fatal(err)
	}
	lw := witnesstest.Start(t, "witness.test/e2e", "registry.test/witnessed", vkey)
	s := startServer(t, "--data-dir", t.TempDir(), "--open-publish", "--no-examples", "--log-key-file", keyFile,
		"--witness", lw.VerifierKey+"@"+lw.URL)
	publishOver(t, s.URL, "# Witnessed\n\nA document the witness sees logged.\n")

	logKey, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	wv, err := translog.CosignatureVerifier(lw.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	var cp []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, _, cp = call(t, http.MethodGet, s.URL+"/log/checkpoint", nil)
		n, err := note.Open(cp, note.VerifierList(logKey, wv))
		if err != nil {
			t.Fatalf("the served checkpoint does not verify: %v\n%s", err, cp)
		}
		if len(n.Sigs) == 2 && bytes.HasPrefix(cp, []byte("registry.test/witnessed\n1\n")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cosigned checkpoint of size 1 within 30s:\n%s\n%s", cp, s.Logs())
		}
	}
	if got := lw.Size(t, "registry.test/witnessed"); got != "1" {
		t.Fatalf("litewitness holds size %s", got)
	}
	_, _, metrics := call(t, http.MethodGet, s.URL+"/metrics", nil)
	for _, want := range []string{"registry_witness_cosignatures 1\n", "registry_witness_quorum 1\n", `registry_witness_failures_total{witness="witness.test/e2e"} 0`} {
		if !bytes.Contains(metrics, []byte(want)) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	stopServer(t, s)
}

// TestServeRefusesBadWitnesses: a --witness that is not VKEY@URL with a
// cosignature key, or a quorum above the witnesses, stops serve at start.
func TestServeRefusesBadWitnesses(t *testing.T) {
	_, plain, _ := note.GenerateKey(nil, "witness.test/plain")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--witness", "nonsense"}, "is not VKEY@URL"},
		{[]string{"--witness", plain + "@http://127.0.0.1:1"}, "not a cosignature verifier key"},
		{[]string{"--witness-quorum", "1"}, "without any --witness"},
	} {
		_, errOut, err := runCLI(t, nil, nil, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--no-examples"}, tc.args...)...)
		if err == nil || !strings.Contains(errOut, tc.want) {
			t.Errorf("serve %v: %v, stderr %q; want %q", tc.args, err, errOut, tc.want)
		}
	}
}
