package webhook_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/webhook"
)

// stepClock is the dispatcher's clock; a slow receiver moves it.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestSlowReceiverDoesNotHoldTheRound: a receiver that answers 2xx but
// slowly (20 s a post, under the timeout) gets its share of the lease per
// round, not all its records, so the webhooks after it are served in the
// same round and the pass stays within the lease; it gets the rest, in
// order, in the next rounds.
func TestSlowReceiverDoesNotHoldTheRound(t *testing.T) {
	srv := security.Start(t, security.Options{})
	clock := &stepClock{now: time.Now().Add(time.Minute)} // past the webhooks' creation: due
	slow, fast := &receiver{}, &receiver{}
	slowSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		clock.add(20 * time.Second)
		slow.ServeHTTP(w, r)
	}))
	t.Cleanup(slowSrv.Close)
	fastSrv := httptest.NewServer(fast)
	t.Cleanup(fastSrv.Close)
	for _, u := range []string{slowSrv.URL, fastSrv.URL} { // the slow one first: webhooks are served by id
		if _, err := srv.Store.CreateWebhook(ctx(t), u, "a secret of some length", []string{"publish"}, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, text := range []string{"# A\n", "# B\n", "# C\n", "# D\n", "# E\n"} {
		if _, err := srv.Svc.Publish(ctx(t), []byte(text), nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Log.Integrate(ctx(t)); err != nil {
		t.Fatal(err)
	}
	d := webhook.New(srv.Store, guarded(t, "127.0.0.1"), srv.URL, nil, webhook.Timing{Lease: time.Minute})
	d.Now = clock.Now
	if err := d.Deliver(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if n, m := len(slow.bodies), len(fast.bodies); n != 1 || m != 5 {
		t.Fatalf("one round: the slow receiver got %d records (want 1: 20 s is past its 15 s share), the fast one %d (want 5)", n, m)
	}
	for range 4 {
		clock.add(time.Second)
		if err := d.Deliver(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := srv.Store.ListWebhooks(ctx(t))
	if err != nil || len(slow.bodies) != 5 || ws[0].Delivered != 5 || ws[1].Delivered != 5 {
		t.Fatalf("after 5 rounds the slow receiver got %d records; webhooks %+v %v", len(slow.bodies), ws, err)
	}
}
