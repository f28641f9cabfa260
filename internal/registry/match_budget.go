package registry

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
)

// Why a match with a model configured was answered without its re-rank
// (MatchResult.Skipped).
const (
	SkipClientBudget = "client_budget" // the client's completions of the last minute are spent
	SkipBudget       = "budget"        // the registry's completions of the last minute are spent
	SkipBusy         = "busy"          // every re-rank slot is taken
	SkipFailed       = "failed"        // the model failed, was slow or named no candidate
)

// Defaults of the re-rank's budget (docs/SECURITY.md): a paid model costs
// at most DefaultMatchRerankPerMinute completions a minute, and one client
// spends at most a sixth of them.
const (
	DefaultMatchRerankPerMinute       = 30
	DefaultMatchRerankClientPerMinute = 5
	DefaultMatchRerankCacheEntries    = 1000
	// maxRerankClients bounds the table of clients' windows; beyond it the
	// least recently seen client's window is dropped (the total still holds).
	maxRerankClients = 10_000
)

// window is the times of the latest completions, at most n of them (a
// ring): one more is allowed while fewer than n fall within the last
// minute, so no 60 seconds ever hold more than n.
type window struct {
	times []time.Time
	next  int // index of the oldest once the ring is full
}

func (w *window) allows(now time.Time, n int) bool {
	return len(w.times) < n || now.Sub(w.times[w.next]) >= time.Minute
}

func (w *window) add(now time.Time, n int) {
	if len(w.times) < n {
		w.times = append(w.times, now)
		return
	}
	w.times[w.next] = now
	w.next = (w.next + 1) % n
}

// last is the time of the latest completion (zero if none).
func (w *window) last() time.Time {
	if len(w.times) == 0 {
		return time.Time{}
	}
	return w.times[(w.next+len(w.times)-1)%len(w.times)]
}

type clientWindow struct {
	key string
	w   window
}

// rerankBudget spends completions: at most total in any minute, at most
// perClient of them for one client, so one client cannot take the
// registry's whole budget.
type rerankBudget struct {
	total, perClient int
	now              func() time.Time // time.Now; tests step a clock

	mu      sync.Mutex
	all     window
	clients map[string]*list.Element // of *clientWindow
	lru     list.List                // most recently spent first
}

func newRerankBudget(total, perClient int) *rerankBudget {
	return &rerankBudget{total: total, perClient: perClient, now: time.Now, clients: map[string]*list.Element{}}
}

// take spends one completion for client, or says which budget is spent
// (then nothing is taken).
func (b *rerankBudget) take(client string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	// A window whose last completion is a minute old allows a full share
	// again: forgetting it changes nothing.
	for e := b.lru.Back(); e != nil && now.Sub(e.Value.(*clientWindow).w.last()) >= time.Minute; e = b.lru.Back() {
		b.drop(e)
	}
	var cw *clientWindow
	if e, ok := b.clients[client]; ok {
		cw = e.Value.(*clientWindow)
	} else {
		cw = &clientWindow{key: client}
	}
	switch {
	case !cw.w.allows(now, b.perClient):
		return SkipClientBudget
	case !b.all.allows(now, b.total):
		return SkipBudget
	}
	b.all.add(now, b.total)
	cw.w.add(now, b.perClient)
	if e, ok := b.clients[client]; ok {
		b.lru.MoveToFront(e)
	} else {
		if b.lru.Len() >= maxRerankClients {
			b.drop(b.lru.Back())
		}
		b.clients[client] = b.lru.PushFront(cw)
	}
	return ""
}

func (b *rerankBudget) drop(e *list.Element) {
	delete(b.clients, e.Value.(*clientWindow).key)
	b.lru.Remove(e)
}

// rerankKey names a re-rank by what the model is shown: the task, the
// schemas' field names and the set of candidates (their order does not
// change the model's answer, only its numbering).
func rerankKey(task string, fields []string, top []Match) [sha256.Size]byte {
	h := sha256.New()
	put := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put(task)
	for _, f := range fields {
		put(f)
	}
	put("") // ends the fields: ["a"] + candidates never reads as ["a", candidate]
	ds := make([]string, len(top))
	for i, m := range top {
		ds[i] = m.Entry.Digest.Hex()
	}
	slices.Sort(ds)
	for _, d := range ds {
		put(d)
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

type rerankEntry struct {
	key   [sha256.Size]byte
	order []protocol.Digest // the model's order, best first
}

// rerankCache keeps the latest re-ranks' answers, at most n (LRU), so the
// same task over the same candidates costs one completion.
type rerankCache struct {
	n       int
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*list.Element // of *rerankEntry
	lru     list.List
}

func newRerankCache(n int) *rerankCache {
	return &rerankCache{n: n, entries: map[[sha256.Size]byte]*list.Element{}}
}

func (c *rerankCache) get(k [sha256.Size]byte) ([]protocol.Digest, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*rerankEntry).order, true
}

func (c *rerankCache) put(k [sha256.Size]byte, order []protocol.Digest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		e.Value.(*rerankEntry).order = order
		c.lru.MoveToFront(e)
		return
	}
	if c.lru.Len() >= c.n {
		old := c.lru.Back()
		delete(c.entries, old.Value.(*rerankEntry).key)
		c.lru.Remove(old)
	}
	c.entries[k] = c.lru.PushFront(&rerankEntry{key: k, order: order})
}

// digestsOf is the model's order (indexes of top) as digests, to cache.
func digestsOf(top []Match, order []int) []protocol.Digest {
	out := make([]protocol.Digest, len(order))
	for i, j := range order {
		out[i] = top[j].Entry.Digest
	}
	return out
}

// indexesOf maps a cached order back to indexes of top (the same set,
// maybe numbered differently now).
func indexesOf(top []Match, order []protocol.Digest) []int {
	out := make([]int, 0, len(order))
	for _, d := range order {
		if i := slices.IndexFunc(top, func(m Match) bool { return m.Entry.Digest == d }); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}
