package agora

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"filippo.io/torchwood"
	"golang.org/x/mod/sumdb/note"
)

// Witness quorum tests: cosignatures made with torchwood's signer over a
// checkpoint of a log built with tlog, one lie at a time. Each names the
// check it guards.

// testWitness is a witness: its cosigner and its verifier key.
type testWitness struct {
	signer *torchwood.CosignatureSigner
	priv   ed25519.PrivateKey
	vkey   string
}

func newWitness(t testing.TB, name string) testWitness {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := torchwood.NewCosignatureSigner(name, priv)
	if err != nil {
		t.Fatal(err)
	}
	return testWitness{signer: s, priv: priv, vkey: s.Verifier().String()}
}

// cosign appends the witnesses' cosignatures to a signed checkpoint.
func cosign(t testing.TB, signed []byte, ws ...testWitness) []byte {
	t.Helper()
	i := strings.LastIndex(string(signed), "\n\n")
	if i < 0 {
		t.Fatal("not a signed note")
	}
	text := signed[:i+1]
	out := append([]byte(nil), signed...)
	for _, w := range ws {
		sig, err := w.signer.Sign(text)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cosignatureLine(w.signer.Name(), w.signer.KeyHash(), sig)...)
	}
	return out
}

func cosignatureLine(name string, hash uint32, sig []byte) string {
	return "— " + name + " " + base64.StdEncoding.EncodeToString(append(binary.BigEndian.AppendUint32(nil, hash), sig...)) + "\n"
}

// cosignAt is a cosignature dated ts, written by hand to the
// c2sp.org/tlog-cosignature format (torchwood's signer dates it now).
func cosignAt(signed []byte, w testWitness, ts int64) []byte {
	text := signed[:strings.LastIndex(string(signed), "\n\n")+1]
	msg := "cosignature/v1\ntime " + strconv.FormatInt(ts, 10) + "\n" + string(text)
	sig := binary.BigEndian.AppendUint64(nil, uint64(ts))
	sig = append(sig, ed25519.Sign(w.priv, []byte(msg))...)
	return append(append([]byte(nil), signed...), cosignatureLine(w.signer.Name(), w.signer.KeyHash(), sig)...)
}

