package follow_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/follow"
	"github.com/agora-registry/registry/internal/testing/security"
)

// TestFollowersReportErrorsLagAndQuarantine: while an upstream fails the
// follower keeps the true lag and counts the errors, and GET
// /api/v1/followers and /metrics show them with the quarantined
// documents.
func TestFollowersReportErrorsLagAndQuarantine(t *testing.T) {
	up := newFakeLog(t, "status.example", "")
	here := security.Start(t, security.Options{})
	bad := up.publish(doc("Bad", 0), agora.LogAttestation{})
	up.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/protocol/"+bad.Hex() {
			w.Write([]byte("# Not it\n"))
			return true
		}
		return false
	})
	f := followFake(t, up.URL, here, nil)
	stepUntilCaughtUp(t, f, up)
	publishFake(up, "Later", 4)
	up.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if strings.Contains(r.URL.Path, "/data/") {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	run, stop := context.WithCancel(ctx(t))
	defer stop()
	s := &sleeper{stop: stop, max: 3}
	f = followFake(t, up.URL, here, s)
	f.Run(run)
	st := f.Status()
	if st.Lag != 4 || st.Size != 5 || st.Applied != 1 || st.Errors != 3 || st.Failing != 3 || !strings.Contains(st.LastError, "503") || st.LastErrorAt == nil || st.Quarantined != 1 {
		t.Fatalf("status of a stalled follower: %+v", st)
	}

	srv := httptest.NewServer(api.New(here.Svc, api.Config{Logger: slog.New(slog.DiscardHandler)}, api.WithFollowers([]*follow.Follower{f})).Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL + "/api/v1/followers")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Followers []follow.Report `json:"followers"`
	}
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil || res.StatusCode != 200 {
		t.Fatalf("GET /api/v1/followers: %d %v", res.StatusCode, err)
	}
	res.Body.Close()
	if len(got.Followers) != 1 {
		t.Fatalf("followers %+v", got)
	}
	r := got.Followers[0]
	if r.Upstream != up.URL || r.Lag != 4 || r.Errors != 3 || r.LastError == "" || r.Quarantined != 1 ||
		len(r.QuarantinedDocs) != 1 || r.QuarantinedDocs[0].Hash != bad.Hex() || r.QuarantinedDocs[0].Record != 0 || r.Forked {
		t.Fatalf("GET /api/v1/followers = %+v", r)
	}
	res, err = http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	label := fmt.Sprintf(`{upstream=%q}`, up.URL)
	for _, want := range []string{
		"registry_follow_lag_records" + label + " 4",
		"registry_follow_errors_total" + label + " 3",
		"registry_follow_consecutive_errors" + label + " 3",
		"registry_follow_quarantined_documents" + label + " 1",
		"registry_follow_forked" + label + " 0",
	} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
