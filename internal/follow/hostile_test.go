package follow_test

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/testing/security"
)

func doc(prefix string, i int) string {
	return fmt.Sprintf("# %s %d\n\nBody of %s %d.\n", prefix, i, prefix, i)
}

func publishFake(l *fakeLog, prefix string, n int) {
	for i := range n {
		l.publish(doc(prefix, i), agora.LogAttestation{})
	}
}

// hashTile reports whether r asks for a hash tile (what a consistency
// proof reads).
func hashTile(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/log/tile/") && !strings.Contains(r.URL.Path, "/data/")
}

// TestTransientFailuresDuringConsistencyAreNotForks: a 503, a reset
// connection or a truncated tile while the follower proves the new
// checkpoint consistent with the stored one is an error: the follower
// is not stopped, nothing is stored as a fork, and once the upstream
// answers it catches up.
func TestTransientFailuresDuringConsistencyAreNotForks(t *testing.T) {
	faults := map[string]func(w http.ResponseWriter, r *http.Request){
		"503": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		},
		"reset": func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		},
		"truncated": func(w http.ResponseWriter, r *http.Request) {
			t, err := tlog.ParseTilePath(strings.TrimPrefix(r.URL.Path, "/log/"))
			if err != nil {
				return
			}
			w.Write(make([]byte, t.W*tlog.HashSize/2))
		},
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			up := newFakeLog(t, "transient.example", "")
			here := security.Start(t, security.Options{})
			publishFake(up, "First", 5)
			f := followFake(t, up.URL, here, nil)
			stepUntilCaughtUp(t, f, up)
			publishFake(up, "Later", 300)

			up.setHook(func(w http.ResponseWriter, r *http.Request) bool {
				if hashTile(r) {
					fault(w, r)
					return true
				}
				return false
			})
			err := f.Step(ctx(t))
			var fork *follow.ForkError
			if err == nil || errors.As(err, &fork) || errors.Is(err, agora.ErrLogFork) {
				t.Fatalf("Step with a %s tile: %v, want an error that is not a fork", name, err)
			}
			st, serr := here.Store.FollowState(ctx(t), up.URL)
			if serr != nil || st.Forked || st.Evidence != "" || st.Applied != 5 {
				t.Fatalf("state after a %s tile: %+v %v", name, st, serr)
			}

			// Run retries with backoff; the fault ends after three tries.
			run, stop := context.WithCancel(ctx(t))
			defer stop()
			s := &sleeper{stop: stop}
			s.onNap = func(n int) {
				if n == 3 {
					up.setHook(nil)
				}
				if f.Status().Applied == 305 || n > 100 {
					stop()
				}
			}
			f = followFake(t, up.URL, here, s)
			up.setHook(func(w http.ResponseWriter, r *http.Request) bool {
				if hashTile(r) {
					fault(w, r)
					return true
				}
				return false
			})
			f.Run(run)
			if got := f.Status(); got.Applied != 305 || got.Forked || got.Errors < 3 || got.LastError == "" {
				t.Fatalf("after the fault ended: %+v, want 305 applied, not forked, the errors counted", got)
			}
			// The retries back off, doubling within the cap.
			s.mu.Lock()
			defer s.mu.Unlock()
			if p := s.pauses; len(p) < 3 || p[1] <= p[0] || p[2] <= p[1] || p[2] > 80*time.Millisecond {
				t.Fatalf("pauses between retries %v: want doubling within the 80 ms cap", p)
			}
		})
	}
}

// forkedPair starts an honest log and, under the same key, another
// history; both begin with the same common records, then differ.
func forkedPair(t *testing.T, common, honest, forked int) (*fakeLog, *fakeLog) {
	skey := generateKey(t, "forked.example")
	a := newFakeLog(t, "forked.example", skey)
	b := newFakeLog(t, "forked.example", skey)
	publishFake(a, "Common", common)
	publishFake(b, "Common", common)
	publishFake(a, "Honest", honest)
	publishFake(b, "Forked", forked)
	return a, b
}

// switchTo makes the fake at from answer as to does (the same URL, so the
// follower sees one upstream change its history).
func switchTo(from, to *fakeLog) {
	from.setHook(func(w http.ResponseWriter, r *http.Request) bool { to.serve(w, r); return true })
}

func protocolDigest(doc string) protocol.Digest { return protocol.Digest(sha1.Sum([]byte(doc))) }

