package follow_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

// convergeDocs is the upstream's size (issue 18: 10,000 documents).
const convergeDocs = 10_000

// TestFollowerConvergesOnALargeUpstream: a running follower replicates a
// 10,000-document upstream with withdrawals, through an upstream outage
// and restart in the middle (a new process on the same database with
// PostgreSQL), and ends with exactly what the upstream's log says, the log
// checked with tlog's own functions rather than through the follower.
func TestFollowerConvergesOnALargeUpstream(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			up := security.Start(t, security.Options{}) // the follower's engine is the one tested
			here := security.Start(t, security.Options{Engine: engine})
			ds := seed(t, up.Store, convergeDocs)
			withdraw := func(srv *security.Server, from int) {
				for i := from; i < convergeDocs; i += 1000 {
					if err := srv.Svc.Withdraw(ctx(t), entity.Token{Name: "test"}, ds[i], "spam"); err != nil {
						t.Fatal(err)
					}
				}
			}
			withdraw(up, 7) // before the follower reads them: never stored here
			if err := up.Log.Integrate(ctx(t)); err != nil {
				t.Fatal(err)
			}

			p := newProxy(t, up.URL)
			c, err := client.New(p.URL, &http.Client{Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			f := follow.New(c, here.Svc, here.Store, slog.New(slog.DiscardHandler), follow.Timing{Wait: 200 * time.Millisecond, MinBackoff: 10 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
			run, stop := context.WithCancel(ctx(t))
			done := make(chan struct{})
			go func() { f.Run(run); close(done) }()
			t.Cleanup(func() { stop(); <-done })

			// Mid-way the upstream goes down, changes, and comes back as
			// a new server on its data (a restart).
			applied := func() int64 {
				st, err := here.Store.FollowState(ctx(t), p.URL)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					t.Fatal(err)
				}
				return st.Applied
			}
			waitUntil(t, "the follower is part-way", func() bool { return applied() >= 2000 })
			p.down.Store(true)
			withdraw(up, 3) // already replicated by now: withdrawn here too
			more := seed(t, up.Store, 50)
			restarted, tl := restart(t, up.Store)
			p.target.Store(restarted)
			if err := tl.Integrate(ctx(t)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // a few failed rounds
			if applied() >= convergeDocs {
				t.Fatal("the follower finished before the outage; it tests nothing")
			}
			p.down.Store(false)

			head, err := up.Store.LogHead(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "the follower converges", func() bool { return applied() == head.Size && f.Status().Lag == 0 })
			checkReplica(t, up, here, p.URL, head)
			if len(more) != 50 || f.Status().Forked {
				t.Fatalf("status %+v", f.Status())
			}
		})
	}
}

// restart serves st as a new registry process would: the log's key and
// head read back from the database, a new socket.
func restart(t *testing.T, st store.Store) (string, *translog.Log) {
	key, err := translog.LoadKey(ctx(t), st, "", "unused.example")
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	tl := translog.New(st, key, quiet)
	svc := registry.New(st, registry.Config{Log: tl, Logger: quiet})
	srv := httptest.NewServer(api.New(svc, api.Config{Logger: quiet}).Handler())
	t.Cleanup(srv.Close)
	return srv.URL, tl
}

// seed stores n new small documents upstream in batches, as an import
// does (the follower's work is what is tested, not the upstream's).
func seed(t *testing.T, st store.Store, n int) []protocol.Digest {
	t.Helper()
	stats, err := st.Stats(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	from := stats.Documents + stats.Withdrawn
	var out []protocol.Digest
	for i := from; i < from+n; i += 1000 {
		var batch []store.NewDocument
		for j := i; j < min(i+1000, from+n); j++ {
			d, err := protocol.Prepare(fmt.Appendf(nil, "# Replicated %d\n\nDocument %d of the upstream.\n", j, j), 0)
			if err != nil {
				t.Fatal(err)
			}
			batch = append(batch, store.NewDocument{Document: d})
			out = append(out, d.Sums.SHA1)
		}
		if _, err := st.PutMany(ctx(t), batch); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkReplica recomputes the upstream's tree from its records with tlog,
// checks that the checkpoint the follower kept signs that tree, and that
// the replica holds exactly what the records say: every document
// published and not withdrawn, with its bytes and the upstream as origin;
// every withdrawn one withdrawn or never stored; nothing else.
func checkReplica(t *testing.T, up, here *security.Server, origin string, head store.LogHead) {
	t.Helper()
	var recs []store.LogRecord
	for int64(len(recs)) < head.Size {
		page, err := up.Store.LogRecords(ctx(t), int64(len(recs)), int(min(1000, head.Size-int64(len(recs)))))
		if err != nil || len(page) == 0 {
			t.Fatalf("upstream records from %d: %v", len(recs), err)
		}
		recs = append(recs, page...)
	}
	var hashes []tlog.Hash
	hr := tlog.HashReaderFunc(func(idx []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(idx))
		for i, x := range idx {
			out[i] = hashes[x]
		}
		return out, nil
	})
	published := map[protocol.Digest]agora.LogRecord{}
	withdrawn := map[protocol.Digest]bool{}
	for i, r := range recs {
		hs, err := tlog.StoredHashes(int64(i), r.Text, hr)
		if err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, hs...)
		rec, err := agora.ParseLogRecord(r.Text)
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Event {
		case agora.LogEventPublish:
			published[rec.Digest] = rec
		case agora.LogEventWithdraw:
			withdrawn[rec.Digest] = true
		}
	}
	root, err := tlog.TreeHash(head.Size, hr)
	if err != nil {
		t.Fatal(err)
	}
	st, err := here.Store.FollowState(ctx(t), origin)
	if err != nil {
		t.Fatal(err)
	}
	v, err := note.NewVerifier(st.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := agora.OpenLogCheckpoint(st.Checkpoint, v)
	if err != nil || cp.N != head.Size || cp.Hash != root {
		t.Fatalf("the follower's checkpoint %+v (%v) is not the tree of the upstream's %d records (root %s)", cp, err, head.Size, root)
	}
	active, tombstones := 0, 0
	for d, rec := range published {
		e, err := here.Store.Get(ctx(t), d, true)
		switch {
		case withdrawn[d] && errors.Is(err, store.ErrNotFound):
		case withdrawn[d] && errors.Is(err, store.ErrWithdrawn) && e.Origin == origin:
			tombstones++
		case !withdrawn[d] && err == nil && e.Origin == origin && sha256.Sum256(e.Content) == rec.SHA256:
			active++
		default:
			t.Fatalf("%s (withdrawn upstream: %v): here %+v, %v", d.Hex(), withdrawn[d], e.Origin, err)
		}
	}
	stats, err := here.Store.Stats(ctx(t))
	if err != nil || stats.Documents != active || stats.Withdrawn != tombstones || tombstones == 0 {
		t.Fatalf("the replica holds %+v (%v), want %d documents and %d (> 0) withdrawn", stats, err, active, tombstones)
	}
}
