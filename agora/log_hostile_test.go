package agora

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// Hostile-server tests of the client-side verifier, in the manner of
// golang.org/x/mod/sumdb's client tests: a log built with tlog itself,
// signed with the pinned key (a hostile registry holds its own key), and
// one lie at a time. Each test names the check it guards; removing that
// check makes it fail.

// lying wraps a memLog and lies where its hooks say.
type lying struct {
	*memLog
	tile   func(path string, honest []byte) ([]byte, error)
	lookup func(d Digest, honest []byte) ([]byte, error)
}

func (l *lying) LogTile(ctx context.Context, path string) ([]byte, error) {
	b, err := l.memLog.LogTile(ctx, path)
	if err == nil && l.tile != nil {
		return l.tile(path, b)
	}
	return b, err
}

func (l *lying) LogLookup(ctx context.Context, d Digest) ([]byte, error) {
	b, err := l.memLog.LogLookup(ctx, d)
	if err == nil && l.lookup != nil {
		return l.lookup(d, b)
	}
	return b, err
}

// LogTile of memLog serves data tiles too (records, then a blank line).
func (l *memLog) dataTile(t tlog.Tile) []byte {
	var out []byte
	for i := t.N << LogTileHeight; i < t.N<<LogTileHeight+int64(t.W); i++ {
		out = append(append(out, l.texts[i]...), '\n')
	}
	return out
}

func filled(t testing.TB, n int) (*memLog, string, []Digest) {
	skey, vkey := genKey(t, "hostile.test")
	l := newMemLog(t, skey)
	var ds []Digest
	for i := range n {
		ds = append(ds, l.add(t, fmt.Appendf(nil, "# Doc %d\n", i), false))
	}
	return l, vkey, ds
}

// addRecord appends any record (a status change, a lie).
func (l *memLog) addRecord(t testing.TB, r LogRecord) {
	text, err := FormatLogRecord(r)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := tlog.StoredHashes(int64(len(l.texts)), text, l)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.first[r.Digest]; !ok {
		l.first[r.Digest] = int64(len(l.texts))
	}
	l.texts, l.hashes = append(l.texts, text), append(l.hashes, hs...)
}

// Check: the looked-up record's hash is proved against the signed tree
// (tlog.CheckRecord). The registry answers a record text for the document
// that is not the one its tree holds.
func TestLookupRecordNotInTheSignedTree(t *testing.T) {
	l, vkey, ds := filled(t, 6)
	h := &lying{memLog: l, lookup: func(d Digest, honest []byte) ([]byte, error) {
		return []byte(strings.Replace(string(honest), "01:46:40Z", "01:46:41Z", 1)), nil // another time, same document
	}}
	v, _ := NewLogVerifier(h, vkey)
	for _, d := range ds {
		if _, err := v.Prove(context.Background(), d); !errors.Is(err, ErrLogNotProved) {
			t.Fatalf("a record the tree does not hold: %v, want ErrLogNotProved", err)
		}
	}
}

// Check: the lookup's record is of the document asked for. The registry
// answers another document's (genuine, included) record.
func TestLookupAnswersAnotherDocumentsRecord(t *testing.T) {
	l, vkey, ds := filled(t, 4)
	h := &lying{memLog: l, lookup: func(d Digest, honest []byte) ([]byte, error) {
		return l.memLogLookup(ds[0])
	}}
	v, _ := NewLogVerifier(h, vkey)
	if _, err := v.Prove(context.Background(), ds[2]); !errors.Is(err, ErrLogNotProved) || !strings.Contains(err.Error(), "answered the record of") {
		t.Fatalf("another document's record: %v, want ErrLogNotProved", err)
	}
}

func (l *memLog) memLogLookup(d Digest) ([]byte, error) { return l.LogLookup(context.Background(), d) }

// Checks: the proved record's SHA-256 and its size are the bytes' (the
// SHA-1 alone is not collision-proof). A lying registry logs the right
// SHA-1 with another SHA-256, or with another size.
func TestProveDocumentChecksSHA256AndSize(t *testing.T) {
	ctx := context.Background()
	skey, vkey := genKey(t, "hostile.test")
	l := newMemLog(t, skey)
	sumLie, sizeLie := []byte("# Sum lie\n"), []byte("# Size lie\n")
	for _, c := range []struct {
		doc  []byte
		edit func(*LogRecord)
	}{
		{sumLie, func(r *LogRecord) { r.SHA256[31] ^= 1 }},
		{sizeLie, func(r *LogRecord) { r.Size++ }},
	} {
		sums, _ := Hash(c.doc)
		r := LogRecord{Event: LogEventPublish, Digest: sums.SHA1, SHA256: sha256.Sum256(c.doc), Size: len(c.doc), Time: time.Unix(1e9, 0)}
		c.edit(&r)
		l.addRecord(t, r)
	}
	v, _ := NewLogVerifier(l, vkey)
	for _, doc := range [][]byte{sumLie, sizeLie} {
		sums, _ := Hash(doc)
		if _, err := v.ProveDocument(ctx, sums.SHA1, doc); !errors.Is(err, ErrLogNotProved) {
			t.Errorf("%q against a record of other bytes: %v, want ErrLogNotProved", doc, err)
		}
	}
}

