package blobs

import (
	"log/slog"
	"sync"

	"github.com/agora-registry/registry/internal/protocol"
)

// Writer writes blobs in the background, so neither a publish nor the
// first read of a document waits for two fsyncs. What it holds is bounded
// by maxBytes; past that a blob is dropped and written by its next read
// instead. Nothing is lost when the process stops: the database has
// every document.
type Writer struct {
	store    *Store
	maxBytes int
	skip     func(protocol.Digest) bool
	log      *slog.Logger

	mu      sync.Mutex
	queue   []pending
	queued  int
	running int // goroutines draining the queue
	idle    *sync.Cond
}

// writerGoroutines is how many blobs are written at once: concurrent
// fsyncs share the file system's journal commits.
const writerGoroutines = 4

type pending struct {
	d       protocol.Digest
	content []byte
}

// NewWriter returns a writer into s holding at most maxBytes of queued
// content; skip (may be nil) drops a blob at write time (a document
// withdrawn meanwhile).
func NewWriter(s *Store, maxBytes int, skip func(protocol.Digest) bool, log *slog.Logger) *Writer {
	if log == nil {
		log = slog.Default()
	}
	w := &Writer{store: s, maxBytes: maxBytes, skip: skip, log: log}
	w.idle = sync.NewCond(&w.mu)
	return w
}

// Queue asks for content to be written as d's blob and reports whether it
// was taken; content must not be modified afterwards.
func (w *Writer) Queue(d protocol.Digest, content []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.queued+len(content) > w.maxBytes {
		return false
	}
	w.queue = append(w.queue, pending{d, content})
	w.queued += len(content)
	if w.running < writerGoroutines && len(w.queue) > w.running {
		// Goroutines exit when the queue is empty: an idle writer holds
		// nothing.
		w.running++
		go w.drain()
	}
	return true
}

func (w *Writer) drain() {
	w.mu.Lock()
	for len(w.queue) > 0 {
		p := w.queue[0]
		w.queue[0] = pending{}
		w.queue = w.queue[1:]
		w.mu.Unlock()
		if w.skip == nil || !w.skip(p.d) {
			if err := w.store.Put(p.d, p.content); err != nil {
				w.log.Warn("writing a blob failed; it is served from the database", "hash", p.d.Hex(), "error", err.Error())
			}
		}
		w.mu.Lock()
		w.queued -= len(p.content)
	}
	w.running--
	if w.running == 0 {
		w.queue = nil
		w.idle.Broadcast()
	}
	w.mu.Unlock()
}

// Wait returns when everything queued so far is written (tests, shutdown).
func (w *Writer) Wait() {
	w.mu.Lock()
	for w.running > 0 {
		w.idle.Wait()
	}
	w.mu.Unlock()
}
