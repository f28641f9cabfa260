package translog

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"

	"filippo.io/torchwood"
	"github.com/agora-registry/registry/agora"
	"golang.org/x/mod/sumdb/note"
)

// FuzzWitnessAnswer: whatever a witness answers, cosignatureOf never
// panics, and what it accepts is one line that verifies over the
// checkpoint with the configured key.
func FuzzWitnessAnswer(f *testing.F) {
	wkey := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{4}, 32))
	ws, err := torchwood.NewCosignatureSigner("witness.test/fuzz", wkey)
	if err != nil {
		f.Fatal(err)
	}
	skey, err := GenerateKey("registry.test")
	if err != nil {
		f.Fatal(err)
	}
	lk, err := ParseKey(skey)
	if err != nil {
		f.Fatal(err)
	}
	cp, err := note.Sign(&note.Note{Text: "registry.test\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"}, lk.Signer)
	if err != nil {
		f.Fatal(err)
	}
	signed, err := note.Sign(&note.Note{Text: "registry.test\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"}, ws)
	if err != nil {
		f.Fatal(err)
	}
	good := signed[bytes.LastIndex(signed, []byte("\n\n"))+2:]
	f.Add(good)
	f.Add(append([]byte("— other.test AAAA\n"), good...))
	f.Add([]byte("— witness.test/fuzz AAAA\n"))
	f.Add([]byte("409\n"))
	f.Fuzz(func(t *testing.T, answer []byte) {
		line, err := cosignatureOf(cp, answer, ws.Verifier())
		if err != nil {
			return
		}
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Fatalf("accepted %q: not one line", line)
		}
		if n, err := note.Open(append(bytes.Clone(cp), line...), note.VerifierList(ws.Verifier())); err != nil || len(n.Sigs) != 1 {
			t.Fatalf("accepted %q, which does not verify: %v", line, err)
		}
	})
}

// FuzzParseWitness: a --witness value either parses to a cosignature
// verifier and an http(s) URL, or is refused; never a panic.
func FuzzParseWitness(f *testing.F) {
	ws, _ := torchwood.NewCosignatureSigner("witness.test/w", ed25519.NewKeyFromSeed(make([]byte, 32)))
	f.Add(ws.Verifier().String() + "@https://w.test/x")
	f.Add("a+00000000+BA==@http://x")
	f.Add("@@")
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWitness(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(w.URL, "http://") && !strings.HasPrefix(w.URL, "https://") {
			t.Fatalf("ParseWitness(%q) accepted URL %q", s, w.URL)
		}
		if _, _, err := agora.ParseWitnessKey(w.Key); err != nil {
			t.Fatalf("ParseWitness(%q) accepted key %q: %v", s, w.Key, err)
		}
	})
}
