package postgres

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/store"
)

// MaxTagsLimit caps how many tags one Tags call returns.
const MaxTagsLimit = 1000

// The counts come from document_counts (migration 000002): triggers append
// a row of changes per write statement, and a goroutine of the store folds
// the rows into one after every foldEvery writes of this process, so Stats
// and Tags sum a few hundred small rows per writer process, never the
// documents, and no request waits for a fold (figures:
// docs/benchmarks/postgres-write-profile.md).

// foldEvery is how many write statements of this process may add rows to
// document_counts before it folds them.
const foldEvery = 250

// countFolder runs one fold at a time in the background; the SQL function
// takes an advisory lock, so processes sharing the database fold one at a
// time too.
type countFolder struct {
	writes atomic.Int64
	due    chan struct{} // one token: a fold is due
	stop   context.CancelFunc
	done   chan struct{} // closed when the goroutine has returned
}

// startFolding starts the store's folding goroutine, with a first fold for
// what earlier processes left unfolded. stopFolding ends it.
func (s *Store) startFolding() {
	ctx, stop := context.WithCancel(context.Background())
	s.folder.due = make(chan struct{}, 1)
	s.folder.stop = stop
	s.folder.done = make(chan struct{})
	s.folder.due <- struct{}{}
	go s.foldWhenDue(ctx)
}

func (s *Store) foldWhenDue(ctx context.Context) {
	defer close(s.folder.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.folder.due:
			s.foldCounts(ctx)
		}
	}
}

// stopFolding cancels a fold in progress (its rows stay for the next one)
// and waits for the goroutine.
func (s *Store) stopFolding() {
	s.folder.stop()
	<-s.folder.done
}

// wrote records a write statement whose transaction committed, and asks
// for a fold when one is due. It never waits.
func (s *Store) wrote() {
	if s.folder.writes.Add(1)%foldEvery != 0 {
		return
	}
	select {
	case s.folder.due <- struct{}{}:
	default: // a fold is already due
	}
}

// foldCounts sums document_counts into one row. Best effort: a failure
// leaves the rows for the next fold.
func (s *Store) foldCounts(ctx context.Context) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, _ = s.pool.Exec(ctx, "SELECT fold_document_counts()")
}

// listedTagCounts sums each tag's count rows: the tags of listed entries
// with their counts.
const listedTagCounts = `SELECT tag, sum(n)::bigint AS listed
	FROM document_counts, unnest(tags, tag_deltas) AS t (tag, n)
	GROUP BY tag HAVING sum(n) > 0`

// Tags counts listed entries per tag, most used first, ties by name.
func (s *Store) Tags(ctx context.Context, limit int) ([]store.TagCount, error) {
	if limit <= 0 {
		return nil, store.ErrInvalid.With("the tag limit must be positive")
	}
	limit = min(limit, MaxTagsLimit)
	ctx, cancel := s.op(ctx)
	defer cancel()
	rows, err := s.pool.Query(ctx, `SELECT tag, listed FROM (`+listedTagCounts+`) AS c ORDER BY listed DESC, tag LIMIT $1`, limit)
	if err != nil {
		return nil, mapErr(err)
	}
	out := []store.TagCount{}
	var tc store.TagCount
	_, err = pgx.ForEachRow(rows, []any{&tc.Tag, &tc.Count}, func() error {
		out = append(out, tc)
		return nil
	})
	return out, mapErr(err)
}

// Stats counts listed and withdrawn entries and distinct listed tags.
func (s *Store) Stats(ctx context.Context) (store.Stats, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	var st store.Stats
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT coalesce(sum(listed), 0)::bigint FROM document_counts),
		(SELECT coalesce(sum(withdrawn), 0)::bigint FROM document_counts),
		(SELECT count(*) FROM (`+listedTagCounts+`) AS c)`).
		Scan(&st.Documents, &st.Withdrawn, &st.Tags)
	return st, mapErr(err)
}
