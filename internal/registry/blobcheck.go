package registry

import (
	"context"
	"errors"
	"io/fs"

	"github.com/agora-registry/registry/internal/blobs"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// BlobCheck is what VerifyBlobs found (and fixed, when repairing).
type BlobCheck struct {
	Files int   // blob files looked at
	Bytes int64 // their size
	// Bad files do not hash to their name; Withdrawn and Orphans are files
	// of withdrawn documents and of documents the store lacks; NotRegular
	// are blob names that are not regular files (a FIFO, a directory).
	Bad, Withdrawn, Orphans, NotRegular int
	Repaired                            int // problems fixed (repair mode)
}

// Problems counts everything wrong.
func (c BlobCheck) Problems() int { return c.Bad + c.Withdrawn + c.Orphans + c.NotRegular }

// BlobProblem is one file VerifyBlobs reports.
type BlobProblem struct {
	Digest protocol.Digest
	What   string // "mismatch", "withdrawn", "orphan", "not-regular"
	Fixed  bool
}

var errNoBlobs = errors.New("no blob directory configured")

// VerifyBlobs re-hashes every blob file and asks the store about their
// documents, a batch of store.MaxResolve at a time. With repair, a bad
// file is written again from the store and the files of withdrawn or
// unknown documents are removed; without, nothing changes.
func (s *Service) VerifyBlobs(ctx context.Context, repair bool, report func(BlobProblem)) (BlobCheck, error) {
	files := s.blobs.files
	if files == nil {
		return BlobCheck{}, errNoBlobs
	}
	var (
		c     BlobCheck
		batch []protocol.Digest
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		res, err := s.store.Resolve(ctx, batch)
		if err != nil {
			return err
		}
		for i, r := range res {
			d := batch[i]
			p := BlobProblem{Digest: d}
			switch {
			case !r.Found:
				c.Orphans++
				p.What = "orphan"
			case r.Withdrawn:
				c.Withdrawn++
				p.What = "withdrawn"
			default:
				err := files.Check(d)
				if errors.Is(err, fs.ErrNotExist) {
					continue // removed meanwhile
				}
				if err != nil && !errors.Is(err, blobs.ErrMismatch) {
					return err
				}
				if err == nil {
					continue
				}
				c.Bad++
				p.What = "mismatch"
			}
			if repair {
				if err := s.repairBlob(ctx, d, p.What); err != nil {
					return err
				}
				p.Fixed = true
				c.Repaired++
			}
			report(p)
		}
		batch = batch[:0]
		return nil
	}
	err := files.Walk(func(e blobs.Entry) error {
		if e.NotRegular {
			// Never served (an open refuses it); repaired like a mismatch.
			c.NotRegular++
			p := BlobProblem{Digest: e.Digest, What: "not-regular"}
			if repair {
				if err := s.repairBlob(ctx, e.Digest, p.What); err != nil {
					return err
				}
				p.Fixed = true
				c.Repaired++
			}
			report(p)
			return ctx.Err()
		}
		c.Files++
		c.Bytes += e.Size
		batch = append(batch, e.Digest)
		if len(batch) == store.MaxResolve {
			return flush()
		}
		return ctx.Err()
	})
	if err == nil {
		err = flush()
	}
	return c, err
}

// repairBlob removes a bad file and, for a listed document, writes it
// again from the store (Put checks the store's bytes against d).
func (s *Service) repairBlob(ctx context.Context, d protocol.Digest, what string) error {
	if err := s.blobs.files.Remove(d); err != nil {
		return err
	}
	if what != "mismatch" && what != "not-regular" {
		return nil
	}
	content, _, err := s.store.Content(ctx, d)
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrWithdrawn) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.blobs.files.Put(d, content)
}

// rebuildBatchBytes is how much content a rebuild writes between two
// flushes of the file system.
const rebuildBatchBytes = 16 << 20

// RebuildBlobs writes a new blob directory from the store (every listed
// document) and swaps it in for the old one; it returns the files written.
func (s *Service) RebuildBlobs(ctx context.Context) (int, error) {
	if s.blobs.files == nil {
		return 0, errNoBlobs
	}
	n := 0
	err := s.blobs.files.Replace(func(fresh *blobs.Store) error {
		var (
			batch []blobs.Item
			bytes int
		)
		flush := func() error {
			err := fresh.PutBatch(batch)
			n += len(batch)
			batch, bytes = batch[:0], 0
			return err
		}
		err := s.store.Each(ctx, func(e entity.Entry) error {
			if e.Withdrawn() {
				return nil
			}
			batch = append(batch, blobs.Item{Digest: e.Digest, Content: e.Content})
			if bytes += len(e.Content); bytes >= rebuildBatchBytes {
				return flush()
			}
			return nil
		})
		if err != nil {
			return err
		}
		return flush()
	})
	return n, err
}