// checkEvidence checks that stored evidence proves the fork on its own:
// both notes verify with the upstream's key, and either their sizes are
// equal with different roots, or the proof leads to the newer root and
// not to the older.
func checkEvidence(t *testing.T, vkey string, ev follow.Evidence) {
	t.Helper()
	v, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	older, err := agora.OpenLogCheckpoint([]byte(ev.Older), v)
	if err != nil {
		t.Fatalf("the older checkpoint of the evidence does not verify: %v", err)
	}
	newer, err := agora.OpenLogCheckpoint([]byte(ev.Newer), v)
	if err != nil {
		t.Fatalf("the newer checkpoint of the evidence does not verify: %v", err)
	}
	if older.N != ev.OlderSize || newer.N != ev.NewerSize || ev.Reason == "" {
		t.Fatalf("evidence sizes %d %d, checkpoints %d %d, reason %q", ev.OlderSize, ev.NewerSize, older.N, newer.N, ev.Reason)
	}
	if older.N == newer.N {
		if older.Hash == newer.Hash {
			t.Fatal("the evidence holds two equal checkpoints")
		}
		return
	}
	var p tlog.TreeProof
	for _, s := range ev.Proof {
		h, err := tlog.ParseHash(s)
		if err != nil {
			t.Fatal(err)
		}
		p = append(p, h)
	}
	if len(p) == 0 || tlog.CheckTree(p, newer.N, newer.Hash, older.N, older.Hash) == nil {
		t.Fatalf("the evidence's proof (%d hashes) does not show the fork", len(p))
	}
}

// TestForkStopsWithEvidence: two checkpoints of the same size with
// different roots, signed by the upstream's key, stop the follower with
// both notes stored; nothing of the other history is stored.
func TestForkStopsWithEvidence(t *testing.T) {
	honest, forked := forkedPair(t, 2, 3, 3)
	here := security.Start(t, security.Options{})
	f := followFake(t, honest.URL, here, nil)
	stepUntilCaughtUp(t, f, honest)
	switchTo(honest, forked)
	err := f.Step(ctx(t))
	var fork *follow.ForkError
	if !errors.As(err, &fork) || !errors.Is(err, agora.ErrLogFork) {
		t.Fatalf("Step against another history of the same size: %v, want a ForkError", err)
	}
	checkEvidence(t, honest.key.VerifierKey, fork.Evidence)
	st, err := here.Store.FollowState(ctx(t), honest.URL)
	if err != nil || !st.Forked || st.Applied != 5 {
		t.Fatalf("state after the fork: %+v %v", st, err)
	}
	stored, err := follow.ParseEvidence(st.Evidence)
	if err != nil {
		t.Fatal(err)
	}
	checkEvidence(t, honest.key.VerifierKey, stored)
	if s := f.Status(); !s.Forked || s.Evidence == nil {
		t.Fatalf("status after the fork: %+v", s)
	}
	for i := range 3 {
		if _, err := here.Svc.Stored(ctx(t), protocolDigest(doc("Forked", i))); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a document of the other history was stored: %v", err)
		}
	}
}

// TestForkRememberedAcrossRestart: a new follower on the same store (a
// restart) is stopped by the stored fork without asking the upstream,
// reports the evidence and a true lag, and Run resumes only once the
// fork is cleared as `registry follow reset --yes` clears it.
func TestForkRememberedAcrossRestart(t *testing.T) {
	honest, forked := forkedPair(t, 1, 4, 9)
	here := security.Start(t, security.Options{})
	f := followFake(t, honest.URL, here, nil)
	stepUntilCaughtUp(t, f, honest)
	switchTo(honest, forked)
	if err := f.Step(ctx(t)); !errors.Is(err, agora.ErrLogFork) {
		t.Fatalf("Step against a forked history: %v", err)
	}

	restarted := followFake(t, honest.URL, here, nil)
	before := honest.requests.Load()
	err := restarted.Step(ctx(t))
	var fork *follow.ForkError
	if !errors.As(err, &fork) {
		t.Fatalf("a restarted follower resumed a forked upstream: %v", err)
	}
	checkEvidence(t, honest.key.VerifierKey, fork.Evidence)
	if honest.requests.Load() != before {
		t.Fatal("a stopped follower asked the upstream")
	}
	if s := restarted.Status(); !s.Forked || s.Lag != 10-5 || s.Applied != 5 {
		t.Fatalf("status of a restarted stopped follower: %+v, want forked with lag 5", s)
	}

	// Run stays stopped, rereading its state, until the fork is cleared.
	run, stop := context.WithCancel(ctx(t))
	defer stop()
	s := &sleeper{stop: stop}
	s.onNap = func(n int) {
		if n == 3 {
			st, err := here.Store.FollowState(ctx(t), honest.URL)
			if err != nil || !restarted.Status().Forked {
				t.Errorf("stopped follower: %+v %v", restarted.Status(), err)
			}
			st.Forked, st.Evidence, st.Checkpoint, st.Applied = false, "", []byte{}, 0
			if err := here.Store.SaveFollowState(ctx(t), st); err != nil {
				t.Error(err)
			}
		}
		if restarted.Status().Applied == 10 || n > 100 {
			stop()
		}
	}
	restarted = followFake(t, honest.URL, here, s)
	restarted.Run(run)
	if got := restarted.Status(); got.Forked || got.Applied != 10 {
		t.Fatalf("after the reset: %+v, want the new history followed", got)
	}
	for i := range 9 {
		if _, err := here.Svc.Stored(ctx(t), protocolDigest(doc("Forked", i))); err != nil {
			t.Fatalf("document %d of the history followed after the reset: %v", i, err)
		}
	}
}

