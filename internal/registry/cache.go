package registry

import (
	"container/list"
	"strconv"
	"sync"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// RawDocument is a document's exact bytes with the values its HTTP answer
// needs, computed once when it is loaded: a hot fetch then costs no
// formatting and no allocation. Everything in it is shared and read-only.
type RawDocument struct {
	Digest  protocol.Digest
	Content []byte
	// ETag is the strong entity tag, `"<hex>"`.
	ETag string
	// ETagValues and LengthValues are ready-made header value slices
	// ({ETag} and {len(Content)}); their capacity is 1, so an append by a
	// careless caller copies instead of writing into the shared array.
	ETagValues   []string
	LengthValues []string
	// DeprecationValues and LinkValues are the Deprecation (RFC 9745) and
	// successor-version Link headers of a deprecated document; nil when it
	// is active or names no replacement.
	DeprecationValues []string
	LinkValues        []string
}

func newRawDocument(d protocol.Digest, content []byte, lc store.Lifecycle, publicURL string) *RawDocument {
	etag := `"` + d.Hex() + `"`
	doc := &RawDocument{Digest: d, Content: content, ETag: etag,
		ETagValues: []string{etag}[:1:1], LengthValues: []string{strconv.Itoa(len(content))}[:1:1]}
	if lc.Status == store.StatusDeprecated {
		at := time.Now()
		if lc.ChangedAt != nil {
			at = *lc.ChangedAt
		}
		doc.DeprecationValues = []string{"@" + strconv.FormatInt(at.Unix(), 10)}[:1:1]
		if lc.Replacement != nil {
			doc.LinkValues = []string{"<" + publicURL + "/protocol/" + lc.Replacement.Hex() + `>; rel="successor-version"`}[:1:1]
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
