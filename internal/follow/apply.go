package follow

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/translog"
)

// fetchers bounds the documents fetched from one upstream at once.
const fetchers = 8

// apply applies one page of verified records: the documents its publishes
// name that are not stored here are fetched concurrently, checked against
// their records and stored in one transaction per maxBatchBytes; then its
// withdrawals of
// documents that came from this upstream are applied in order. A document
// stored here already, whatever its origin, is never re-imported (so
// follower chains cannot loop, and a page replayed after a failure stores
// nothing twice).
func (f *Follower) apply(ctx context.Context, recs []translog.Record) error {
	missing, err := f.missing(ctx, recs)
	if err != nil {
		return err
	}
	for len(missing) > 0 {
		n := batchOf(missing)
		if err := f.fetchAndStore(ctx, missing[:n]); err != nil {
			return err
		}
		missing = missing[n:]
	}
	for _, r := range recs {
		if r.Event == translog.EventWithdraw {
			if err := f.withdraw(ctx, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxBatchBytes bounds the documents held and stored at once, as an
// import's batches are bounded (archive.DefaultBatchBytes).
const maxBatchBytes = 16 << 20

// batchOf is how many of rs (at least one) fit in maxBatchBytes by their
// records' sizes, which each fetched document must match.
func batchOf(rs []translog.Record) int {
	total := 0
	for i, r := range rs {
		total += r.Size
		if total > maxBatchBytes && i > 0 {
			return i
		}
	}
	return len(rs)
}

// fetchAndStore fetches rs concurrently and stores those to replicate in
// one transaction.
func (f *Follower) fetchAndStore(ctx context.Context, rs []translog.Record) error {
	contents := make([][]byte, len(rs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(fetchers)
	for i, r := range rs {
		g.Go(func() (err error) {
			contents[i], err = f.fetch(gctx, r)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var (
		reqs []registry.PublishRequest
		hex  []string
	)
	for i, c := range contents {
		if c != nil {
			reqs = append(reqs, registry.PublishRequest{Content: c, Origin: f.up.Origin(), Publisher: registry.MirrorPublisher})
			hex = append(hex, rs[i].Digest.Hex())
		}
	}
	return f.store(ctx, reqs, hex)
}

// store stores a page's fetched documents in one transaction. Should the
// store refuse the batch as a whole, each is stored alone, so that one
// refused document cannot block every record behind it.
func (f *Follower) store(ctx context.Context, reqs []registry.PublishRequest, hex []string) error {
	if len(reqs) == 0 {
		return nil
	}
	refused, err := f.local.PublishMany(ctx, reqs)
	if k := apperr.KindOf(err); err != nil && (k == apperr.Invalid || k == apperr.TooLarge) {
		if len(reqs) > 1 {
			for i := range reqs {
				if err := f.store(ctx, reqs[i:i+1], hex[i:i+1]); err != nil {
					return err
				}
			}
			return nil
		}
		refused, err = []error{err}, nil
	}
	if err != nil {
		return err
	}
	for i, err := range refused {
		if err != nil {
			// This registry's rules refuse it; retrying would block
			// every later record behind it.
			f.log.Warn("follower: a document this registry refuses is not replicated", "hash", hex[i], "error", err.Error())
		}
	}
	return nil
}

// missing returns the page's publish records, one per document, whose
// documents are not stored here.
func (f *Follower) missing(ctx context.Context, recs []translog.Record) ([]translog.Record, error) {
	seen := make(map[protocol.Digest]bool)
	var pubs []translog.Record
	var ds []protocol.Digest
	for _, r := range recs {
		if r.Event == translog.EventPublish && !seen[r.Digest] {
			seen[r.Digest] = true
			pubs = append(pubs, r)
			ds = append(ds, r.Digest)
		}
	}
	var out []translog.Record
	for i := 0; i < len(ds); i += store.MaxResolve {
		res, err := f.local.Resolve(ctx, ds[i:min(len(ds), i+store.MaxResolve)])
		if err != nil {
			return nil, err
		}
		for j, r := range res {
			if !r.Found {
				out = append(out, pubs[i+j])
			}
		}
	}
	return out, nil
}

// fetch returns a published document's bytes once they match its record,
// or nil for one not to replicate.
func (f *Follower) fetch(ctx context.Context, r translog.Record) ([]byte, error) {
	content, err := f.up.Fetch(ctx, r.Digest)
	switch apperr.KindOf(err) {
	case apperr.Gone, apperr.NotFound:
		return nil, nil // withdrawn upstream since: its withdrawal record follows
	case apperr.TooLarge:
		f.log.Warn("follower: a document larger than --max-document-bytes is not replicated", "hash", r.Digest.Hex())
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(content) != r.Size || sha256.Sum256(content) != r.SHA256 {
		return nil, translog.ErrNotProved.With(fmt.Sprintf("%s: the upstream's bytes are not the ones its log records", r.Digest.Hex()))
	}
	return content, nil
}

// withdraw applies an upstream's withdrawal to a document that came from
// that upstream, and to no other.
func (f *Follower) withdraw(ctx context.Context, r translog.Record) error {
	local, err := f.local.Stored(ctx, r.Digest)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if local.Withdrawn() || local.Origin != f.up.Origin() {
		return nil
	}
	return f.local.Withdraw(ctx, followerToken, r.Digest, r.Reason)
}
