package agora

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sizedDoc is a valid document of exactly n bytes, distinct per i.
func sizedDoc(t *testing.T, i, n int) ([]byte, Digest) {
	t.Helper()
	head := fmt.Sprintf("---\nname: Doc %d\n---\n", i)
	doc := []byte(head + strings.Repeat("x", n-len(head)))
	s, err := Hash(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, s.SHA1
}

// filesIn counts the cache's document files on disk.
func filesIn(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestCacheStaysWithinItsBudget: 10 documents of 1,000 bytes into a
// 3,500-byte cache leave 3 on disk, the least recently used deleted first;
// a read refreshes a document, and a pinned one is never evicted.
func TestCacheStaysWithinItsBudget(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenCache(dir, 0, 3500)
	if err != nil {
		t.Fatal(err)
	}
	pinned, pd := sizedDoc(t, -1, 1000)
	if err := c.Pin(pd, pinned); err != nil {
		t.Fatal(err)
	}
	var digests []Digest
	for i := 0; i < 10; i++ {
		doc, d := sizedDoc(t, i, 1000)
		digests = append(digests, d)
		if err := c.Put(d, doc); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if _, ok, _ := c.Get(digests[0]); !ok { // used again: keep it
				t.Fatal("document 0 missing right after its put")
			}
		}
	}
	docs, bytes := c.Size()
	if docs != 3 || bytes != 3000 || filesIn(t, dir) != 3 {
		t.Fatalf("after 11 documents: %d indexed, %d bytes, %d files; want 3, 3000, 3", docs, bytes, filesIn(t, dir))
	}
	for _, want := range []Digest{pd, digests[8], digests[9]} {
		if _, ok, err := c.Get(want); !ok || err != nil {
			t.Errorf("%s evicted (ok=%v, err=%v); the pinned and the newest must stay", want.Hex(), ok, err)
		}
	}
	if _, ok, _ := c.Get(digests[0]); ok {
		t.Error("document 0 survived 8 newer puts")
	}
	// A document that cannot fit beside the pinned one is not stored.
	huge, hd := sizedDoc(t, 99, 3000)
	if err := c.Put(hd, huge); err == nil {
		t.Fatal("a 3,000-byte document was stored beside a 1,000-byte pinned one in 3,500 bytes")
	}
	if _, bytes := c.Size(); bytes > 3500 {
		t.Fatalf("cache holds %d bytes, over its 3,500", bytes)
	}
}

// TestCacheOpenTrimsAnOversizedDirectory: a directory left over budget (a
// smaller limit configured, or the files of an older version) is trimmed
// at open, oldest first, and a crash's temporary files are removed.
func TestCacheOpenTrimsAnOversizedDirectory(t *testing.T) {
	dir := t.TempDir()
	c, err := OpenCache(dir, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var newest Digest
	start := time.Now().Add(-time.Hour)
	for i := 0; i < 6; i++ {
		doc, d := sizedDoc(t, i, 1000)
		if err := c.Put(d, doc); err != nil {
			t.Fatal(err)
		}
		// File times are coarse (a few ms): space them out explicitly.
		at := start.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, d.Hex()), at, at); err != nil {
			t.Fatal(err)
		}
		newest = d
	}
	if err := os.WriteFile(filepath.Join(dir, ".tmp-leftover-123"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	c2, err := OpenCache(dir, 0, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if docs, bytes := c2.Size(); docs != 2 || bytes != 2000 || filesIn(t, dir) != 2 {
		t.Fatalf("reopened at 2,000 bytes: %d indexed, %d bytes, %d files", docs, bytes, filesIn(t, dir))
	}
	if _, ok, _ := c2.Get(newest); !ok {
		t.Fatal("the newest document was trimmed")
	}
}
