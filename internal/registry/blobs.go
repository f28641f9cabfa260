package registry

import (
	"context"
	"errors"
	"io/fs"
	"sync/atomic"
	"time"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// blobQueueBytes bounds the content waiting to be written as blobs.
const blobQueueBytes = 2 << 20

// blobState is the service's side of the blob directory: the files and
// the set of documents that are not plainly active, checked before any
// file is served.
type blobState struct {
	files  *blobs.Store // nil: no blob directory
	writer *blobs.Writer
	// inactive is replaced whole (copy on write); nil until first loaded,
	// and until then no file is served. Measured: asking the store instead
	// costs a cold GET +83 %, HEAD +159 %, 304 +131 % CPU per response.
	inactive   atomic.Pointer[inactiveSet]
	refreshing atomic.Bool
	every      time.Duration
}

// inactiveSet holds the withdrawn documents (true) and the deprecated ones
// (false). Neither is answered from a blob: a withdrawn one is 410, a
// deprecated one carries Deprecation and Link headers only the store's
// lifecycle gives, so both go through RawDocument.
type inactiveSet struct {
	digests map[protocol.Digest]bool
	loaded  time.Time
}

// plainActive reports whether lc is an active document's (a pulled
// document has no lifecycle yet: active).
func plainActive(lc entity.Lifecycle) bool {
	return lc.Status == "" || lc.Status == entity.StatusActive
}

func (s *Service) initBlobs() {
	s.blobs.files = s.cfg.Blobs
	s.blobs.every = s.cfg.CacheTTL
	if s.blobs.every <= 0 {
		s.blobs.every = time.Minute
	}
	if s.blobs.files != nil {
		s.blobs.writer = blobs.NewWriter(s.blobs.files, blobQueueBytes, s.isInactive, s.log)
	}
}

// isInactive reports whether d is in the loaded inactive set (the writer
// skips those: their files would never be served).
func (s *Service) isInactive(d protocol.Digest) bool {
	w := s.blobs.inactive.Load()
	if w == nil {
		return false
	}
	_, in := w.digests[d]
	return in
}

// RefreshInactive reloads the inactive set from the store and removes
// the blobs of withdrawn documents (withdrawn through another replica, or
// written by a fill that raced the withdrawal). Until it has succeeded
// once, raw fetches are answered from the store; afterwards it reruns in
// the background every CacheTTL, which bounds how long a withdrawal or a
// deprecation made elsewhere takes to show here.
func (s *Service) RefreshInactive(ctx context.Context) error {
	if s.blobs.files == nil {
		return nil
	}
	set := &inactiveSet{digests: map[protocol.Digest]bool{}, loaded: time.Now()}
	if err := s.store.Inactive(ctx, func(d protocol.Digest, withdrawn bool) error {
		set.digests[d] = withdrawn
		return nil
	}); err != nil {
		return err
	}
	s.blobs.inactive.Store(set)
	for d, withdrawn := range set.digests {
		if !withdrawn {
			continue // deprecated: kept for when it is made active again
		}
		if err := s.blobs.files.Remove(d); err != nil {
			return err
		}
	}
	return nil
}

// freshInactive returns the inactive set, starting a background reload
// when it is older than the refresh interval; nil when none is loaded.
func (s *Service) freshInactive() *inactiveSet {
	w := s.blobs.inactive.Load()
	if w != nil && time.Since(w.loaded) > s.blobs.every && s.blobs.refreshing.CompareAndSwap(false, true) {
		go func() {
			defer s.blobs.refreshing.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := s.RefreshInactive(ctx); err != nil {
				s.log.Warn("reloading the inactive set failed; retrying on a later fetch", "error", err.Error())
			}
		}()
	}
	return w
}

// servable reports whether d's blob may be served: a blob directory, a
// loaded inactive set, and d not in it.
func (s *Service) servable(d protocol.Digest) bool {
	if s.blobs.files == nil {
		return false
	}
	w := s.freshInactive()
	if w == nil {
		return false
	}
	_, in := w.digests[d]
	return !in
}

// blobRaw answers d from its blob file: the whole document, or only its
// size when body is false (HEAD, 304: the size of a verified file vouches
// for the bytes as much as a 200 does). ok is false when the caller must
// ask the store instead: no blob directory or inactive set yet, a
// withdrawn or deprecated document, no file, or a file that failed
// verification (it was deleted; the store's read writes it again).
func (s *Service) blobRaw(d protocol.Digest, body bool) (RawDocument, bool) {
	if !s.servable(d) {
		return RawDocument{}, false
	}
	if !body {
		n, err := s.blobs.files.Stat(d)
		if err != nil {
			s.blobFailed(d, err)
			return RawDocument{}, false
		}
		return RawDocument{Digest: d, Size: n}, true
	}
	b, hits, err := s.blobs.files.Read(d)
	if err != nil {
		s.blobFailed(d, err)
		return RawDocument{}, false
	}
	doc := newRawDocument(d, b, entity.Lifecycle{}, s.cfg.PublicURL)
	if hits >= promoteHits {
		s.cache.put(doc)
	}
	return *doc, true
}

func (s *Service) blobFailed(d protocol.Digest, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, blobs.ErrMismatch):
		s.log.Warn("a blob failed verification and was deleted; it is written again from the database", "hash", d.Hex())
	case errors.Is(err, blobs.ErrNotRegular):
		s.log.Warn("a blob's name was not a regular file and was removed; it is written again from the database", "hash", d.Hex(), "error", err.Error())
	default:
		s.log.Warn("reading a blob failed; answering from the database", "hash", d.Hex(), "error", err.Error())
	}
}

