package render

import (
	"container/list"
	"sync"

	"github.com/agora-registry/registry/internal/protocol"
)

// cache keeps renderings by document hash, bounded by their total size,
// evicting the least recently used. A document never changes under its
// hash, so a cached rendering is never stale.
type cache struct {
	mu       sync.Mutex
	maxBytes int
	used     int
	order    *list.List // front = most recently used
	items    map[protocol.Digest]*list.Element
}

type cached struct {
	digest protocol.Digest
	out    Rendered
	size   int
}

// entryOverhead is what an entry costs besides its HTML and lints.
const entryOverhead = 128

func newCache(maxBytes int) *cache {
	return &cache{maxBytes: maxBytes, order: list.New(), items: map[protocol.Digest]*list.Element{}}
}

func (c *cache) get(d protocol.Digest) (Rendered, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[d]
	if !ok {
		return Rendered{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cached).out, true
}

func (c *cache) put(d protocol.Digest, out Rendered) {
	size := entryOverhead + len(out.HTML)
	for _, l := range out.Lints {
		size += len(l.Code) + len(l.Message)
	}
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[d]; ok {
		return
	}
	c.items[d] = c.order.PushFront(&cached{digest: d, out: out, size: size})
	c.used += size
	for c.used > c.maxBytes {
		oldest := c.order.Back()
		e := oldest.Value.(*cached)
		c.order.Remove(oldest)
		delete(c.items, e.digest)
		c.used -= e.size
	}
}
