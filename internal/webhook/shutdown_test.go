package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/webhook"
)

// TestShutdownMidDeliveryHandsWebhooksBack: a round cut short by shutdown
// saves with a context of its own, so the next process may deliver at once
// (no lease left to run out), and the cut post is not counted as a failure.
func TestShutdownMidDeliveryHandsWebhooksBack(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			reached, release := make(chan struct{}, 1), make(chan struct{})
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case reached <- struct{}{}:
				default:
				}
				select { // answers only once the sender gave up
				case <-r.Context().Done():
				case <-release:
				}
			}))
			t.Cleanup(hook.Close)
			t.Cleanup(func() { close(release) })
			for range 2 { // the second is claimed in the same round, never reached
				if _, err := srv.Store.CreateWebhook(ctx(t), hook.URL, "a secret of some length", []string{"publish"}, 0); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := srv.Svc.Publish(ctx(t), []byte("# Hooked\n\nx\n"), nil, ""); err != nil {
				t.Fatal(err)
			}
			if err := srv.Log.Integrate(ctx(t)); err != nil {
				t.Fatal(err)
			}

			run, stop := context.WithCancel(ctx(t))
			done := make(chan error, 1)
			d := webhook.New(srv.Store, guarded(t, "127.0.0.1"), srv.URL, nil, webhook.Timing{})
			go func() { done <- d.Deliver(run) }()
			select {
			case <-reached:
			case err := <-done:
				t.Fatalf("the round ended before posting: %v", err)
			case <-time.After(20 * time.Second):
				t.Fatal("the receiver was never reached")
			}
			stop()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("an interrupted round returned %v", err)
			}

			// A restarted process may claim both straight away.
			ws, err := srv.Store.ClaimWebhooks(ctx(t), time.Now(), time.Minute)
			if err != nil || len(ws) != 2 {
				t.Fatalf("after shutdown %d webhooks were claimable (%v), want 2: the lease was left to run out", len(ws), err)
			}
			for _, w := range ws {
				if w.Delivered != 0 || w.Attempts != 0 || w.FailingSince != nil {
					t.Fatalf("an interrupted post counted: %+v", w)
				}
			}
		})
	}
}
