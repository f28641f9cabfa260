package registry

import (
	"container/list"
	"strconv"
	"sync"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// RawDocument is what a raw answer needs: a document's exact bytes (nil
// for an answer without a body served from a blob: its size is enough)
// and its lifecycle headers. It is shared and read-only.
type RawDocument struct {
	Digest  protocol.Digest
	Content []byte
	Size    int64
	// Deprecation (RFC 9745) and the successor-version Link of a
	// deprecated document; empty when it is active or names no
	// replacement.
	Deprecation string
	Link        string
}

func newRawDocument(d protocol.Digest, content []byte, lc entity.Lifecycle, publicURL string) *RawDocument {
	doc := &RawDocument{Digest: d, Content: content, Size: int64(len(content))}
	if lc.Status == entity.StatusDeprecated {
		at := time.Now()
		if lc.ChangedAt != nil {
			at = *lc.ChangedAt
		}
		doc.Deprecation = "@" + strconv.FormatInt(at.Unix(), 10)
		if lc.Replacement != nil {
			doc.Link = "<" + publicURL + "/protocol/" + lc.Replacement.Hex() + `>; rel="successor-version"`
		}
	}
	return doc
}

// rawCache keeps recently fetched documents, bounded by their total size,
// evicting the least recently used. Documents are immutable, so a cached
// copy is never wrong; the TTL only bounds how long a withdrawal made
// through another replica keeps being served from here.
type rawCache struct {
	mu       sync.Mutex
	maxBytes int
	ttl      time.Duration
	now      func() time.Time
	used     int
	order    *list.List // front = most recently used
	items    map[protocol.Digest]*list.Element
}

type cacheItem struct {
	doc    *RawDocument
	stored time.Time
}

// newRawCache returns a cache of at most maxBytes of content; 0 disables it.
func newRawCache(maxBytes int, ttl time.Duration) *rawCache {
	return &rawCache{maxBytes: maxBytes, ttl: ttl, now: time.Now, order: list.New(), items: map[protocol.Digest]*list.Element{}}
}

func (c *rawCache) get(d protocol.Digest) (*RawDocument, bool) {
	if c == nil || c.maxBytes <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[d]
	if !ok {
		return nil, false
	}
	it := el.Value.(*cacheItem)
	if c.ttl > 0 && c.now().Sub(it.stored) > c.ttl {
		c.removeElement(el)
		return nil, false
	}
	c.order.MoveToFront(el)
	return it.doc, true
}

// fits reports whether a document of n bytes would be cached.
func (c *rawCache) fits(n int64) bool {
	return c != nil && c.maxBytes > 0 && n <= int64(c.maxBytes/8)
}

// put caches a document; callers must not modify it afterwards. A document
// larger than an eighth of the cache is not cached, so one huge document
// cannot flush everything else.
func (c *rawCache) put(doc *RawDocument) {
	if !c.fits(int64(len(doc.Content))) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[doc.Digest]; ok {
		c.removeElement(el)
	}
	c.items[doc.Digest] = c.order.PushFront(&cacheItem{doc: doc, stored: c.now()})
	c.used += len(doc.Content)
	for c.used > c.maxBytes {
		c.removeElement(c.order.Back())
	}
}

func (c *rawCache) remove(d protocol.Digest) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[d]; ok {
		c.removeElement(el)
	}
}

func (c *rawCache) removeElement(el *list.Element) {
	it := c.order.Remove(el).(*cacheItem)
	delete(c.items, it.doc.Digest)
	c.used -= len(it.doc.Content)
}

// size returns the bytes held and the number of documents.
func (c *rawCache) size() (bytes, docs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, len(c.items)
}
