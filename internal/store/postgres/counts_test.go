package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

func taggedDoc(t *testing.T, i int, tags ...string) store.NewDocument {
	t.Helper()
	content := fmt.Sprintf("---\nname: Counted %d\ndescription: counts\ntags: [%s]\n---\n\nBody %d.\n", i, strings.Join(tags, ", "), i)
	doc, err := protocol.Prepare([]byte(content), 0)
	if err != nil {
		t.Fatal(err)
	}
	return store.NewDocument{Document: doc}
}

// recount is what Stats and Tags must say, counted from the documents
// table itself.
func recount(t *testing.T, s *postgres.Store) (store.Stats, []store.TagCount) {
	t.Helper()
	ctx := context.Background()
	var st store.Stats
	if err := s.Pool().QueryRow(ctx, `SELECT
		(SELECT count(*) FROM documents WHERE withdrawn_at IS NULL),
		(SELECT count(*) FROM documents WHERE withdrawn_at IS NOT NULL),
		(SELECT count(DISTINCT tag) FROM documents, unnest(tags) AS tag WHERE withdrawn_at IS NULL)`).
		Scan(&st.Documents, &st.Withdrawn, &st.Tags); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Pool().Query(ctx, `SELECT tag, count(*) FROM documents, unnest(tags) AS tag
		WHERE withdrawn_at IS NULL GROUP BY tag ORDER BY count(*) DESC, tag`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tags := []store.TagCount{}
	for rows.Next() {
		var tc store.TagCount
		if err := rows.Scan(&tc.Tag, &tc.Count); err != nil {
			t.Fatal(err)
		}
		tags = append(tags, tc)
	}
	return st, tags
}

func checkCounts(t *testing.T, s *postgres.Store, step string) {
	t.Helper()
	wantStats, wantTags := recount(t, s)
	st, err := s.Stats(context.Background())
	if err != nil {
		t.Fatalf("%s: Stats: %v", step, err)
	}
	if st != wantStats {
		t.Fatalf("%s: Stats = %+v, counted from the documents %+v", step, st, wantStats)
	}
	tags, err := s.Tags(context.Background(), postgres.MaxTagsLimit)
	if err != nil {
		t.Fatalf("%s: Tags: %v", step, err)
	}
	if !slices.Equal(tags, wantTags) {
		t.Fatalf("%s: Tags = %v, counted from the documents %v", step, tags, wantTags)
	}
}

// The counters follow every kind of write: new, repeated and concurrent
// Puts, batches with duplicates inside and across them, imported
// withdrawn entries, extra tags, and withdrawals (repeated, unknown).
func TestCountsFollowWrites(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	checkCounts(t, s, "empty store")

	a := taggedDoc(t, 1, "alpha", "beta")
	if _, created, err := s.Put(ctx, a); err != nil || !created {
		t.Fatalf("Put: %v, %v", created, err)
	}
	if _, created, err := s.Put(ctx, a); err != nil || created {
		t.Fatalf("second Put: %v, %v", created, err)
	}
	extra := taggedDoc(t, 2, "beta")
	extra.ExtraTags = []string{"gamma"}
	if _, _, err := s.Put(ctx, extra); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, s, "after Puts")

	gone := taggedDoc(t, 3, "alpha", "delta")
	gone.WithdrawnAt = new(time.Now().Add(-time.Hour))
	gone.WithdrawReason = "imported withdrawn"
	batch := []store.NewDocument{taggedDoc(t, 4, "alpha"), a, taggedDoc(t, 4, "alpha"), gone, taggedDoc(t, 5), taggedDoc(t, 6, "epsilon", "alpha")}
	created, err := s.PutMany(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false, true, true, true}; !slices.Equal(created, want) {
		t.Fatalf("PutMany created %v, want %v", created, want)
	}
	checkCounts(t, s, "after PutMany")
	if _, err := s.PutMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, s, "after the same PutMany again")

	for _, d := range []protocol.Digest{a.Document.Sums.SHA1, a.Document.Sums.SHA1, gone.Document.Sums.SHA1} {
		if err := s.Withdraw(ctx, d, "test"); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, s, "after Withdraw of "+d.String())
	}
	if err := s.Withdraw(ctx, protocol.Digest{9}, "unknown"); err == nil {
		t.Fatal("Withdraw of an unknown digest succeeded")
	}
	checkCounts(t, s, "after Withdraw of an unknown digest")

	fold(t, s)
	checkCounts(t, s, "after folding")
	var rows int
	if err := s.Pool().QueryRow(ctx, "SELECT count(*) FROM document_counts").Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("document_counts holds %d rows after folding (%v), want 1", rows, err)
	}

	// Concurrent writers, on as many connections as the pool holds, and
	// folds between and beside their writes.
	var wg sync.WaitGroup
	wg.Go(func() {
		for range 20 {
			fold(t, s)
		}
	})
	for w := range 8 {
		wg.Go(func() {
			for i := range 10 {
				nd := taggedDoc(t, 100+i, "shared", fmt.Sprintf("w%d", w))
				if _, _, err := s.Put(ctx, nd); err != nil {
					t.Error(err)
				}
				if i%3 == 0 {
					if err := s.Withdraw(ctx, nd.Document.Sums.SHA1, "concurrent"); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	checkCounts(t, s, "after concurrent Puts and Withdraws")
}

// fold folds now. fold_document_counts returns without folding while
// another fold holds its lock (the store's background fold may be under
// way), so the lock is waited for first, in the same transaction. It
// reports with t.Error: the concurrent part calls it from goroutines.
func fold(t *testing.T, s *postgres.Store) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Error(err)
		return
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	for _, q := range []string{"SELECT pg_advisory_xact_lock(hashtext('agora-registry fold_document_counts'))", "SELECT fold_document_counts()"} {
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Error(err)
			return
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Error(err)
	}
}

// Migration counts_and_storage counts the documents stored before it.
func TestCountsMigrationBackfills(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.PutMany(ctx, []store.NewDocument{taggedDoc(t, 1, "alpha")}); err != nil {
		t.Fatal(err)
	}
	storetest.OverMigration(t, migrate.Postgres, dsn, "counts_and_storage").ToBefore()
	// Written while no counters exist, by today's code: it writes the
	// publisher column of a later migration, added here for the writes and
	// dropped before the migrations run again.
	exec(t, dsn, `ALTER TABLE documents ADD COLUMN publisher text NOT NULL DEFAULT 'default'`)
	exec(t, dsn, matchIndexShim)
	gone := taggedDoc(t, 2, "alpha", "beta")
	gone.WithdrawnAt = new(time.Now())
	if _, err := s.PutMany(ctx, []store.NewDocument{taggedDoc(t, 3, "beta", "gamma"), gone, taggedDoc(t, 4)}); err != nil {
		t.Fatal(err)
	}
	exec(t, dsn, `ALTER TABLE documents DROP COLUMN publisher`)
	exec(t, dsn, `DROP TABLE document_match`)
	if err := migrate.Up(ctx, migrate.Postgres, dsn); err != nil {
		t.Fatalf("up again: %v", err)
	}
	checkCounts(t, s, "after the migration")
	if st, _ := s.Stats(ctx); st != (store.Stats{Documents: 3, Withdrawn: 1, Tags: 3}) {
		t.Fatalf("Stats = %+v, want 3 listed, 1 withdrawn, 3 tags", st)
	}
}

// matchIndexShim is migration 000026's table, for today's code to write
// to a schema older than it; the test drops it before migrating up.
const matchIndexShim = `CREATE TABLE document_match (digest bytea PRIMARY KEY, doc tsvector NOT NULL)`
