package agora

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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

// TestHashTileIsReadToItsSize: a hash tile is W hashes; a registry
// answering with more is refused at W*32+1 bytes instead of read up to
// the 1 MiB of other log answers, and a path that is not a tile is not
// requested at all.
func TestHashTileIsReadToItsSize(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		n := 64 << 10 // more than any hash tile, less than the 1 MiB limit
		if strings.HasPrefix(r.URL.Path, "/log/tile/8/data/") {
			n = 1<<20 + 1
		}
		_, _ = w.Write(make([]byte, n/2)) // a stream, no Content-Length
		w.(http.Flusher).Flush()
		_, _ = w.Write(make([]byte, n-n/2))
	}))
	defer srv.Close()
	c, err := NewRegistry(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, path := range []string{"tile/8/0/000", "tile/8/2/000.p/3"} {
		if _, err := c.LogTile(ctx, path); !errors.Is(err, ErrRegistryTooLarge) {
			t.Errorf("%s answered with 64 KiB: %v, want ErrRegistryTooLarge", path, err)
		}
	}
	for _, path := range []string{"tile/8/data/000", "tile/8/data/000.p/9"} {
		if _, err := c.LogTile(ctx, path); !errors.Is(err, ErrRegistryTooLarge) || !strings.Contains(err.Error(), "1048576") {
			t.Errorf("%s: %v, want ErrRegistryTooLarge at 1 MiB", path, err)
		}
	}
	mu.Lock()
	n := len(asked)
	mu.Unlock()
	for _, path := range []string{"tile/8/0/../../checkpoint", "/tile/8/0/000", "tile/8/0/0", "checkpoint"} {
		if _, err := c.LogTile(ctx, path); !errors.Is(err, ErrRegistryURL) {
			t.Errorf("LogTile(%q): %v, want ErrRegistryURL", path, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != n {
		t.Errorf("non-tile paths were requested: %v", asked[n:])
	}
}
