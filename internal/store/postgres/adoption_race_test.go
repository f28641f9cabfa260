package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agora-registry/registry/internal/adoption/sketch"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Two replicas write one hash's counts at once for two days (their clocks
// either side of midnight). Each score is a sum over day rows; without
// serialising the writes the second keeps a sum that misses the first's
// row. A third session holds the score row so both writes are under way
// before either can finish.
func TestAdoptionWritesOfTwoDaysAtOnceKeepTheScore(t *testing.T) {
	ctx := context.Background()
	s, dsn := openStoreDSN(t)
	holder, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Close(context.Background()) })

	d := protocol.Digest{0xad, 0x09}
	day := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	next := day.AddDate(0, 0, 1)
	clients := func(from, n int) []byte {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = uint64(from + i + 1)
		}
		return sketch.Of(hs)
	}
	if err := s.AddAdoption(ctx, day, []store.AdoptionDelta{{Digest: d, Fetches: 10, Clients: clients(0, 10)}}); err != nil {
		t.Fatal(err)
	}

	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM adoption_scores WHERE digest = $1 FOR UPDATE`, d[:]); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	go func() {
		errs <- s.AddAdoption(ctx, day, []store.AdoptionDelta{{Digest: d, Fetches: 5, Clients: clients(10, 5)}})
	}()
	go func() {
		errs <- s.AddAdoption(ctx, next, []store.AdoptionDelta{{Digest: d, Resolutions: 6, Clients: clients(0, 6)}})
	}()
	// Both writers wait for a lock (the held row, or each other). Read
	// from another session: one in a transaction sees a frozen snapshot of
	// pg_stat_activity.
	watcher, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watcher.Close(context.Background()) })
	for waiting, tries := 0, 0; waiting < 2; tries++ {
		if tries == 3000 {
			t.Fatalf("after 30 s %d writers wait for a lock, want 2", waiting)
		}
		time.Sleep(10 * time.Millisecond)
		if err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}

	var score, window int64
	var since time.Time
	if err := holder.QueryRow(ctx, `SELECT score, since FROM adoption_scores WHERE digest = $1`, d[:]).Scan(&score, &since); err != nil {
		t.Fatal(err)
	}
	if err := holder.QueryRow(ctx, `SELECT sum(clients) FROM adoption_daily WHERE digest = $1 AND day >= $2`, d[:], since).Scan(&window); err != nil {
		t.Fatal(err)
	}
	// Either write may be the later: both windows hold both days.
	if score != window || window != 21 {
		t.Fatalf("score %d since %s, but the window holds %d (want 21)", score, since.Format(time.DateOnly), window)
	}
}
