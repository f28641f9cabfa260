package translog_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/agora-registry/registry/agora"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/testing/security"
	"github.com/agora-registry/registry/internal/translog"
)

func changes(t *testing.T, base, query string) translog.Changes {
	t.Helper()
	status, _, body := get(t, base+"/api/v1/changes?"+query)
	var c translog.Changes
	if status != http.StatusOK || json.Unmarshal(body, &c) != nil {
		t.Fatalf("changes?%s: %d %s", query, status, body)
	}
	return c
}

func TestChangeFeed(t *testing.T) {
	for _, engine := range security.Engines {
		t.Run(engine, func(t *testing.T) {
			srv := security.Start(t, security.Options{Engine: engine})
			ds := publish(t, srv, "Fed", 5)
			if err := srv.Svc.Withdraw(ctx(t), entity.Token{Name: "test"}, ds[1], "dup"); err != nil {
				t.Fatal(err)
			}
			integrate(t, srv)
			var got []translog.Change
			next := int64(0)
			for range 10 {
				c := changes(t, srv.URL, fmt.Sprintf("after=%d&limit=2", next))
				if len(c.Changes) == 0 {
					break
				}
				if len(c.Changes) > 2 || c.Next != next+int64(len(c.Changes)) || c.TreeSize != 6 {
					t.Fatalf("page after %d: %+v", next, c)
				}
				got, next = append(got, c.Changes...), c.Next
			}
			if len(got) != 6 {
				t.Fatalf("the feed gave %d changes, want 6", len(got))
			}
			for i, c := range got {
				if c.Index != int64(i) {
					t.Fatalf("change %d has index %d", i, c.Index)
				}
			}
			w := got[5]
			if w.Event != "withdraw" || w.Hex != ds[1].Hex() || w.Base64 != ds[1].Base64() || w.Status != "withdrawn" || w.Reason != "dup" || w.Time.IsZero() {
				t.Fatalf("withdrawal change: %+v", w)
			}
			if c := changes(t, srv.URL, "after=100"); len(c.Changes) != 0 || c.Next != 100 {
				t.Fatalf("after the end: %+v", c)
			}

			// A long poll answers with the next change.
			polled := make(chan translog.Changes, 1)
			go func() {
				status, _, body := get(t, srv.URL+"/api/v1/changes?after=6&wait=20s")
				var c translog.Changes
				if status != http.StatusOK || json.Unmarshal(body, &c) != nil {
					c.Next = -1
				}
				polled <- c
			}()
			more := publish(t, srv, "Awaited", 1)
			if c := <-polled; len(c.Changes) != 1 || c.Changes[0].Hex != more[0].Hex() || c.Next != 7 {
				t.Fatalf("long poll answered %+v, want the published document", c)
			}

			for _, q := range []string{"after=-1", "after=x", "limit=0", "limit=1001", "wait=31s", "wait=-1s", "wait=soon"} {
				status, _, body := get(t, srv.URL+"/api/v1/changes?"+q)
				var p struct{ Code string }
				if status != http.StatusBadRequest || json.Unmarshal(body, &p) != nil || p.Code != "invalid_request" {
					t.Fatalf("changes?%s: %d %s", q, status, body)
				}
			}
		})
	}
}

func TestWellKnown(t *testing.T) {
	srv := security.Start(t, security.Options{})
	status, h, body := get(t, srv.URL+"/.well-known/agora")
	var w struct {
		Name, APIBase, RawURLTemplate, Changes string
		HashSpellings                          []string
		Log                                    struct{ Origin, VerifierKey, Checkpoint, Tiles, Lookup, Record string }
	}
	if status != http.StatusOK || h.Get("Content-Type") != "application/json" || json.Unmarshal(body, &w) != nil {
		t.Fatalf("well-known: %d %s", status, body)
	}
	if w.APIBase != srv.URL+"/api/v1" || w.RawURLTemplate != srv.URL+"/protocol/{hash}" || w.Changes != srv.URL+"/api/v1/changes" ||
		len(w.HashSpellings) != 2 || w.Log.VerifierKey != srv.Log.VerifierKey() || w.Log.Origin != srv.Log.Origin() ||
		w.Log.Checkpoint != srv.URL+"/log/checkpoint" || w.Log.Lookup != srv.URL+"/log/lookup/{hash}" {
		t.Fatalf("well-known: %s", body)
	}
	// The key announced verifies the checkpoint served.
	v, err := agora.NewLogVerifier(httpClient(t, srv.URL), w.Log.VerifierKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := v.Latest(ctx(t)); err != nil {
		t.Fatal(err)
	}
}
