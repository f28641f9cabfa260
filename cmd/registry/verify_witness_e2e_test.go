package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

// mustGet is the body of a 200 answer.
func mustGet(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", u, resp.StatusCode, err, b)
	}
	return b
}

// `registry verify --witness-key --quorum` against the real registry,
// its checkpoint cosigned by test witnesses through a proxy (as a
// registry with witnesses serves it): the quorum is met, one short (exit
// 2, never a fork), or a configured witness's cosignature is invalid
// (exit 2).
func TestVerifyWitnessQuorum(t *testing.T) {
	srv := security.Start(t, security.Options{})
	ds := publishN(t, srv, "Witnessed", 3)
	key := "--key=" + srv.Log.VerifierKey()
	w1, w2, w3 := security.NewWitness(t, "w1.test"), security.NewWitness(t, "w2.test"), security.NewWitness(t, "w3.test")
	policy := []string{"--witness-key", w1.VerifierKey, "--witness-key", w2.VerifierKey, "--witness-key", w3.VerifierKey, "--quorum", "2"}
	args := func(extra ...string) []string {
		return append(append([]string{key}, policy...), append(extra, ds[0].Hex())...)
	}

	both := security.CosigningProxy(t, srv.URL, nil, w1, w3)
	state := filepath.Join(t.TempDir(), "verify.json")
	wantVerify(t, both, state, 0, "cosigned by 2 of 3 witnesses (quorum 2): w1.test, w3.test", args()...)

	// Check: one short of the quorum is exit 2 (not established), not 1.
	one := security.CosigningProxy(t, srv.URL, nil, w2)
	out := wantVerify(t, one, filepath.Join(t.TempDir(), "v.json"), 2, "1 of the 3 configured witnesses cosigned", args()...)
	if strings.Contains(out, "FORK") {
		t.Fatalf("a missing cosignature was called a fork:\n%s", out)
	}
	// Check: a configured witness's cosignature over another checkpoint.
	publishN(t, srv, "Later", 1)
	stale := security.Cosign(t, mustGet(t, srv.URL+"/log/checkpoint"), w2)
	staleLine := stale[bytes.LastIndex(stale[:len(stale)-1], []byte("\n"))+1:]
	publishN(t, srv, "Even later", 1)
	lying := security.CosigningProxy(t, srv.URL, func(path string, b []byte) []byte { return append(b, staleLine...) }, w1, w3)
	wantVerify(t, lying, filepath.Join(t.TempDir(), "v.json"), 2, `the cosignature of witness "w2.test" does not verify`, args()...)
	// The state kept from the first run is unchanged by refused checkpoints.
	wantVerify(t, both, state, 0, "consistent with size 3 seen before", args()...)

	// --witness-key without --quorum is a usage error.
	wantVerify(t, both, state, 2, "needs --quorum", key, "--witness-key", w1.VerifierKey, ds[0].Hex())
}

// `registry verify --proof FILE DOCUMENT`: the registry's proof checks
// offline against the document; other bytes are refuted (exit 1); a
// policy the checkpoint does not meet, another key, or an oversized file
// is exit 2.
func TestVerifyProofFile(t *testing.T) {
	srv := security.Start(t, security.Options{})
	ds := publishN(t, srv, "Proof", 20)
	w1, w2 := security.NewWitness(t, "w1.test"), security.NewWitness(t, "w2.test")
	proxy := security.CosigningProxy(t, srv.URL, nil, w1)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	proof := write("doc.tlog-proof", mustGet(t, proxy+"/protocol/"+ds[7].Hex()+".tlog-proof"))
	doc := write("doc.md", mustGet(t, srv.URL+"/protocol/"+ds[7].Hex()))
	other := write("other.md", mustGet(t, srv.URL+"/protocol/"+ds[8].Hex()))
	key := "--key=" + srv.Log.VerifierKey()
	run := func(code int, contains string, args ...string) {
		t.Helper()
		out, errOut, err := runCLI(t, nil, nil, append([]string{"verify"}, args...)...)
		got := 0
		if err != nil {
			got = exitCode(err)
		}
		if got != code || !strings.Contains(out+errOut, contains) {
			t.Fatalf("verify %v: exit %d, want %d with %q:\n%s%s", args, got, code, contains, out, errOut)
		}
	}
	run(0, ds[7].Hex()+" ok: its publish", "--proof", proof, key, doc)
	run(0, "cosigned by w1.test", "--proof", proof, key, "--witness-key", w1.VerifierKey, "--witness-key", w2.VerifierKey, "--quorum", "1", doc)
	run(1, "PROOF REFUTED", "--proof", proof, key, other)
	run(2, "NOT PROVED", "--proof", proof, key, "--witness-key", w1.VerifierKey, "--witness-key", w2.VerifierKey, "--quorum", "2", doc)
	origin, _, _ := strings.Cut(srv.Log.VerifierKey(), "+")
	skey, err := translog.GenerateKey(origin)
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := translog.ParseKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	run(2, "NOT PROVED", "--proof", proof, "--key="+otherKey.VerifierKey, doc)
	big := write("big.tlog-proof", bytes.Repeat([]byte("x"), agora.MaxTLogProofBytes+1))
	run(2, "larger than", "--proof", big, key, doc)
	run(2, "needs --key", "--proof", proof, doc)
}
