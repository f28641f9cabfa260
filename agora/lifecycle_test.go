package agora

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

// lifecycleRegistry answers resolve requests from a table of answers by
// hex hash (unknown hashes not found), counting requests.
func lifecycleRegistry(t *testing.T, answers map[string]Resolution) (*Registry, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct{ Hashes []string }
		if r.URL.Path != "/api/v1/resolve" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		out := struct {
			Results []Resolution `json:"results"`
		}{Results: []Resolution{}}
		for _, h := range req.Hashes {
			a, ok := answers[h]
			if !ok {
				a = Resolution{Hash: h}
			}
			out.Results = append(out.Results, a)
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	reg, err := NewRegistry(srv.URL, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return reg, &calls
}

func TestCheckLifecycleReadsDeprecations(t *testing.T) {
	old, repl, active, unknown := Digest{1}, Digest{2}, Digest{3}, Digest{4}
	long := strings.Repeat("é", 5000) + "\xff"
	reg, calls := lifecycleRegistry(t, map[string]Resolution{
		old.Hex():    {Found: true, Title: "Old", Status: "deprecated", Message: "use the new one", Replacement: repl.Hex()},
		active.Hex(): {Found: true, Title: "Active", Status: "active", Message: "ignored", Replacement: repl.Hex()},
		repl.Hex():   {Found: true, Title: "Hostile", Status: "deprecated", Message: long, Replacement: "not a hash"},
	})
	got := CheckLifecycle(context.Background(), []*Registry{reg},
		[]Candidate{{Digest: old}, {Digest: active, Title: "Mine"}, {Digest: repl}, {Digest: unknown}})
	if calls.Load() != 1 {
		t.Fatalf("%d resolve requests for four candidates, want one", calls.Load())
	}
	if d := got[0].Deprecation; d == nil || d.Message != "use the new one" || d.Replacement == nil || *d.Replacement != repl ||
		d.Registry != reg.Origin() || got[0].Title != "Old" {
		t.Fatalf("deprecated candidate: %+v %+v", got[0], d)
	}
	if got[1].Deprecation != nil || got[1].Title != "Mine" {
		t.Fatalf("active candidate: %+v", got[1])
	}
	// A hostile registry's message is cut to the limit and made valid
	// UTF-8; a replacement that is no hash is no replacement.
	if d := got[2].Deprecation; d == nil || d.Replacement != nil || !utf8.ValidString(d.Message) ||
		utf8.RuneCountInString(d.Message) != maxDeprecationMessage+1 {
		t.Fatalf("hostile deprecation: %+v", d)
	}
	if got[3].Deprecation != nil || got[3].Title != "" {
		t.Fatalf("unknown candidate: %+v", got[3])
	}
}

func TestCheckLifecycleAsksInBatchesAndFallsThrough(t *testing.T) {
	first, firstCalls := lifecycleRegistry(t, map[string]Resolution{})
	target := Digest{0xee}
	second, _ := lifecycleRegistry(t, map[string]Resolution{target.Hex(): {Found: true, Status: "deprecated", Message: "second says"}})
	cs := make([]Candidate, 250)
	for i := range cs {
		cs[i] = Candidate{Digest: Digest{byte(i), byte(i >> 8), 7}}
	}
	cs[249].Digest = target
	got := CheckLifecycle(context.Background(), []*Registry{first, second}, cs)
	if firstCalls.Load() != 3 {
		t.Fatalf("%d requests for 250 candidates, want 3 of at most %d", firstCalls.Load(), lifecycleBatch)
	}
	if d := got[249].Deprecation; d == nil || d.Message != "second says" || d.Registry != second.Origin() {
		t.Fatalf("the second registry's answer: %+v", d)
	}
}

func TestPreferReplacements(t *testing.T) {
	old, repl, other, dropped := Digest{1}, Digest{2}, Digest{3}, Digest{4}
	dep := func(r Digest) *Deprecation { return &Deprecation{Message: "m", Replacement: &r} }
	wk := newWellKnownInfo()
	wk.Supported[repl] = nil
	wk.Supported[other] = nil
	wk.Unsupported[dropped] = true

	// Listed replacement: it takes the deprecated one's place and flag.
	got, subs := PreferReplacements(wk, []Candidate{{Digest: other}, {Digest: old, Implemented: true, Deprecation: dep(repl)}})
	if len(got) != 2 || got[1].Digest != repl || !got[1].Implemented || len(subs) != 1 ||
		subs[0] != (Substitution{Deprecated: old, Replacement: repl, Message: "m"}) {
		t.Fatalf("listed replacement: %+v %+v", got, subs)
	}
	if c, err := ChooseProtocol(wk, got, ""); err != nil || c.Candidate.Digest != repl {
		t.Fatalf("the replacement, listed and implemented, is not chosen: %+v %v", c, err)
	}
	// Already a candidate: the deprecated one goes, the replacement stays once.
	got, subs = PreferReplacements(wk, []Candidate{{Digest: old, Deprecation: dep(repl)}, {Digest: repl}})
	if len(got) != 1 || got[0].Digest != repl || len(subs) != 1 {
		t.Fatalf("replacement among the candidates: %+v %+v", got, subs)
	}
	// Not listed, or marked unsupported, or no replacement: unchanged.
	for _, c := range []Candidate{
		{Digest: old, Deprecation: dep(Digest{9})},
		{Digest: old, Deprecation: dep(dropped)},
		{Digest: old, Deprecation: &Deprecation{Message: "no replacement"}},
	} {
		got, subs = PreferReplacements(wk, []Candidate{c})
		if len(got) != 1 || got[0].Digest != old || len(subs) != 0 {
			t.Fatalf("%+v: %+v %+v", c.Deprecation, got, subs)
		}
	}
}

// The resolver logs a deprecation the registry reports and returns it.
func TestResolverReportsADeprecation(t *testing.T) {
	repl := Digest{2}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/resolve":
			json.NewEncoder(w).Encode(map[string]any{"results": []Resolution{{Hash: digest.Hex(), Found: true,
				Status: "deprecated", Message: "old", Replacement: repl.Hex(), Sources: []string{}}}})
		case "/protocol/" + digest.Hex():
			w.Write([]byte(doc))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	var logs strings.Builder
	r := newResolver(t, []string{"127.0.0.1"}, srv.URL)
	r.logger = slog.New(slog.NewTextHandler(&logs, nil))
	got, err := r.Resolve(context.Background(), digest, nil)
	if err != nil || got.Deprecation == nil || got.Deprecation.Message != "old" || *got.Deprecation.Replacement != repl {
		t.Fatalf("resolved %+v, %v", got, err)
	}
	if l := logs.String(); !strings.Contains(l, "protocol deprecated") || !strings.Contains(l, "replacement="+repl.Hex()) {
		t.Fatalf("log: %s", l)
	}
}
