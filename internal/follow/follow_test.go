package follow_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// proxy stands between follower and upstream: it can be pointed at
// another upstream, taken down, or made to tamper with tiles.
type proxy struct {
	target atomic.Value // string
	down   atomic.Bool
	URL    string
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{}
	p.target.Store(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		resp, err := http.Get(p.target.Load().(string) + r.URL.RequestURI())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func publish(t testing.TB, srv *security.Server, prefix string, n int) []protocol.Digest {
	t.Helper()
	out := make([]protocol.Digest, n)
	for i := range n {
		r, err := srv.Svc.Publish(ctx(t), fmt.Appendf(nil, "# %s %d\n\nBody %d.\n", prefix, i, i), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r.Entry.Digest
	}
	return out
}

func newFollower(t *testing.T, upstream string, local *security.Server) *follow.Follower {
	c, err := client.New(upstream, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return follow.New(c, local.Svc, local.Store, nil, follow.Timing{Wait: 100 * time.Millisecond, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
}

// catchUp steps until the follower has applied everything, or fails.
func catchUp(t *testing.T, f *follow.Follower, up *security.Server) {
	t.Helper()
	if err := up.Log.Integrate(ctx(t)); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if err := f.Step(ctx(t)); err != nil {
			t.Fatalf("Step: %v", err)
		}
		if f.Status().Lag == 0 {
			if err := f.Step(ctx(t)); err != nil { // one more: a checkpoint seen with nothing to apply
				t.Fatalf("Step: %v", err)
			}
			if f.Status().Lag == 0 {
				return
			}
		}
	}
	t.Fatalf("the follower did not catch up: lag %d", f.Status().Lag)
}

func TestFollowerConverges(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			up := security.Start(t, security.Options{})
			here := security.Start(t, security.Options{Engine: engine})
			p := newProxy(t, up.URL)

			// A document published here first, then upstream too: it is
			// not re-imported, and the upstream's withdrawal leaves it.
			own := []byte("# Ours\n\nPublished here first.\n")
			if _, err := here.Svc.Publish(ctx(t), own, nil, ""); err != nil {
				t.Fatal(err)
			}
			shared, err := up.Svc.Publish(ctx(t), own, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			ds := publish(t, up, "Upstream", 300) // past one data tile
			for _, d := range []protocol.Digest{ds[3], ds[299], shared.Entry.Digest} {
				if err := up.Svc.Withdraw(ctx(t), entity.Token{Name: "test"}, d, "spam"); err != nil {
					t.Fatal(err)
				}
			}
			f := newFollower(t, p.URL, here)
			catchUp(t, f, up)

			// The upstream goes down and comes back; the follower backs off
			// and resumes, and a fresh follower (a restart) resumes from the
			// stored cursor.
			p.down.Store(true)
			if err := f.Step(ctx(t)); err == nil {
				t.Fatal("a Step against a down upstream succeeded")
			}
			p.down.Store(false)
			more := publish(t, up, "Later", 20)
			if err := up.Svc.Withdraw(ctx(t), entity.Token{Name: "test"}, ds[10], "later"); err != nil {
				t.Fatal(err)
			}
			f = newFollower(t, p.URL, here)
			catchUp(t, f, up)

			for i, d := range append(ds, more...) {
				e, err := here.Svc.Stored(ctx(t), d)
				if d == ds[3] || d == ds[299] { // withdrawn before the follower read them: the bytes are gone
					if !errors.Is(err, store.ErrNotFound) {
						t.Fatalf("document %d, withdrawn upstream before it was followed: %+v %v", i, e, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("document %d not replicated: %v", i, err)
				}
				withdrawn := d == ds[10]
				if e.Origin != p.URL || e.Withdrawn() != withdrawn {
					t.Fatalf("document %d: origin %q withdrawn %v, want %q %v", i, e.Origin, e.Withdrawn(), p.URL, withdrawn)
				}
			}
			e, err := here.Svc.Stored(ctx(t), shared.Entry.Digest)
			if err != nil || e.Withdrawn() || e.Origin != "" {
				t.Fatalf("our own document: %+v %v (the upstream's withdrawal must not reach it)", e, err)
			}
			st, err := here.Store.FollowState(ctx(t), p.URL)
			if err != nil || st.Applied != 325 || st.Forked {
				t.Fatalf("follow state %+v %v, want 325 records applied", st, err)
			}
		})
	}
}

func TestFollowerStopsAtAFork(t *testing.T) {
	skey, err := translog.GenerateKey("forked.example")
	if err != nil {
		t.Fatal(err)
	}
	honest := security.Start(t, security.Options{LogKey: skey})
	forked := security.Start(t, security.Options{LogKey: skey})
	here := security.Start(t, security.Options{})
	publish(t, honest, "Honest", 5)
	publish(t, forked, "Forked", 8)
	p := newProxy(t, honest.URL)
	f := newFollower(t, p.URL, here)
	catchUp(t, f, honest)

	p.target.Store(forked.URL) // the same name and key, another history
	if err := forked.Log.Integrate(ctx(t)); err != nil {
		t.Fatal(err)
	}
	err = f.Step(ctx(t))
	if !errors.Is(err, agora.ErrLogFork) {
		t.Fatalf("Step against a forked log: %v, want ErrFork", err)
	}
	// Nothing of the fork was stored, and the upstream stays stopped.
	for _, d := range publish(t, forked, "Forked", 8) {
		if _, err := here.Svc.Stored(ctx(t), d); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a document of the forked log was stored: %v", err)
		}
	}
	st, err := here.Store.FollowState(ctx(t), p.URL)
	if err != nil || !st.Forked || st.Applied != 5 {
		t.Fatalf("follow state after the fork: %+v %v", st, err)
	}
	if err := newFollower(t, p.URL, here).Step(ctx(t)); !errors.Is(err, agora.ErrLogFork) {
		t.Fatalf("a restarted follower resumed a forked upstream: %v", err)
	}
	// Run stays stopped: it only rereads its state, pausing each time.
	run, stop := context.WithCancel(ctx(t))
	defer stop()
	s := &sleeper{stop: stop, max: 3}
	f = followFake(t, p.URL, here, s)
	f.Run(run)
	if st := f.Status(); !st.Forked || st.Applied != 5 {
		t.Fatalf("a stopped follower's status after Run: %+v", st)
	}
}

// TestFollowerSkipsWhatThisRegistryRefuses: a document over this
// registry's size limit is left out, and the records after it still come.
func TestFollowerSkipsWhatThisRegistryRefuses(t *testing.T) {
	up := security.Start(t, security.Options{})
	here := security.Start(t, security.Options{MaxDocumentBytes: 4096})
	big, err := up.Svc.Publish(ctx(t), []byte("# Big\n\n"+strings.Repeat("word ", 2000)+"\n"), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	small := publish(t, up, "Small", 1)
	f := newFollower(t, up.URL, here)
	catchUp(t, f, up)
	if _, err := here.Svc.Stored(ctx(t), big.Entry.Digest); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the oversized document: %v", err)
	}
	if _, err := here.Svc.Stored(ctx(t), small[0]); err != nil {
		t.Fatalf("the document after it: %v", err)
	}
}