// TestConsistencyProvedFromEverySmallSize: a follower that has seen a
// tree of size 1, 2, 3 or 4 catches a larger tree under the same key
// that does not extend it.
func TestConsistencyProvedFromEverySmallSize(t *testing.T) {
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			skey := generateKey(t, "small.example")
			honest := newFakeLog(t, "small.example", skey)
			forked := newFakeLog(t, "small.example", skey)
			publishFake(honest, "Honest", n)
			publishFake(forked, "Forked", n+2)
			here := security.Start(t, security.Options{})
			f := followFake(t, honest.URL, here, nil)
			stepUntilCaughtUp(t, f, honest)
			switchTo(honest, forked)
			err := f.Step(ctx(t))
			var fork *follow.ForkError
			if !errors.As(err, &fork) {
				t.Fatalf("from size %d to another history of size %d: %v, want a fork", n, n+2, err)
			}
			checkEvidence(t, honest.key.VerifierKey, fork.Evidence)
		})
	}
}

// TestRecordsNotInTheTreeAreRefused: a data tile that answers another
// document's record, or more records than the tree holds, is an error
// (not a fork); nothing of the page is applied, and the honest tile
// next time is.
func TestRecordsNotInTheTreeAreRefused(t *testing.T) {
	for name, tamper := range map[string]func(data []byte, other []byte) []byte{
		"another record": func(data, other []byte) []byte {
			recs := strings.SplitAfter(string(data), "\n\n")
			recs[1] = string(other)
			return []byte(strings.Join(recs, ""))
		},
		"past the tree": func(data, other []byte) []byte { return append(data, other...) },
	} {
		t.Run(name, func(t *testing.T) {
			up := newFakeLog(t, "tiles.example", "")
			publishFake(up, "Doc", 3)
			elsewhere := newFakeLog(t, "tiles.example", "")
			other := elsewhere.publish(doc("Other", 0), agora.LogAttestation{})
			otherText := append(append([]byte{}, elsewhere.records[0]...), '\n')
			here := security.Start(t, security.Options{})
			up.setHook(func(w http.ResponseWriter, r *http.Request) bool {
				if !strings.Contains(r.URL.Path, "/data/") {
					return false
				}
				rec := httptest.NewRecorder()
				up.setHook(nil) // tampers once
				up.serve(rec, r)
				w.Write(tamper(rec.Body.Bytes(), otherText))
				return true
			})
			f := followFake(t, up.URL, here, nil)
			err := f.Step(ctx(t))
			if err == nil || errors.Is(err, agora.ErrLogFork) {
				t.Fatalf("Step with a tampered data tile: %v, want an error that is not a fork", err)
			}
			if _, err := here.Svc.Stored(ctx(t), other); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the other document was stored: %v", err)
			}
			if st, _ := here.Store.FollowState(ctx(t), up.URL); st.Applied != 0 || st.Forked {
				t.Fatalf("state after a tampered tile: %+v", st)
			}
			stepUntilCaughtUp(t, f, up) // the hook answered once: the honest tile now
		})
	}
}

// TestLyingFeedIsPaced: an upstream whose change feed always announces
// records its checkpoint does not show is asked a bounded number of
// times per pause, and the pauses grow; the run ends after a number of
// pauses, not after a time.
func TestLyingFeedIsPaced(t *testing.T) {
	up := newFakeLog(t, "liar.example", "")
	publishFake(up, "Doc", 2)
	up.claim = func(n int64) int64 { return n + 100 }
	here := security.Start(t, security.Options{})
	const pauses = 8
	run, stop := context.WithCancel(ctx(t))
	defer stop()
	s := &sleeper{stop: stop, max: pauses}
	f := followFake(t, up.URL, here, s)
	up.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if up.requests.Load() > 200 { // a follower polling in a loop
			stop()
		}
		return false
	})
	f.Run(run)
	n := up.requests.Load()
	if s.count() < pauses || n > int64(4*pauses+10) {
		t.Fatalf("%d requests for %d pauses: the lying feed is not paced", n, s.count())
	}
	// The pauses grow to the cap.
	s.mu.Lock()
	defer s.mu.Unlock()
	if last := s.pauses[len(s.pauses)-1]; last < 4*s.pauses[0] {
		t.Fatalf("pauses %v do not grow", s.pauses)
	}
	if f.Status().Errors == 0 || f.Status().LastError == "" {
		t.Fatalf("the lying feed is not reported: %+v", f.Status())
	}
}