// fillBlob queues content for d's blob (Put checks it against d). Reads
// call it, publishes do not: creating a file costs a publish more than the
// 10 % it may (docs/BENCHMARKS.md, "Blob directory"), and the first read
// writes it off the request.
func (s *Service) fillBlob(d protocol.Digest, content []byte) {
	if s.blobs.writer != nil && !s.isInactive(d) && !s.blobs.files.Has(d) {
		s.blobs.writer.Queue(d, content)
	}
}

// withdrawBlob marks d withdrawn before its file goes, so no fetch in
// between serves it.
func (s *Service) withdrawBlob(d protocol.Digest) {
	if s.blobs.files == nil {
		return
	}
	s.markInactive(d, true)
	if err := s.blobs.files.Remove(d); err != nil {
		s.log.Warn("removing a withdrawn document's blob failed; it is not served", "hash", d.Hex(), "error", err.Error())
	}
}

// markInactive puts d into the inactive set (withdrawn or deprecated)
// before the store changes it, so no fetch in between answers from its
// blob without the new status.
func (s *Service) markInactive(d protocol.Digest, withdrawn bool) {
	s.updateInactive(func(m map[protocol.Digest]bool) bool {
		if was, ok := m[d]; ok && (was || !withdrawn) {
			return false
		}
		m[d] = withdrawn
		return true
	})
}

// markActive takes d out of the inactive set once the store has made it
// active again (a withdrawn document never is).
func (s *Service) markActive(d protocol.Digest) {
	s.updateInactive(func(m map[protocol.Digest]bool) bool {
		if withdrawn, ok := m[d]; !ok || withdrawn {
			return false
		}
		delete(m, d)
		return true
	})
}

// updateInactive replaces the loaded set with a copy changed by edit
// (false: no change). Before the first load it does nothing: nothing is
// served from files until then, and the load reads the store's state.
func (s *Service) updateInactive(edit func(map[protocol.Digest]bool) bool) {
	if s.blobs.files == nil {
		return
	}
	for {
		old := s.blobs.inactive.Load()
		if old == nil {
			return
		}
		next := &inactiveSet{digests: make(map[protocol.Digest]bool, len(old.digests)+1), loaded: old.loaded}
		for k, v := range old.digests {
			next.digests[k] = v
		}
		if !edit(next.digests) {
			return
		}
		if s.blobs.inactive.CompareAndSwap(old, next) {
			return
		}
	}
}

// WaitBlobs returns when every queued blob is written (tests, shutdown).
func (s *Service) WaitBlobs() {
	if s.blobs.writer != nil {
		s.blobs.writer.Wait()
	}
}

// promoteHits is the number of reads after which a blob is also kept in
// the memory cache: a hot document is then answered without a system
// call, while a document read once never displaces one in the cache.
// Measured: without the cache a hot GET costs +47 % CPU per response.
const promoteHits = 2
