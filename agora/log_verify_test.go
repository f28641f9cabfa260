package agora

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// memLog is a registry's log in memory, built with tlog itself and signed
// with note, answering as the /log endpoints do.
type memLog struct {
	signer note.Signer
	texts  [][]byte
	hashes []tlog.Hash
	first  map[Digest]int64
}

func newMemLog(t testing.TB, skey string) *memLog {
	s, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	return &memLog{signer: s, first: map[Digest]int64{}}
}

func (l *memLog) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		if x >= int64(len(l.hashes)) {
			return nil, fmt.Errorf("hash %d not stored", x)
		}
		out[i] = l.hashes[x]
	}
	return out, nil
}

// add appends a publish record of doc, or of other bytes claiming doc's
// SHA-1 when lie is set.
func (l *memLog) add(t testing.TB, doc []byte, lie bool) Digest {
	sums, err := Hash(doc)
	if err != nil {
		t.Fatal(err)
	}
	r := LogRecord{Event: LogEventPublish, Digest: sums.SHA1, SHA256: sha256.Sum256(doc), Size: len(doc), Time: time.Unix(1e9, 0)}
	if lie {
		r.SHA256[0] ^= 1
	}
	text, err := FormatLogRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := tlog.StoredHashes(int64(len(l.texts)), text, l)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.first[sums.SHA1]; !ok {
		l.first[sums.SHA1] = int64(len(l.texts))
	}
	l.texts, l.hashes = append(l.texts, text), append(l.hashes, hs...)
	return sums.SHA1
}

func (l *memLog) LogCheckpoint(context.Context) ([]byte, error) {
	n := int64(len(l.texts))
	root, err := tlog.TreeHash(n, l)
	if err != nil {
		return nil, err
	}
	return note.Sign(&note.Note{Text: LogCheckpoint{Origin: l.signer.Name(), Tree: tlog.Tree{N: n, Hash: root}}.Body()}, l.signer)
}

func (l *memLog) LogTile(_ context.Context, path string) ([]byte, error) {
	tile, err := tlog.ParseTilePath(strings.TrimPrefix(path, "/"))
	if err != nil {
		return nil, err
	}
	if tile.L == -1 {
		return l.dataTile(tile), nil
	}
	return tlog.ReadTileData(tile, l)
}

func (l *memLog) LogLookup(ctx context.Context, d Digest) ([]byte, error) {
	id, ok := l.first[d]
	if !ok {
		return nil, newError(KindNotFound, "not_logged", "not in the log")
	}
	msg, err := tlog.FormatRecord(id, l.texts[id])
	if err != nil {
		return nil, err
	}
	cp, err := l.LogCheckpoint(ctx)
	return append(msg, cp...), err
}

// genKey is a new signer key and its verifier key.
func genKey(t testing.TB, name string) (string, string) {
	skey, vkey, err := note.GenerateKey(rand.Reader, name)
	if err != nil {
		t.Fatal(err)
	}
	return skey, vkey
}

// TestProveDocument: a document is proved only by its own publish record
// (SHA-256 and size too), and a record of other bytes under its SHA-1 is
// refused, as are other documents' records.
func TestProveDocument(t *testing.T) {
	ctx := context.Background()
	skey, vkey := genKey(t, "log.test")
	l := newMemLog(t, skey)
	for i := range 5 {
		l.add(t, fmt.Appendf(nil, "# Filler %d\n", i), false)
	}
	good, liar := []byte("# Good\n"), []byte("# Liar\n")
	dg, dl := l.add(t, good, false), l.add(t, liar, true)
	l.add(t, []byte("# After\n"), false)
	v, err := NewLogVerifier(l, vkey)
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.ProveDocument(ctx, dg, good)
	if err != nil || p.Index != 5 || p.Checkpoint.N != 8 {
		t.Fatalf("ProveDocument of a logged document: %+v %v", p, err)
	}
	if _, err := v.ProveDocument(ctx, dl, liar); !errors.Is(err, ErrLogNotProved) || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("a record of other bytes: %v", err)
	}
	if _, err := v.ProveDocument(ctx, dg, append(good, ' ')); !errors.Is(err, ErrLogNotProved) {
		t.Fatalf("other bytes than the record's: %v", err)
	}
	if _, err := NewLogVerifier(l, "not a key"); !errors.Is(err, ErrBadVerifierKey) {
		t.Fatalf("a bad verifier key: %v", err)
	}
}

// TestPinnedLogRefusesAFork: once the resolver saw a checkpoint of a
// pinned log, a proof from a tree that does not extend it is refused,
// even though each tree is signed with the right key.
func TestPinnedLogRefusesAFork(t *testing.T) {
	ctx := context.Background()
	skey, vkey := genKey(t, "log.test")
	a, b := newMemLog(t, skey), newMemLog(t, skey)
	docs := [][]byte{[]byte("# One\n"), []byte("# Two\n"), []byte("# Three\n")}
	for _, doc := range docs {
		a.add(t, doc, false)
	}
	b.add(t, docs[1], false) // another history under the same key
	b.add(t, docs[0], false)
	b.add(t, docs[2], false)
	b.add(t, []byte("# Four\n"), false)
	va, _ := NewLogVerifier(a, vkey)
	p := &pinnedLog{v: va}
	d0, _ := Hash(docs[0])
	if err := p.prove(ctx, d0.SHA1, docs[0]); err != nil {
		t.Fatal(err)
	}
	p.v, _ = NewLogVerifier(b, vkey)
	err := p.prove(ctx, d0.SHA1, docs[0])
	if !errors.Is(err, ErrUnproved) || !errors.Is(err, ErrLogFork) {
		t.Fatalf("a forked log: %v", err)
	}
	// The same log grown is accepted.
	a.add(t, []byte("# Four\n"), false)
	p.v = va
	if err := p.prove(ctx, d0.SHA1, docs[0]); err != nil || p.seen.N != 4 {
		t.Fatalf("a grown log: %v (seen %d)", err, p.seen.N)
	}
}