func TestWitnessQuorum(t *testing.T) {
	ctx := context.Background()
	l, vkey, _ := filled(t, 5)
	signed, _ := l.LogCheckpoint(ctx)
	w1, w2, w3, stranger := newWitness(t, "w1.test"), newWitness(t, "w2.test"), newWitness(t, "w3.test"), newWitness(t, "stranger.test")
	all := []string{w1.vkey, w2.vkey, w3.vkey}
	l.add(t, []byte("# Later\n"), false)
	later, _ := l.LogCheckpoint(ctx)
	otherSkey, _ := genKey(t, l.signer.Name())
	otherLog := newMemLog(t, otherSkey)
	otherLog.texts, otherLog.hashes = l.texts[:5], l.hashes
	forged, _ := otherLog.LogCheckpoint(ctx)
	// A cosignature line of w2 over the later checkpoint, moved onto this one.
	moved := cosign(t, later, w2)
	movedLine := string(moved[strings.LastIndex(string(moved[:len(moved)-1]), "\n")+1:])
	again, err := torchwood.NewCosignatureSigner("w1-again.test", w1.priv)
	if err != nil {
		t.Fatal(err)
	}
	sameKey := testWitness{signer: again, priv: w1.priv, vkey: again.Verifier().String()}
	body, _, _ := strings.Cut(string(signed), "\n\n")
	witnessesOnly, err := note.Sign(&note.Note{Text: body + "\n"}, w1.signer, w2.signer)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name    string
		msg     []byte
		keys    []string
		quorum  int
		want    error // nil: met
		counted int
	}{
		{"log signature alone, quorum 0", signed, all, 0, nil, 0},
		{"two of three", cosign(t, signed, w1, w3), all, 2, nil, 2},
		{"all three", cosign(t, signed, w1, w2, w3), all, 3, nil, 3},
		// Check: the count of valid cosignatures is compared with the quorum.
		{"quorum one short", cosign(t, signed, w1), all, 2, ErrNoQuorum, 0},
		// Check: only configured keys count.
		{"cosignature from an unknown key", cosign(t, signed, w1, stranger), all, 2, ErrNoQuorum, 0},
		// Check: one witness counts once, however many lines it has.
		{"duplicated cosignature line", cosign(t, cosign(t, signed, w1), w1), all, 2, ErrNoQuorum, 0},
		{"two cosignatures by one witness", cosign(t, cosign(t, signed, w1), w1), all, 1, nil, 1},
		// Check: a key listed twice is one witness (the policy cannot be met).
		{"key listed twice", cosign(t, signed, w1), []string{w1.vkey, w1.vkey}, 2, ErrBadPolicy, 0},
		// Check: one public key under two names is one witness.
		{"one key, two names", cosign(t, cosign(t, signed, w1), sameKey), []string{w1.vkey, sameKey.vkey}, 2, ErrBadPolicy, 0},
		// Check: a configured witness's cosignature over another checkpoint refuses it.
		{"cosignature over another checkpoint", append(cosign(t, signed, w1), movedLine...), all, 1, ErrBadCosignature, 0},
		// Check: the log's own signature is required, witnesses or not.
		{"signed by another log key", cosign(t, forged, w1, w2), all, 2, ErrBadLogCheckpoint, 0},
		{"cosigned, not signed by the log", witnessesOnly, all, 1, ErrBadLogCheckpoint, 0},
		// Check: a cosignature dated ahead of now does not count.
		{"cosignature from the future", cosignAt(signed, w1, time.Now().Add(time.Hour).Unix()), all, 1, ErrNoQuorum, 0},
		{"cosignature from the past", cosignAt(signed, w1, time.Now().Add(-24*time.Hour).Unix()), all, 1, nil, 1},
		{"not a witness key", signed, []string{vkey}, 0, ErrBadWitnessKey, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cp, err := WitnessPolicy{LogKey: vkey, WitnessKeys: c.keys, Quorum: c.quorum}.Open(c.msg)
			if c.want == nil {
				if err != nil || len(cp.Witnesses) != c.counted || cp.N != 5 {
					t.Fatalf("Open: %v, %v; want met with %d cosignatures", cp.Witnesses, err, c.counted)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Open: %v, want %v", err, c.want)
			}
		})
	}
}

// A quorum failure names who did not cosign, so an operator can tell a
// slow witness from a policy typo.
func TestNoQuorumSaysWhoIsMissing(t *testing.T) {
	l, vkey, _ := filled(t, 2)
	signed, _ := l.LogCheckpoint(context.Background())
	w1, w2 := newWitness(t, "w1.test"), newWitness(t, "w2.test")
	_, err := WitnessPolicy{LogKey: vkey, WitnessKeys: []string{w1.vkey, w2.vkey}, Quorum: 2}.Open(cosign(t, signed, w1))
	if !errors.Is(err, ErrNoQuorum) || !strings.Contains(err.Error(), "1 of the 2") || !strings.Contains(err.Error(), "w2.test") {
		t.Fatalf("Open: %v", err)
	}
}

func TestParseWitnessKey(t *testing.T) {
	w := newWitness(t, "w.test")
	if _, _, err := ParseWitnessKey(w.vkey); err != nil {
		t.Fatal(err)
	}
	_, logKey := genKey(t, "log.test")
	name, hash, _ := strings.Cut(w.vkey, "+")
	for _, bad := range []string{logKey, "", "w.test", name + "+00000000+" + strings.SplitN(hash, "+", 2)[1], w.vkey + "=", strings.Replace(w.vkey, "w.test", "v.test", 1)} {
		if _, _, err := ParseWitnessKey(bad); !errors.Is(err, ErrBadWitnessKey) {
			t.Errorf("ParseWitnessKey(%q): %v, want ErrBadWitnessKey", bad, err)
		}
	}
}
