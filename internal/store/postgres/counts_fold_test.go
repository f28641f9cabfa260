package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/store/postgres"
)

// waitFor polls cond until it holds; the bound only keeps a broken build
// from hanging, it measures nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
	}
}

func countRows(t *testing.T, s *postgres.Store) int {
	t.Helper()
	var n int
	if err := s.Pool().QueryRow(context.Background(), "SELECT count(*) FROM document_counts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The fold every FoldEvery writes runs beside the requests: while another
// transaction keeps it from finishing, the write that made it due has
// returned, and the counts stay right. Once let go, it folds with no
// request running.
func TestCountsFoldOutsideRequests(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	if _, _, err := s.Put(ctx, taggedDoc(t, 0, "alpha")); err != nil {
		t.Fatal(err)
	}

	// The fold deletes every row: locking the ones there now makes it wait.
	blocker, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback(ctx)
	if _, err := blocker.Exec(ctx, "SELECT 1 FROM document_counts FOR UPDATE"); err != nil {
		t.Fatal(err)
	}

	// With the Put above, the last of these is the FoldEvery-th write.
	written := make(chan error, 1)
	go func() {
		for i := 1; i < postgres.FoldEvery; i++ {
			if _, _, err := s.Put(ctx, taggedDoc(t, i, "alpha", fmt.Sprintf("t%d", i%7))); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()
	waitFor(t, "a fold waiting on the locked rows", func() bool {
		var waiting int
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid()
			  AND wait_event_type = 'Lock' AND query LIKE '%fold_document_counts%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		return waiting > 0
	})
	select {
	case err := <-written:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second): // below the 30 s operation timeout that would free a write stuck in a fold
		t.Fatal("a write is waiting for the fold of the counts")
	}
	checkCounts(t, s, "while a fold waits")

	if err := blocker.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the fold to finish without a request", func() bool { return countRows(t, s) == 1 })
	checkCounts(t, s, "after the background fold")
}

// Concurrent writers and withdrawals, across several folds in the
// background, leave the counts right; Close stops the folding.
func TestCountsStayRightAcrossBackgroundFolds(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	const writers = 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range postgres.FoldEvery * 3 / writers {
				nd := taggedDoc(t, w*10000+i, "shared", fmt.Sprintf("w%d", w), fmt.Sprintf("i%d", i%5))
				if _, _, err := s.Put(ctx, nd); err != nil {
					t.Error(err)
					return
				}
				if i%4 == 0 {
					if err := s.Withdraw(ctx, nd.Document.Sums.SHA1, "concurrent"); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	checkCounts(t, s, "after concurrent writes with background folds")
	if n := countRows(t, s); n >= postgres.FoldEvery*3 {
		t.Fatalf("document_counts holds %d rows after %d writes: nothing was folded", n, postgres.FoldEvery*3)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}
