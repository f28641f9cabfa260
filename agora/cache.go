// The resolver turns a protocol hash and the sender's sources into a
// verified document: local disk cache first, then each source in turn, then
// the configured registries.

package agora

import (
	"container/list"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// DefaultMaxCacheBytes bounds the cache's files when OpenCache is given 0.
const DefaultMaxCacheBytes = 64 << 20

// Cache keeps verified documents on disk, one file per hex digest, so they
// survive restarts. Every read is re-verified: a file damaged on disk is
// deleted and treated as a miss. The files' total size is bounded: the
// least recently used are deleted to make room, except pinned ones (the
// operator's own documents). The index lives in memory and is rebuilt from
// the directory at open; one agent process owns a cache directory.
type Cache struct {
	dir      string
	maxBytes int   // one document
	maxTotal int64 // all files

	mu      sync.Mutex
	entries map[Digest]*list.Element // of *cacheEntry
	lru     *list.List               // least recently used first
	total   int64
}

type cacheEntry struct {
	digest Digest
	size   int64
	pinned bool
}

// OpenCache creates dir if needed, indexes the documents already there
// (oldest modification first), removes temporary files a crash left, and
// trims the directory to maxTotalBytes. Zero limits take the defaults.
func OpenCache(dir string, maxBytes, maxTotalBytes int) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating cache directory: %w", err)
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDocumentBytes
	}
	if maxTotalBytes <= 0 {
		maxTotalBytes = DefaultMaxCacheBytes
	}
	c := &Cache{dir: dir, maxBytes: maxBytes, maxTotal: int64(maxTotalBytes),
		entries: map[Digest]*list.Element{}, lru: list.New()}
	files, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading cache directory: %w", err)
	}
	type found struct {
		d    Digest
		info fs.FileInfo
	}
	var docs []found
	for _, f := range files {
		if strings.HasPrefix(f.Name(), ".tmp-") {
			os.Remove(filepath.Join(dir, f.Name()))
			continue
		}
		d, err := ParseDigest(f.Name())
		if err != nil || d.Hex() != f.Name() || !f.Type().IsRegular() {
			continue // not ours
		}
		if info, err := f.Info(); err == nil {
			docs = append(docs, found{d, info})
		}
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].info.ModTime().Before(docs[j].info.ModTime()) })
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range docs {
		c.addLocked(f.d, f.info.Size(), false)
	}
	c.evictLocked(0)
	return c, nil
}

func (c *Cache) path(d Digest) string { return filepath.Join(c.dir, d.Hex()) }

// Get returns the cached document for d, or ok=false on a miss.
func (c *Cache) Get(d Digest) (doc []byte, ok bool, err error) {
	f, err := os.Open(c.path(d))
	if errors.Is(err, fs.ErrNotExist) {
		c.forget(d)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	info, statErr := f.Stat()
	if statErr == nil && info.Size() <= int64(c.maxBytes) {
		doc = make([]byte, info.Size())
		_, err = readFull(f, doc)
	}
	f.Close()
	if statErr != nil {
		return nil, false, statErr
	}
	if err == nil && int64(len(doc)) == info.Size() && Verify(doc, d) == nil {
		c.touch(d, info.Size())
		return doc, true, nil
	}
	// Damaged, truncated or oversized: drop it so the next fetch repairs it.
	c.forget(d)
	if rmErr := os.Remove(c.path(d)); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		return nil, false, rmErr
	}
	return nil, false, nil
}

// Put stores a document that the caller has verified against d, deleting
// the least recently used documents to make room. A document that cannot
// fit beside the pinned ones is not stored. The write is atomic (temporary
// file, then rename), so readers never see half a file.
func (c *Cache) Put(d Digest, doc []byte) error { return c.put(d, doc, false) }

// Pin stores a document like Put and never evicts it: the operator's own
// documents must not be pushed out by what strangers send.
func (c *Cache) Pin(d Digest, doc []byte) error { return c.put(d, doc, true) }

func (c *Cache) put(d Digest, doc []byte, pinned bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[d]; ok {
		pinned = pinned || e.Value.(*cacheEntry).pinned
		c.removeLocked(e)
	}
	size := int64(len(doc))
	if !pinned && !c.evictLocked(size) {
		return fmt.Errorf("a %d-byte document does not fit the cache's %d bytes beside its pinned documents", size, c.maxTotal)
	}
	if err := c.write(d, doc); err != nil {
		return err
	}
	c.addLocked(d, size, pinned)
	return nil
}

func (c *Cache) write(d Digest, doc []byte) error {
	tmp, err := os.CreateTemp(c.dir, ".tmp-"+d.Hex()+"-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(doc)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), c.path(d)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// evictLocked deletes the least recently used unpinned documents until
// extra more bytes fit, and reports whether they do.
func (c *Cache) evictLocked(extra int64) bool {
	for e := c.lru.Front(); e != nil && c.total+extra > c.maxTotal; {
		next := e.Next()
		if ent := e.Value.(*cacheEntry); !ent.pinned {
			os.Remove(c.path(ent.digest))
			c.removeLocked(e)
		}
		e = next
	}
	return c.total+extra <= c.maxTotal
}

func (c *Cache) addLocked(d Digest, size int64, pinned bool) {
	c.entries[d] = c.lru.PushBack(&cacheEntry{digest: d, size: size, pinned: pinned})
	c.total += size
}

func (c *Cache) removeLocked(e *list.Element) {
	ent := c.lru.Remove(e).(*cacheEntry)
	delete(c.entries, ent.digest)
	c.total -= ent.size
}

// touch marks d as just used (indexing a file that appeared behind our back).
func (c *Cache) touch(d Digest, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[d]; ok {
		c.lru.MoveToBack(e)
		return
	}
	c.addLocked(d, size, false)
	c.evictLocked(0)
}

func (c *Cache) forget(d Digest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[d]; ok {
		c.removeLocked(e)
	}
}

// Size reports the documents indexed and their total bytes.
func (c *Cache) Size() (docs int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries), c.total
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
