package follow_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/client"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/testing/security"
)

// instantWaits is an upstream whose change feed answers every long poll at
// once with nothing new: a hostile upstream, or one whose poll slots are
// full.
type instantWaits struct {
	*client.Client
	polls atomic.Int64
}

func (u *instantWaits) WaitChanges(ctx context.Context, after int64, _ time.Duration) (int64, error) {
	u.polls.Add(1)
	return after, ctx.Err()
}

// A caught-up follower whose upstream answers its long polls at once
// pauses between rounds instead of spinning on checkpoints and polls.
func TestCaughtUpFollowerDoesNotSpin(t *testing.T) {
	up := security.Start(t, security.Options{})
	here := security.Start(t, security.Options{})
	publish(t, up, "Upstream", 3)
	if err := up.Log.Integrate(ctx(t)); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(up.URL, &http.Client{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hostile := &instantWaits{Client: c}
	const pause = 100 * time.Millisecond
	f := follow.New(hostile, here.Svc, here.Store, nil, follow.Timing{Wait: time.Second, MinBackoff: pause, MaxBackoff: time.Second})
	run, stop := context.WithTimeout(ctx(t), 10*pause)
	defer stop()
	f.Run(run)
	if f.Status().Lag != 0 {
		t.Fatalf("the follower did not catch up: lag %d", f.Status().Lag)
	}
	// 10 pauses long: about 10 polls, never hundreds.
	if n := hostile.polls.Load(); n < 1 || n > 15 {
		t.Fatalf("%d long polls in %v with a pause of %v", n, 10*pause, pause)
	}
}
