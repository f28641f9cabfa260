package security

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"filippo.io/torchwood"

	"github.com/agora-registry/registry/agora"
)

// Witness is a test witness (c2sp.org/tlog-cosignature): torchwood's
// cosigner and its verifier key. Tests cosign the registry's checkpoint
// with it instead of running a real witness.
type Witness struct {
	Signer      *torchwood.CosignatureSigner
	VerifierKey string
}

// NewWitness makes a witness with a fresh Ed25519 key.
func NewWitness(t testing.TB, name string) Witness {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := torchwood.NewCosignatureSigner(name, priv)
	if err != nil {
		t.Fatal(err)
	}
	return Witness{Signer: s, VerifierKey: s.Verifier().String()}
}

// Cosign appends the witnesses' cosignature lines to a signed checkpoint.
func Cosign(t testing.TB, signed []byte, ws ...Witness) []byte {
	t.Helper()
	text, _, ok := strings.Cut(string(signed), "\n\n")
	if !ok {
		t.Fatalf("not a signed note: %q", signed)
	}
	out := append([]byte(nil), signed...)
	for _, w := range ws {
		sig, err := w.Signer.Sign([]byte(text + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		line := binary.BigEndian.AppendUint32(nil, w.Signer.KeyHash())
		out = append(out, "— "+w.Signer.Name()+" "+base64.StdEncoding.EncodeToString(append(line, sig...))+"\n"...)
	}
	return out
}

// CosigningProxy forwards to base and serves the checkpoint cosigned by ws,
// as a registry with witnesses does: /log/checkpoint, and the checkpoint
// ending every /protocol/HASH.tlog-proof. edit, when set, then changes
// each such answer (a lie).
func CosigningProxy(t testing.TB, base string, edit func(path string, body []byte) []byte, ws ...Witness) string {
	t.Helper()
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(base + r.URL.RequestURI())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		proof := strings.HasSuffix(r.URL.Path, ".tlog-proof")
		if resp.StatusCode == http.StatusOK && (r.URL.Path == "/log/checkpoint" || proof) {
			if proof {
				p, err := agora.ParseTLogProof(b)
				if err != nil {
					t.Errorf("the registry's proof: %v", err)
				}
				p.Checkpoint = Cosign(t, p.Checkpoint, ws...)
				b = p.Format()
			} else {
				b = Cosign(t, b, ws...)
			}
			if edit != nil {
				b = edit(r.URL.Path, b)
			}
		}
		for k, v := range resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(b)
	}))
	t.Cleanup(p.Close)
	return p.URL
}
