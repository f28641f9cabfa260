package fault

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver the registry itself uses
)

// sqliteFile is the embedded store's file under --data-dir (cmd/registry).
const sqliteFile = "registry.db"

// TestSIGKILLMidPublishSQLite kills the registry with SIGKILL while
// publishers are writing, several times over the same data directory. After
// each kill the database must pass PRAGMA integrity_check, and in the end
// every publish that was acknowledged (201/200) must be served with its
// exact bytes by a registry restarted on the same directory.
func TestSIGKILLMidPublishSQLite(t *testing.T) {
	requireFaults(t)
	const (
		rounds     = 3
		publishers = 8
		// A kill comes after this many new acknowledgements (or killAfter),
		// so it always lands in the middle of a stream of writes.
		acksPerRound = 150
		killAfter    = 5 * time.Second
	)
	dir := t.TempDir()
	c := newClient()
	defer c.close()
	acked := newLedger()
	var attempts, transportErrors atomic.Int64

	for round := 1; round <= rounds; round++ {
		srv := startServer(t, "--data-dir", dir)
		before := acked.len()
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range publishers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for ctx.Err() == nil {
					doc := newDocument(rng)
					attempts.Add(1)
					st, _, body, ok, err := c.publish(ctx, srv.URL, doc)
					switch {
					case ok:
						acked.add(doc)
					case err != nil:
						// The kill cuts requests in flight: not acknowledged,
						// so the document may or may not be there. After
						// it, the port is closed: stop.
						transportErrors.Add(1)
						return
					case ctx.Err() == nil:
						t.Errorf("publish before the kill: %d %.200s", st, body)
					}
				}
			}()
		}
		deadline := time.Now().Add(killAfter)
		for acked.len()-before < acksPerRound && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		srv.Kill() // SIGKILL with publishers still writing
		cancel()
		wg.Wait()
		if acked.len() == before {
			t.Fatalf("round %d: no publish acknowledged before the kill", round)
		}
		if res := integrityCheck(t, filepath.Join(dir, sqliteFile)); res != "ok" {
			t.Fatalf("round %d: integrity_check after SIGKILL: %s", round, res)
		}
		t.Logf("round %d: killed after %d acknowledged publishes (total %d)", round, acked.len()-before, acked.len())
	}

	srv := startServer(t, "--data-dir", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := waitReady(ctx, c, srv.URL); err != nil {
		t.Fatal(err)
	}
	if bad := acked.verifyAll(ctx, c, srv.URL); len(bad) > 0 {
		t.Fatalf("%d of %d acknowledged publishes lost or changed after SIGKILL; first: %v", len(bad), acked.len(), bad[:min(5, len(bad))])
	}
	t.Logf("FIGURES sigkill-sqlite: rounds=%d publish_attempts=%d acknowledged=%d cut_in_flight=%d lost=0 integrity_check=ok",
		rounds, attempts.Load(), acked.len(), transportErrors.Load())
}

// integrityCheck opens the SQLite file the way a restarted registry would
// (recovering the WAL) and returns PRAGMA integrity_check's answer.
func integrityCheck(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		t.Fatalf("integrity_check: %v", err)
	}
	defer rows.Close()
	var out string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		if out != "" {
			out += "; "
		}
		out += line
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
