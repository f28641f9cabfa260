package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
)

// maxGroupedPuts bounds one grouped transaction, so a long queue is
// committed in several and no Put waits behind an unbounded batch.
const maxGroupedPuts = 64

// Group commit. SQLite has one writer, so concurrent Puts queue for it
// anyway; each in its own transaction paid a commit (WAL frames of every
// page it touched, a sync) and a new full-text segment. Instead, whoever
// gets the writer commits every Put queued at that moment in one
// transaction, and the others find theirs done. A Put still returns only
// after its document is committed.

// pendingPut is one Put waiting for a commit.
type pendingPut struct {
	nd      store.NewDocument
	entry   entity.Entry
	created bool
	err     error
	done    bool // set by the committing goroutine while it holds writeMu
}

// putQueue holds the Puts not yet taken by a commit.
type putQueue struct {
	mu      sync.Mutex
	waiting []*pendingPut
}

func (q *putQueue) add(p *pendingPut) {
	q.mu.Lock()
	q.waiting = append(q.waiting, p)
	q.mu.Unlock()
}

// take removes up to max queued Puts, oldest first.
func (q *putQueue) take(max int) []*pendingPut {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(max, len(q.waiting))
	batch := append([]*pendingPut(nil), q.waiting[:n]...)
	q.waiting = append(q.waiting[:0], q.waiting[n:]...)
	return batch
}

// Put stores one document idempotently; concurrent Puts share a commit.
func (s *Store) Put(ctx context.Context, nd store.NewDocument) (entity.Entry, bool, error) {
	if err := checkNew(nd); err != nil {
		return entity.Entry{}, false, err
	}
	p := &pendingPut{nd: nd}
	s.puts.add(p)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	// Queued before this goroutine took the writer: either an earlier
	// holder committed it, or it is in the queue and taken now.
	for !p.done {
		batch := s.puts.take(maxGroupedPuts)
		if len(batch) == 0 { // cannot happen: p is queued until it is done
			return entity.Entry{}, false, errors.New("sqlite: a queued Put was lost")
		}
		s.commitPuts(ctx, batch)
	}
	return p.entry, p.created, p.err
}

// commitPuts writes a batch in one transaction. The batch commits for all
// its members, so it does not stop when the caller's context ends (one
// client leaving must not fail the others'); if the transaction fails, each
// Put is tried alone, so a document is only ever failed by its own error.
// The caller holds writeMu.
func (s *Store) commitPuts(ctx context.Context, batch []*pendingPut) {
	ctx = context.WithoutCancel(ctx)
	err := s.writeTxLocked(ctx, func(tx *sql.Tx) error { return putAll(ctx, tx, batch) })
	if err != nil && len(batch) > 1 {
		for _, p := range batch {
			p.finish(s.writeTxLocked(ctx, func(tx *sql.Tx) error { return putAll(ctx, tx, []*pendingPut{p}) }))
		}
		return
	}
	for _, p := range batch {
		p.finish(err)
	}
}

// finish records the outcome of p's commit; a failed one answers nothing
// but its error (the insert may have run before the transaction failed).
func (p *pendingPut) finish(err error) {
	if err != nil {
		p.entry, p.created = entity.Entry{}, false
	}
	p.err, p.done = err, true
}

// putAll inserts a batch and reads back each entry (a document stored
// already, or put twice in the batch, answers with the stored row).
func putAll(ctx context.Context, tx *sql.Tx, batch []*pendingPut) error {
	in, err := newInserter(ctx, tx)
	if err != nil {
		return err
	}
	for _, p := range batch {
		if p.created, err = in.insert(ctx, p.nd); err != nil {
			return err
		}
	}
	if err := in.flush(ctx); err != nil {
		return err
	}
	for _, p := range batch {
		if p.entry, err = scanEntry(tx.QueryRowContext(ctx, `SELECT `+entryColumns+` FROM documents d WHERE d.hex = ?`, p.nd.Document.Sums.SHA1.Hex())); err != nil {
			return err
		}
	}
	return nil
}
