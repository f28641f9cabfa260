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

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/testing/witnesstest"
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
	doc := "# Witnessed\n\nA document the witness sees logged.\n"
	hex := publishOver(t, s.URL, doc)

	logKey, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	wv, _, err := agora.ParseWitnessKey(lw.VerifierKey)
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

	// What a reader does with it: verify requires the witness's cosignature
	// (quorum 1) and passes; a key of a witness that never saw the log does
	// not count, and the quorum is not met (exit 2, never a fork).
	state := filepath.Join(t.TempDir(), "verify.json")
	wantVerify(t, s.URL, state, 0, "cosigned by 1 of 1 witnesses (quorum 1): witness.test/e2e",
		"--key="+vkey, "--witness-key", lw.VerifierKey, "--quorum", "1", hex)
	stranger := security.NewWitness(t, "stranger.test").VerifierKey
	out := wantVerify(t, s.URL, filepath.Join(t.TempDir(), "v.json"), 2, "0 of the 1 configured witnesses cosigned",
		"--key="+vkey, "--witness-key", stranger, "--quorum", "1", hex)
	if strings.Contains(out, "FORK") {
		t.Fatalf("a missing cosignature was called a fork:\n%s", out)
	}
	// The document's proof travels: checked offline with the log's key and
	// the witness's key.
	dir := t.TempDir()
	proof, file := filepath.Join(dir, "doc.tlog-proof"), filepath.Join(dir, "doc.md")
	if err := os.WriteFile(proof, mustGet(t, s.URL+"/protocol/"+hex+".tlog-proof"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	stopServer(t, s)
	if stdout, errOut, err := runCLI(t, nil, nil, "verify", "--proof", proof, "--key="+vkey, "--witness-key", lw.VerifierKey, "--quorum", "1", file); err != nil {
		t.Fatalf("verify --proof with the witness's key: %v\n%s%s", err, stdout, errOut)
	}
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
