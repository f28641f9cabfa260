package agora

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// signedTree is a log source whose checkpoint claims a tree of size n
// (signed with the pinned key: a hostile registry holds its own key).
type signedTree struct {
	memLog
	n int64
}

func (s *signedTree) LogCheckpoint(context.Context) ([]byte, error) {
	return note.Sign(&note.Note{Text: LogCheckpoint{Origin: s.signer.Name(), Tree: tlog.Tree{N: s.n}}.Body()}, s.signer)
}

// TestHugeCheckpointIsRefused: tlog's proof math loops forever (ignoring
// the context) for trees past 2^62 records, so a signed checkpoint that
// claims one is refused before any proof is attempted.
func TestHugeCheckpointIsRefused(t *testing.T) {
	skey, vkey := genKey(t, "huge.test")
	for _, n := range []int64{MaxLogTreeSize + 1, 1<<63 - 1} {
		src := &signedTree{memLog: *newMemLog(t, skey), n: n}
		v, err := NewLogVerifier(src, vkey)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := v.Latest(context.Background()); !errors.Is(err, ErrBadLogCheckpoint) {
			t.Fatalf("a signed checkpoint of %d records: %v, want ErrBadLogCheckpoint", n, err)
		}
	}
	if c, err := ParseLogCheckpoint("log\n4611686018427387903\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"); err != nil || c.N != MaxLogTreeSize {
		t.Fatalf("a checkpoint of MaxLogTreeSize records: %v", err)
	}
}

// TestEmptyTreeIsAPrefixOfEveryTree: a log's first checkpoint may be of
// the empty tree (a fresh registry signs one); a later, larger tree is
// consistent with it, not a fork, whatever root the empty tree was
// signed with.
func TestEmptyTreeIsAPrefixOfEveryTree(t *testing.T) {
	ctx := context.Background()
	skey, vkey := genKey(t, "empty.test")
	l := newMemLog(t, skey)
	v, _ := NewLogVerifier(l, vkey)
	empty, _, err := v.Latest(ctx)
	if err != nil || empty.N != 0 {
		t.Fatalf("the empty log's checkpoint: %+v %v", empty, err)
	}
	l.add(t, []byte("# One\n"), false)
	l.add(t, []byte("# Two\n"), false)
	grown, _, err := v.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Consistent(ctx, empty, grown); err != nil {
		t.Fatalf("the empty tree then a tree of %d: %v", grown.N, err)
	}
	zeros := LogCheckpoint{Origin: empty.Origin} // the registry's own empty checkpoint has a root of zeros
	if err := v.Consistent(ctx, zeros, grown); err != nil {
		t.Fatalf("the registry's empty tree then a tree of %d: %v", grown.N, err)
	}
}
