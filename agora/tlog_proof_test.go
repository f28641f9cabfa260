package agora

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// proofOf is the honest proof of record id against the tree of the first
// n records, with checkpoint signed (of that tree).
func (l *memLog) proofOf(t testing.TB, id, n int64, signed []byte) TLogProof {
	t.Helper()
	p, err := tlog.ProveRecord(n, id, l)
	if err != nil {
		t.Fatal(err)
	}
	return TLogProof{Extra: l.texts[id], Index: id, Hashes: p, Checkpoint: signed}
}

// signedAt is l's checkpoint of its first n records.
func (l *memLog) signedAt(t testing.TB, n int) []byte {
	t.Helper()
	all := l.texts
	l.texts = all[:n]
	defer func() { l.texts = all }()
	b, err := l.LogCheckpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDocumentProof: a c2sp.org/tlog-proof is accepted only for the
// document whose publish record it proves, under a checkpoint that meets
// the policy. Each case is one lie; each names the check it guards.
func TestDocumentProof(t *testing.T) {
	l, vkey, _ := filled(t, 6)
	doc := []byte("# The document\n\nProved.\n")
	d := l.add(t, doc, false) // record 6
	l.add(t, []byte("# After\n"), false)
	liar := []byte("# Colliding\n")
	l.add(t, liar, true) // record 8: liar's SHA-1, other bytes
	sum := sha256.Sum256(doc)
	stray, _ := Hash([]byte("# Stray\n"))
	// Record 9: another hash claiming the document's bytes; 10: the
	// document's withdrawal (it too names its SHA-256 and size).
	l.addRecord(t, LogRecord{Event: LogEventPublish, Digest: stray.SHA1, SHA256: sum, Size: len(doc), Time: time.Unix(1e9, 0)})
	l.addRecord(t, LogRecord{Event: LogEventWithdraw, Digest: d, SHA256: sum, Size: len(doc), Time: time.Unix(1e9, 0), Status: "withdrawn"})
	const n = 11
	w1, w2, w3 := newWitness(t, "w1.test"), newWitness(t, "w2.test"), newWitness(t, "w3.test")
	policy := WitnessPolicy{LogKey: vkey, WitnessKeys: []string{w1.vkey, w2.vkey, w3.vkey}, Quorum: 2}
	signed := cosign(t, l.signedAt(t, n), w1, w2)
	good := l.proofOf(t, 6, n, signed)
	otherSkey, _ := genKey(t, l.signer.Name())
	forger := newMemLog(t, otherSkey)
	forger.texts, forger.hashes = l.texts, l.hashes

	edit := func(f func(p *TLogProof)) []byte {
		p := good
		p.Hashes = append(tlog.RecordProof(nil), good.Hashes...)
		f(&p)
		return p.Format()
	}
	cases := []struct {
		name  string
		proof []byte
		doc   []byte
		want  error
	}{
		{"valid", good.Format(), doc, nil},
		// Check: the record must name the document's SHA-1.
		{"forged extra: another document's record and proof", l.proofOf(t, 2, n, signed).Format(), doc, ErrLogNotProved},
		{"forged extra: another hash's record at this index", edit(func(p *TLogProof) { p.Extra = l.texts[2] }), doc, ErrLogNotProved},
		{"a logged record of another hash with the document's bytes", l.proofOf(t, 9, n, signed).Format(), doc, ErrLogNotProved},
		// Check: only a publish record proves a document.
		{"the document's withdrawal record", l.proofOf(t, 10, n, signed).Format(), doc, ErrLogNotProved},
		// Check: the record's SHA-256 and size must be the document's.
		{"a hostile registry's proof for other bytes", l.proofOf(t, 8, n, signed).Format(), liar, ErrLogNotProved},
		// Check: the leaf is proved at the proof's index.
		{"wrong index", edit(func(p *TLogProof) { p.Index = 7 }), doc, ErrLogNotProved},
		{"index outside the tree", edit(func(p *TLogProof) { p.Index = n }), doc, ErrLogNotProved},
		// Check: the inclusion proof has exactly the tree's hashes.
		{"truncated proof hashes", edit(func(p *TLogProof) { p.Hashes = p.Hashes[:len(p.Hashes)-1] }), doc, ErrLogNotProved},
		{"an extra proof hash", edit(func(p *TLogProof) { p.Hashes = append(p.Hashes, p.Hashes[0]) }), doc, ErrLogNotProved},
		{"a changed proof hash", edit(func(p *TLogProof) { p.Hashes[0][0] ^= 1 }), doc, ErrLogNotProved},
		// Check: the checkpoint is the log's (its signature, its key).
		{"checkpoint signed by another key", edit(func(p *TLogProof) { p.Checkpoint = cosign(t, forger.signedAt(t, n), w1, w2) }), doc, ErrBadLogCheckpoint},
		// Check: the proof's hashes are those of the checkpoint's tree.
		{"right log, proof against an older tree", edit(func(p *TLogProof) { p.Hashes = l.proofOf(t, 6, 7, nil).Hashes }), doc, ErrLogNotProved},
		// Check: the witness quorum.
		{"quorum one short", edit(func(p *TLogProof) { p.Checkpoint = cosign(t, l.signedAt(t, n), w3) }), doc, ErrNoQuorum},
		{"cosignature from an unknown key", edit(func(p *TLogProof) {
			p.Checkpoint = cosign(t, l.signedAt(t, n), w3, newWitness(t, "stranger.test"))
		}), doc, ErrNoQuorum},
		{"one witness's line twice", edit(func(p *TLogProof) { p.Checkpoint = cosign(t, l.signedAt(t, n), w3, w3) }), doc, ErrNoQuorum},
		// Check: the proof's log must be a trusted one.
		{"untrusted log", edit(func(p *TLogProof) {
			sk, _ := genKey(t, "elsewhere.test")
			other := newMemLog(t, sk)
			other.texts, other.hashes = l.texts, l.hashes
			p.Checkpoint = other.signedAt(t, n)
		}), doc, ErrUnproved},
		{"no extra", edit(func(p *TLogProof) { p.Extra = nil }), doc, ErrLogNotProved},
		// Check: the size bound, before anything is parsed.
		{"oversized", append(good.Format(), bytes.Repeat([]byte("— x.test AAAA\n"), MaxTLogProofBytes/14)...), doc, ErrBadTLogProof},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := VerifyDocumentProof(c.proof, c.doc, policy)
			if c.want == nil {
				if err != nil || got.Index != 6 || got.Record.Digest != d || len(got.Checkpoint.Witnesses) != 2 {
					t.Fatalf("VerifyDocumentProof: %+v, %v", got, err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("VerifyDocumentProof: %v, want %v", err, c.want)
			}
		})
	}
}

// The format round-trips, and each malformation is refused.
func TestParseTLogProof(t *testing.T) {
	l, _, _ := filled(t, 5)
	p := l.proofOf(t, 3, 5, l.signedAt(t, 5))
	b := p.Format()
	if !strings.HasPrefix(string(b), TLogProofHeader+"\nextra ") {
		t.Fatalf("format:\n%s", b)
	}
	got, err := ParseTLogProof(b)
	if err != nil || !bytes.Equal(got.Format(), b) || got.Index != 3 || len(got.Hashes) != len(p.Hashes) {
		t.Fatalf("round trip: %v\n%s", err, got.Format())
	}
	s := string(b)
	for name, bad := range map[string]string{
		"header":            strings.Replace(s, "@v1", "@v2", 1),
		"index leading 0":   strings.Replace(s, "index 3", "index 03", 1),
		"index negative":    strings.Replace(s, "index 3", "index -3", 1),
		"no index":          strings.Replace(s, "index 3\n", "", 1),
		"extra not base64":  strings.Replace(s, "extra ", "extra !", 1),
		"hash short":        strings.Replace(s, "=\n", "\n", 1),
		"no blank line":     strings.Replace(s, "=\n\n", "=\n", 1),
		"no checkpoint":     s[:strings.Index(s, "\n\n")+2],
		"too many hashes":   strings.Replace(s, "index 3\n", "index 3\n"+strings.Repeat(base64Hash(1), 63), 1),
		"CRLF":              strings.ReplaceAll(s, "\n", "\r\n"),
		"non-canonical b64": TLogProofHeader + "\nindex 1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=\n\nx\n",
	} {
		if _, err := ParseTLogProof([]byte(bad)); !errors.Is(err, ErrBadTLogProof) {
			t.Errorf("%s: %v, want ErrBadTLogProof", name, err)
		}
	}
}

func base64Hash(b byte) string {
	var h tlog.Hash
	h[0] = b
	return fmt.Sprintf("%s\n", h)
}

// FuzzParseTLogProof: the parser never panics, and what it accepts is in
// its one canonical form (it formats back to the same bytes), within the
// size bound.
func FuzzParseTLogProof(f *testing.F) {
	l, _, _ := filled(f, 5)
	f.Add(l.proofOf(f, 3, 5, l.signedAt(f, 5)).Format())
	f.Add([]byte(TLogProofHeader + "\nindex 0\n\ncheckpoint\n"))
	f.Add([]byte(TLogProofHeader + "\nextra \nindex 0\n\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParseTLogProof(b)
		if err != nil {
			return
		}
		if len(b) > MaxTLogProofBytes || len(p.Hashes) > maxTLogProofHashes {
			t.Fatalf("accepted %d bytes, %d hashes", len(b), len(p.Hashes))
		}
		if !bytes.Equal(p.Format(), b) {
			t.Fatalf("not canonical:\n%q\n%q", b, p.Format())
		}
	})
}