// Check: consistency is proved from every size, the smallest included
// (tlog proves n ≥ 1; an audit must not skip size 1 or 2). For each k,
// a log that rewrote one of its first k records is a fork of the honest
// log's size-k checkpoint; the honest log grown from k is not.
func TestConsistencyFromEverySmallSize(t *testing.T) {
	ctx := context.Background()
	const n = 9
	skey, vkey := genKey(t, "small.test")
	for k := 1; k < n; k++ {
		honest, forked := newMemLog(t, skey), newMemLog(t, skey)
		for i := range n {
			honest.add(t, fmt.Appendf(nil, "# Doc %d\n", i), false)
			doc := fmt.Appendf(nil, "# Doc %d\n", i)
			if i == k-1 {
				doc = fmt.Appendf(nil, "# Rewritten %d\n", i)
			}
			forked.add(t, doc, false)
		}
		small := checkpointOf(t, honest, int64(k))
		vh, _ := NewLogVerifier(honest, vkey)
		vf, _ := NewLogVerifier(forked, vkey)
		big, _, err := vh.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := vh.Consistent(ctx, small, big); err != nil {
			t.Errorf("the honest log of %d from size %d: %v", n, k, err)
		}
		bigF, _, err := vf.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := vf.Consistent(ctx, small, bigF); !errors.Is(err, ErrLogFork) {
			t.Errorf("a log that rewrote record %d, from size %d: %v, want ErrLogFork", k-1, k, err)
		}
	}
}

// checkpointOf is the honest checkpoint of l's first n records.
func checkpointOf(t *testing.T, l *memLog, n int64) LogCheckpoint {
	root, err := tlog.TreeHash(n, l)
	if err != nil {
		t.Fatal(err)
	}
	return LogCheckpoint{Origin: l.signer.Name(), Tree: tlog.Tree{N: n, Hash: root}}
}

// Check: a tile that could not be read (a 503, a timeout) is
// ErrLogUnreadable, never a fork: nothing was proved either way.
func TestUnreadableTileIsNotAFork(t *testing.T) {
	ctx := context.Background()
	l, vkey, ds := filled(t, 20)
	small := checkpointOf(t, l, 7)
	for name, lie := range map[string]func(string, []byte) ([]byte, error){
		"503": func(string, []byte) ([]byte, error) {
			return nil, &RegistryError{Status: 503, Message: "Service Unavailable"}
		},
		"short tile": func(_ string, b []byte) ([]byte, error) { return b[:len(b)-1], nil },
	} {
		h := &lying{memLog: l, tile: lie}
		v, _ := NewLogVerifier(h, vkey)
		big, _, err := v.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = v.Consistent(ctx, small, big)
		if errors.Is(err, ErrLogFork) || !errors.Is(err, ErrLogUnreadable) {
			t.Errorf("%s during a consistency proof: %v, want ErrLogUnreadable, not a fork", name, err)
		}
		if _, err := v.Prove(ctx, ds[3]); errors.Is(err, ErrLogNotProved) || !errors.Is(err, ErrLogUnreadable) {
			t.Errorf("%s during an inclusion proof: %v, want ErrLogUnreadable", name, err)
		}
	}
	// A tile of the right size with other hashes is a failing proof.
	h := &lying{memLog: l, tile: func(p string, b []byte) ([]byte, error) {
		b = append([]byte(nil), b...)
		b[0] ^= 1
		return b, nil
	}}
	v, _ := NewLogVerifier(h, vkey)
	big, _, _ := v.Latest(ctx)
	if err := v.Consistent(ctx, small, big); !errors.Is(err, ErrLogFork) {
		t.Errorf("a tampered tile during a consistency proof: %v, want ErrLogFork", err)
	}
}

