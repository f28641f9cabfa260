package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// With autovacuum off, only the store itself refreshes the planner's
// statistics. Single publishes must do it as imports do: once the table
// has grown past the threshold, pg_class.reltuples (which ANALYZE sets,
// and which stays -1 on a table never analysed) knows the rows.
func TestSinglePublishesRefreshStatistics(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			s.Close()
		}
	})
	if _, err := s.Pool().Exec(ctx, "ALTER TABLE documents SET (autovacuum_enabled = false)"); err != nil {
		t.Fatal(err)
	}
	const rows, workers = 1000, 8 // rows: minAnalyzeRows, where the first refresh is due
	var g errgroup.Group
	for w := range workers {
		g.Go(func() error {
			for i := w; i < rows; i += workers {
				doc, err := protocol.Prepare([]byte(fmt.Sprintf("# Single %d\n\nOne publish at a time.\n", i)), 0)
				if err != nil {
					return err
				}
				if _, created, err := s.Put(ctx, store.NewDocument{Document: doc}); err != nil || !created {
					return fmt.Errorf("Put %d: created=%v %v", i, created, err)
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	s.Close() // waits for a refresh running in the background
	closed = true

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var reltuples float64
	if err := conn.QueryRow(ctx, "SELECT reltuples FROM pg_class WHERE oid = 'documents'::regclass").Scan(&reltuples); err != nil {
		t.Fatal(err)
	}
	if reltuples < rows {
		t.Fatalf("after %d single publishes with autovacuum off, the planner estimates %.0f rows: statistics were never refreshed", rows, reltuples)
	}
}
