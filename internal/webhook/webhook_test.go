package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/webhook"
)

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// receiver records what it is sent; it fails the first `fail` posts.
type receiver struct {
	mu       sync.Mutex
	fail     int
	bodies   [][]byte
	headers  []http.Header
	attempts []http.Header // failed ones too
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.attempts = append(rc.attempts, r.Header.Clone())
	if rc.fail > 0 {
		rc.fail--
		http.Error(w, "not now", http.StatusInternalServerError)
		return
	}
	rc.bodies, rc.headers = append(rc.bodies, b), append(rc.headers, r.Header.Clone())
}

func guarded(t *testing.T, allow ...string) *http.Client {
	c, err := agora.NewHTTPClient(agora.FetchPolicy{Allow: allow, MaxRedirects: -1, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestWebhooksDeliverSignedEventsAndRetry(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			rc := &receiver{fail: 2}
			hook := httptest.NewServer(rc)
			t.Cleanup(hook.Close)
			const secret = "a secret of some length"
			w, err := srv.Store.CreateWebhook(ctx(t), hook.URL+"/hook", secret, []string{"publish", "withdraw"}, 0)
			if err != nil {
				t.Fatal(err)
			}
			var hexes []string
			for _, text := range []string{"# One\n\nx\n", "# Two\n\ny\n"} {
				r, err := srv.Svc.Publish(ctx(t), []byte(text), nil, "")
				if err != nil {
					t.Fatal(err)
				}
				hexes = append(hexes, r.Entry.Digest.Hex())
			}
			if err := srv.Svc.Withdraw(ctx(t), entity.Token{Name: "test"}, protocol.MustParseDigest(hexes[1]), "spam"); err != nil {
				t.Fatal(err)
			}
			if err := srv.Log.Integrate(ctx(t)); err != nil {
				t.Fatal(err)
			}

			// Loopback is refused unless allow-listed: the failure counts as
			// an attempt and nothing reaches the receiver.
			now := time.Now()
			clock := func() time.Time { return now }
			var logged bytes.Buffer
			blocked := webhook.New(srv.Store, guarded(t), srv.URL, slog.New(slog.NewTextHandler(&logged, nil)), webhook.Timing{})
			blocked.Now = clock
			if err := blocked.Deliver(ctx(t)); err != nil {
				t.Fatal(err)
			}
			if len(rc.bodies) != 0 || rc.fail != 2 {
				t.Fatalf("a loopback receiver was reached without the allow-list")
			}
			// The refusal names the registry's own option, not an agent's.
			if l := logged.String(); !strings.Contains(l, "--outbound-allow") || strings.Contains(l, "agent config") {
				t.Fatalf("the refusal of a loopback webhook says:\n%s", l)
			}
			// Each round fails once more, then a new dispatcher (a restart)
			// delivers everything, in order, once the backoff has passed.
			for i := range 3 {
				now = now.Add(time.Duration(i+1) * time.Hour)
				d := webhook.New(srv.Store, guarded(t, "127.0.0.1"), srv.URL, nil, webhook.Timing{})
				d.Now = clock
				if err := d.Deliver(ctx(t)); err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					// During the backoff a round sends nothing.
					if err := d.Deliver(ctx(t)); err != nil || rc.fail != 1 {
						t.Fatalf("a round during the backoff posted: fail=%d %v", rc.fail, err)
					}
				}
			}
			if len(rc.bodies) != 3 {
				t.Fatalf("the receiver got %d events, want 2 publishes and a withdrawal", len(rc.bodies))
			}
			for i, want := range []struct{ typ, hex string }{{"org.agora-registry.publish", hexes[0]}, {"org.agora-registry.publish", hexes[1]}, {"org.agora-registry.withdraw", hexes[1]}} {
				var ev webhook.Event
				if err := json.Unmarshal(rc.bodies[i], &ev); err != nil {
					t.Fatal(err)
				}
				h := rc.headers[i]
				if err := agora.VerifyWebhook(secret, h, rc.bodies[i], now, 0); err != nil || h.Get("Content-Type") != "application/cloudevents+json" ||
					h.Get("webhook-id") != webhook.MessageID(ev.ID) {
					t.Fatalf("event %d: %v, headers %v", i, err, h)
				}
				if ev.SpecVersion != "1.0" || ev.Type != want.typ || ev.Subject != want.hex || ev.Data.Hex != want.hex || ev.Data.Index != int64(i) ||
					ev.Source != srv.URL || !strings.HasSuffix(ev.ID, "/log/"+string(rune('0'+i))) {
					t.Fatalf("event %d: %s", i, rc.bodies[i])
				}
			}
			// A retry keeps its id (receivers drop duplicates by it) and is
			// signed at its own time, so it passes a receiver's five minutes.
			if len(rc.attempts) != 5 {
				t.Fatalf("%d attempts", len(rc.attempts))
			}
			first := rc.attempts[:3]
			if first[0].Get("webhook-id") != first[2].Get("webhook-id") || first[1].Get("webhook-id") != first[2].Get("webhook-id") ||
				first[0].Get("webhook-timestamp") == first[1].Get("webhook-timestamp") || first[1].Get("webhook-timestamp") == first[2].Get("webhook-timestamp") {
				t.Fatalf("the retries of one record: %v", first)
			}
			ws, err := srv.Store.ListWebhooks(ctx(t))
			if err != nil || len(ws) != 1 || ws[0].ID != w.ID || ws[0].Delivered != 3 || ws[0].Attempts != 0 {
				t.Fatalf("webhook after delivery: %+v %v", ws, err)
			}
		})
	}
}
