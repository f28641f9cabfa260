package registry

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora"
	"github.com/agora-registry/registry/agora/agoratest"
)

// model is the registry's client of a scripted OpenAI-compatible server.
func model(l *agoratest.LLM) *agora.LLM {
	return &agora.LLM{BaseURL: l.BaseURL(), Model: "scripted", MaxResponse: MaxRerankAnswerBytes}
}

func names(ms []Match, names map[string]string) []string {
	var out []string
	for _, m := range ms {
		out = append(out, names[m.Entry.Digest.Hex()])
	}
	return out
}

var numbered = regexp.MustCompile(`(?m)^(\d+)\. `)

// The model's order of the top candidates wins; it sees only the top ones
// (and the task), may lift one from below the limit, and marks what it
// placed; the rest keep the deterministic order (agents, fields, newer,
// adoption, description, ...).
func TestMatchRerankFollowsTheModel(t *testing.T) {
	var prompts []string
	var mu sync.Mutex
	llm := agoratest.NewTextLLM(t, func(msgs []agoratest.Message) string {
		mu.Lock()
		prompts = append(prompts, agoratest.LastUser(msgs))
		mu.Unlock()
		return "The best are these: [3, 2, 3, 99, 0]."
	})
	svc, ids := matchCorpusWith(t, MatchLLM{Model: model(llm), Top: 3})
	for limit, want := range map[int][]string{
		5: {"newer", "fields", "agents", "adoption", "description"},
		2: {"newer", "fields"},
	} {
		req := matchTask
		req.Limit = limit
		res, err := svc.MatchRanked(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(res.Items, ids); res.RankedBy != RankedByLLM || !slices.Equal(got, want) {
			t.Fatalf("limit %d, ranked by %s: %v, want %v", limit, res.RankedBy, got, want)
		}
		if !slices.ContainsFunc(res.Items[0].Reasons, func(r Reason) bool { return r.Kind == "llm" }) ||
			limit == 5 && slices.ContainsFunc(res.Items[2].Reasons, func(r Reason) bool { return r.Kind == "llm" }) {
			t.Fatalf("llm reasons: %+v", res.Items)
		}
	}
	if len(prompts) != 1 {
		t.Fatalf("%d completions for two matches of the same task and candidates", len(prompts))
	}
	p := prompts[0]
	if n := len(numbered.FindAllString(p, -1)); n != 3 || !strings.Contains(p, "I want a weather forecast") || !strings.Contains(p, "city, units") ||
		!strings.Contains(p, "Archive") || strings.Contains(p, "Weather Feed") {
		t.Fatalf("the prompt lists %d protocols:\n%s", n, p)
	}
}

// Whatever goes wrong with the model, the answer is the deterministic one.
func TestMatchRerankFailuresKeepTheDeterministicOrder(t *testing.T) {
	plain, ids := matchCorpus(t)
	want, err := plain.Match(context.Background(), matchTask)
	if err != nil {
		t.Fatal(err)
	}
	for name, script := range map[string]agoratest.Script{
		"500": func(w http.ResponseWriter, _ *http.Request, _ []agoratest.Message) {
			http.Error(w, "overloaded", http.StatusInternalServerError)
		},
		"no numbers": func(w http.ResponseWriter, _ *http.Request, _ []agoratest.Message) {
			agoratest.Reply(w, "They all look fine.")
		},
		"out of range": func(w http.ResponseWriter, _ *http.Request, _ []agoratest.Message) {
			agoratest.Reply(w, "[0, 11, -1, 2.5]")
		},
		"too slow": func(w http.ResponseWriter, r *http.Request, _ []agoratest.Message) {
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
			agoratest.Reply(w, "[7]")
		},
	} {
		t.Run(name, func(t *testing.T) {
			llm := agoratest.NewLLM(t, script)
			svc, _ := matchCorpusWith(t, MatchLLM{Model: model(llm), Timeout: 200 * time.Millisecond})
			res, err := svc.MatchRanked(context.Background(), matchTask)
			if err != nil {
				t.Fatal(err)
			}
			if res.RankedBy != RankedDeterministic || !slices.Equal(names(res.Items, ids), names(want, ids)) {
				t.Fatalf("ranked by %s: %v, want %v", res.RankedBy, names(res.Items, ids), names(want, ids))
			}
		})
	}
}

// When every re-rank slot is taken, a match does not wait for one and
// does not call the model.
func TestMatchRerankBusyAnswersDeterministically(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	llm := agoratest.NewLLM(t, func(w http.ResponseWriter, _ *http.Request, _ []agoratest.Message) {
		entered <- struct{}{}
		<-release
		agoratest.Reply(w, "[7]")
	})
	svc, ids := matchCorpusWith(t, MatchLLM{Model: model(llm), Concurrency: 1})
	first := make(chan MatchResult, 1)
	go func() {
		res, _ := svc.MatchRanked(context.Background(), matchTask)
		first <- res
	}()
	<-entered
	res, err := svc.MatchRanked(context.Background(), matchTask)
	close(release)
	if err != nil || res.RankedBy != RankedDeterministic || names(res.Items, ids)[0] != "agents" {
		t.Fatalf("while busy: %v, ranked by %s: %v", err, res.RankedBy, names(res.Items, ids))
	}
	if r := <-first; r.RankedBy != RankedByLLM || names(r.Items, ids)[0] != "heading" {
		t.Fatalf("the first: ranked by %s: %v", r.RankedBy, names(r.Items, ids))
	}
	if n := len(llm.Calls()); n != 1 {
		t.Fatalf("%d completions", n)
	}
}

func TestReadOrder(t *testing.T) {
	for reply, want := range map[string][]int{
		"[2, 2, 9, 1.5, 1]":      {1, 0},
		"see [x] and then [3,1]": {2, 0},
		"```json\n[1]\n```":      {0},
		"[" + strings.Repeat(" ", MaxRerankAnswerBytes) + "1]": nil,
		"none": nil,
		"[]":   nil,
	} {
		got, err := readOrder(reply, 3)
		if !slices.Equal(got, want) || (want == nil) != (err != nil) {
			t.Errorf("readOrder(%.20q) = %v, %v; want %v", reply, got, err, want)
		}
	}
}