// Check: a checkpoint of the empty tree carries the empty tree's root
// (or the zeros of older registries); any other root is a signed
// statement no tree can make true.
func TestEmptyTreeRootIsChecked(t *testing.T) {
	ctx := context.Background()
	l, vkey, _ := filled(t, 3)
	v, _ := NewLogVerifier(l, vkey)
	big, _, _ := v.Latest(ctx)
	for _, root := range []tlog.Hash{EmptyLogRoot, {}} {
		if err := v.Consistent(ctx, LogCheckpoint{Origin: big.Origin, Tree: tlog.Tree{Hash: root}}, big); err != nil {
			t.Errorf("the empty tree with root %s: %v", root, err)
		}
	}
	bogus := LogCheckpoint{Origin: big.Origin, Tree: tlog.Tree{Hash: tlog.Hash{1}}}
	if err := v.Consistent(ctx, bogus, big); !errors.Is(err, ErrLogFork) {
		t.Errorf("the empty tree with root %s: %v, want ErrLogFork", bogus.Hash, err)
	}
	if err := v.Consistent(ctx, bogus, bogus); !errors.Is(err, ErrLogFork) {
		t.Errorf("an empty tree with root %s alone: %v, want ErrLogFork", bogus.Hash, err)
	}
	if sha256.Sum256(nil) != EmptyLogRoot {
		t.Errorf("EmptyLogRoot is not SHA-256 of nothing")
	}
}

// Check: records read from data tiles are the ones the signed tree holds
// (each record's hash against the tree's). The registry serves a data
// tile with one record changed.
func TestDataTileRecordsAreProved(t *testing.T) {
	ctx := context.Background()
	l, vkey, _ := filled(t, 10)
	l.addRecord(t, LogRecord{Event: LogEventWithdraw, Digest: Digest{1}, Time: time.Unix(1e9, 0), Status: "withdrawn", Reason: "legal"})
	honest := &lying{memLog: l}
	h := &lying{memLog: l, tile: func(p string, b []byte) ([]byte, error) {
		if strings.Contains(p, "/data/") {
			return []byte(strings.Replace(string(b), `"legal"`, `"other"`, 1)), nil
		}
		return b, nil
	}}
	for name, src := range map[string]*lying{"honest": honest, "changed": h} {
		v, _ := NewLogVerifier(src, vkey)
		cp, _, err := v.Latest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		texts, err := v.LogRecords(ctx, cp.Tree, 0, cp.N)
		switch {
		case name == "honest" && (err != nil || len(texts) != 11 || string(texts[10]) != string(l.texts[10])):
			t.Errorf("the honest data tile: %d records, %v", len(texts), err)
		case name == "changed" && !errors.Is(err, ErrLogNotProved):
			t.Errorf("a changed record in a data tile: %v, want ErrLogNotProved", err)
		}
	}
}

// Check: a registry's checkpoint follows c2sp.org/tlog-checkpoint: an
// empty extension line is refused.
func TestCheckpointExtensionLines(t *testing.T) {
	root := EmptyLogRoot.String()
	for text, ok := range map[string]bool{
		"log\n0\n" + root + "\n":            true,
		"log\n0\n" + root + "\nextension\n": true,
		"log\n0\n" + root + "\n\n":          false,
		"log\n0\n" + root + "\na\n\nb\n":    false,
	} {
		if _, err := ParseLogCheckpoint(text); (err == nil) != ok {
			t.Errorf("ParseLogCheckpoint(%q): %v, want ok=%v", text, err, ok)
		}
	}
}

// Check (agent): a pinned log that could not be read refuses the document
// as unavailable (ErrLogUnreadable), not as unproved, and keeps the
// checkpoint it had seen.
func TestPinnedLogUnreadableIsNotUnproved(t *testing.T) {
	ctx := context.Background()
	l, vkey, ds := filled(t, 12)
	h := &lying{memLog: l}
	v, _ := NewLogVerifier(h, vkey)
	p := &pinnedLog{v: v}
	doc := []byte("# Doc 3\n")
	if err := p.prove(ctx, ds[3], doc); err != nil {
		t.Fatal(err)
	}
	seen := *p.seen
	l.add(t, []byte("# Later\n"), false)
	h.tile = func(string, []byte) ([]byte, error) { return nil, &RegistryError{Status: 503} }
	err := p.prove(ctx, ds[3], doc)
	if errors.Is(err, ErrUnproved) || !errors.Is(err, ErrLogUnreadable) || *p.seen != seen {
		t.Fatalf("a pinned log answering 503: %v (seen %d), want ErrLogUnreadable and the checkpoint kept", err, p.seen.N)
	}
}
