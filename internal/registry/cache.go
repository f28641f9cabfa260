package registry

import (
	"container/list"
	"sync"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// rawCache keeps the bytes of recently fetched documents, bounded by their
// total size, evicting the least recently used. Documents are immutable, so
// a cached copy is never wrong; the TTL only bounds how long a withdrawal
// made through another replica keeps being served from here.
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
	digest  protocol.Digest
	content []byte
	stored  time.Time
}

// newRawCache returns a cache of at most maxBytes of content; 0 disables it.
func newRawCache(maxBytes int, ttl time.Duration) *rawCache {
	return &rawCache{maxBytes: maxBytes, ttl: ttl, now: time.Now, order: list.New(), items: map[protocol.Digest]*list.Element{}}
}

func (c *rawCache) get(d protocol.Digest) ([]byte, bool) {
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
	return it.content, true
}

// put caches content; callers must not modify it afterwards. A document
// larger than an eighth of the cache is not cached, so one huge document
// cannot flush everything else.
func (c *rawCache) put(d protocol.Digest, content []byte) {
	if c == nil || c.maxBytes <= 0 || len(content) > c.maxBytes/8 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[d]; ok {
		c.removeElement(el)
	}
	c.items[d] = c.order.PushFront(&cacheItem{digest: d, content: content, stored: c.now()})
	c.used += len(content)
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
	delete(c.items, it.digest)
	c.used -= len(it.content)
}

// size returns the bytes held and the number of documents.
func (c *rawCache) size() (bytes, docs int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, len(c.items)
}
