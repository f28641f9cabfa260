package translog

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/store"
)

// TileHeight is the height of the hash tiles served (sum.golang.org's).
const TileHeight = agora.LogTileHeight

// linger is how long the integrator waits after being woken, so the
// publishes of that moment share one integration (one transaction, one
// signature) instead of a few each: at 5 ms the log cost PostgreSQL's
// publish-new 7 %, at 100 ms about 2 % (docs/BENCHMARKS.md, "Transparency
// log").
const linger = 100 * time.Millisecond

// DefaultPollInterval is how often a process integrates without being
// told to: it picks up events other processes queued and left (a crash
// between commit and integration) and notices their new heads.
const DefaultPollInterval = time.Second

// Store is what the log needs from the storage engine.
type Store interface {
	store.Log
}

// Log is one process's view of the database's one transparency log.
type Log struct {
	st   Store
	key  Key
	log  *slog.Logger
	wake chan struct{}
	// signed is closed once a batch was integrated under this key, so the
	// head is signed by it (a new key re-signs the head on its first run).
	signed     chan struct{}
	signedOnce sync.Once

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when the head grows
	size    int64         // the largest head size seen
	waiting int           // long polls of the change feed waiting
	failed  uint64        // integrations that failed
	// cosigner, when set, asks witnesses to cosign each new head and adds
	// their cosignatures to the checkpoints served.
	cosigner *Cosigner
}

// New returns the log over a store, signing with key.
func New(st Store, key Key, logger *slog.Logger) *Log {
	if logger == nil {
		logger = slog.Default()
	}
	return &Log{st: st, key: key, log: logger, wake: make(chan struct{}, 1), changed: make(chan struct{}), signed: make(chan struct{})}
}

// Origin names the log (its checkpoints' first line).
func (l *Log) Origin() string { return l.key.Signer.Name() }

// VerifierKey is the note verifier key of the log's checkpoints.
func (l *Log) VerifierKey() string { return l.key.VerifierKey }

// Stats are the largest tree size this process saw and how many of its
// integrations failed (metrics; no database access).
func (l *Log) Stats() (size int64, failed uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.size, l.failed
}

// Notify asks the integrator to run soon (after a publish or withdrawal);
// it never blocks.
func (l *Log) Notify() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Run integrates whenever notified and every poll interval until ctx ends.
func (l *Log) Run(ctx context.Context, poll time.Duration) {
	if poll <= 0 {
		poll = DefaultPollInterval
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		if err := l.Integrate(ctx); err != nil && ctx.Err() == nil {
			l.mu.Lock()
			l.failed++
			l.mu.Unlock()
			l.log.Warn("transparency log: integration failed; retrying", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-l.wake:
			time.Sleep(linger)
		case <-t.C:
		}
	}
}

// Integrate moves every queued event into the log, a batch per
// transaction, and signs the head (also when only the key changed).
func (l *Log) Integrate(ctx context.Context) error {
	for {
		n, err := l.integrateBatch(ctx)
		if err != nil || n < store.MaxLogBatch {
			return err
		}
	}
}

// integrateBatch integrates at most one batch (the bound of the work a
// request may cause) and returns how many events it took.
func (l *Log) integrateBatch(ctx context.Context) (int, error) {
	head, n, err := l.st.IntegrateLog(ctx, store.MaxLogBatch, l.integrate)
	if err != nil {
		return 0, err
	}
	l.signedOnce.Do(func() { close(l.signed) })
	l.saw(head.Size)
	return n, nil
}

// saw records a head size and wakes the change feed's waiters when it grew.
func (l *Log) saw(size int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if size > l.size {
		l.size = size
		close(l.changed)
		l.changed = make(chan struct{})
		if l.cosigner != nil {
			l.cosigner.notify()
		}
	}
}

// integrate is the store.Integrator: record texts, stored hashes, the new
// root and its signed checkpoint.
func (l *Log) integrate(head store.LogHead, pending []store.LogEvent, read tlog.HashReader) (store.LogBatch, bool, error) {
	if head.Size == 0 {
		// The empty tree's root is RFC 6962's hash of nothing; the store
		// starts with zeros, which a strict verifier refuses.
		head.Root = agora.EmptyLogRoot
	}
	if len(pending) == 0 {
		cp, err := l.sign(head.Size, head.Root)
		if err != nil || bytes.Equal(cp, head.Checkpoint) {
			return store.LogBatch{}, false, err
		}
		return store.LogBatch{Head: store.LogHead{Size: head.Size, Root: head.Root, Checkpoint: cp}}, true, nil
	}
	hashes := &overlay{under: read, base: tlog.StoredHashCount(head.Size)}
	records := make([]store.LogRecord, len(pending))
	for i, ev := range pending {
		text, err := FormatRecord(ev)
		if err != nil {
			return store.LogBatch{}, false, err
		}
		idx := head.Size + int64(i)
		stored, err := tlog.StoredHashes(idx, text, hashes)
		if err != nil {
			return store.LogBatch{}, false, err
		}
		hashes.added = append(hashes.added, stored...)
		records[i] = store.LogRecord{Index: idx, Digest: ev.Digest, Event: ev.Event, Text: text}
	}
	size := head.Size + int64(len(pending))
	root, err := tlog.TreeHash(size, hashes)
	if err != nil {
		return store.LogBatch{}, false, err
	}
	cp, err := l.sign(size, root)
	if err != nil {
		return store.LogBatch{}, false, err
	}
	return store.LogBatch{Records: records, Hashes: hashes.added, Head: store.LogHead{Size: size, Root: root, Checkpoint: cp}}, true, nil
}

func (l *Log) sign(size int64, root tlog.Hash) ([]byte, error) {
	return SignCheckpoint(agora.LogCheckpoint{Origin: l.Origin(), Tree: tlog.Tree{N: size, Hash: root}}, l.key.Signer)
}

// overlay reads the hashes a batch added from memory and older ones from
// the store.
type overlay struct {
	under tlog.HashReader
	base  int64 // the first index of added
	added []tlog.Hash
}

func (o *overlay) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	var (
		older []int64
		at    []int
	)
	for i, x := range indexes {
		if x >= o.base {
			if x-o.base >= int64(len(o.added)) {
				return nil, errors.New("translog: hash read beyond the batch")
			}
			out[i] = o.added[x-o.base]
			continue
		}
		older, at = append(older, x), append(at, i)
	}
	if len(older) > 0 {
		got, err := o.under.ReadHashes(older)
		if err != nil {
			return nil, err
		}
		for j, h := range got {
			out[at[j]] = h
		}
	}
	return out, nil
}
