package registry

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agora-registry/registry/agora/agoratest"
)

// budgetCorpus is the match corpus re-ranked within the given budget, on
// a clock the test steps; the model always answers [2, 1].
func budgetCorpus(t *testing.T, llm MatchLLM) (*Service, *agoratest.LLM, *time.Time) {
	t.Helper()
	scripted := agoratest.NewTextLLM(t, func([]agoratest.Message) string { return "[2, 1]" })
	llm.Model = model(scripted)
	svc, _ := matchCorpusWith(t, llm)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	svc.rerankBudget.now = func() time.Time { return now }
	return svc, scripted, &now
}

// task is matchTask with a word that makes it a task of its own (no
// cache hit), the same candidates.
func task(client string, i int) MatchRequest {
	r := matchTask
	r.Task = fmt.Sprintf("%s %s%d", r.Task, "zq", i)
	r.Client = client
	return r
}

func rankedBy(t *testing.T, svc *Service, r MatchRequest) MatchResult {
	t.Helper()
	res, err := svc.MatchRanked(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if res.RankedBy == RankedByLLM && res.Skipped != "" || res.RankedBy == RankedDeterministic && res.Skipped == "" {
		t.Fatalf("ranked by %s, skipped %q", res.RankedBy, res.Skipped)
	}
	return res
}

// One client asking again and again causes at most its share of
// completions; the others still get theirs until the registry's total is
// spent; then every match is answered deterministically (never an error)
// and says why; a minute later the budget is back.
func TestMatchRerankBudget(t *testing.T) {
	svc, model, now := budgetCorpus(t, MatchLLM{PerMinute: 5, ClientPerMinute: 2})
	want, err := svc.Match(context.Background(), matchTask)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		res := rankedBy(t, svc, task("198.51.100.7", i))
		if i < 2 && res.RankedBy != RankedByLLM || i >= 2 && res.Skipped != SkipClientBudget {
			t.Fatalf("match %d of one client: ranked by %s, skipped %q", i, res.RankedBy, res.Skipped)
		}
		if i >= 2 && !slices.EqualFunc(res.Items, want[:len(res.Items)], func(a, b Match) bool { return a.Entry.Digest == b.Entry.Digest }) {
			t.Fatalf("a match past the budget is not the deterministic one")
		}
	}
	if n := len(model.Calls()); n != 2 {
		t.Fatalf("one client's 50 matches made %d completions, its share is 2", n)
	}
	for i, c := range []string{"203.0.113.1", "203.0.113.1", "203.0.113.2", "203.0.113.2"} {
		if i < 3 {
			if res := rankedBy(t, svc, task(c, 100+i)); res.RankedBy != RankedByLLM {
				t.Fatalf("client %s (match %d) lost its share: skipped %q", c, i, res.Skipped)
			}
		} else if res := rankedBy(t, svc, task(c, 100+i)); res.Skipped != SkipBudget {
			t.Fatalf("past the total: ranked by %s, skipped %q", res.RankedBy, res.Skipped)
		}
	}
	if n := len(model.Calls()); n != 5 {
		t.Fatalf("%d completions in a minute, the budget is 5", n)
	}
	*now = now.Add(59 * time.Second)
	if res := rankedBy(t, svc, task("203.0.113.3", 200)); res.Skipped != SkipBudget {
		t.Fatalf("within the minute: skipped %q", res.Skipped)
	}
	*now = now.Add(time.Second)
	if res := rankedBy(t, svc, task("198.51.100.7", 201)); res.RankedBy != RankedByLLM {
		t.Fatalf("a minute later: skipped %q", res.Skipped)
	}
	if n := len(model.Calls()); n != 6 {
		t.Fatalf("%d completions", n)
	}
}

// The same task over the same candidates is answered from the cache: no
// completion, no budget spent, the model's order.
func TestMatchRerankCache(t *testing.T) {
	svc, model, _ := budgetCorpus(t, MatchLLM{PerMinute: 5, ClientPerMinute: 2})
	first := rankedBy(t, svc, task("198.51.100.7", 1))
	if first.Cached || first.RankedBy != RankedByLLM {
		t.Fatalf("the first: cached %v, ranked by %s", first.Cached, first.RankedBy)
	}
	for range 10 {
		again := rankedBy(t, svc, task("198.51.100.7", 1))
		if again.RankedBy != RankedByLLM || !again.Cached || !slices.EqualFunc(again.Items, first.Items, func(a, b Match) bool { return a.Entry.Digest == b.Entry.Digest }) {
			t.Fatalf("a cached re-rank: ranked by %s, skipped %q", again.RankedBy, again.Skipped)
		}
	}
	if n := len(model.Calls()); n != 1 {
		t.Fatalf("11 identical matches made %d completions", n)
	}
	// Another limit shows the model the same candidates: the same answer.
	r := task("198.51.100.8", 1)
	r.Limit = 3
	if res := rankedBy(t, svc, r); res.RankedBy != RankedByLLM || len(model.Calls()) != 1 {
		t.Fatalf("limit 3: ranked by %s after %d completions", res.RankedBy, len(model.Calls()))
	}
	// The hits spent nothing: the client's second completion is still
	// there, and then its share is spent.
	if res := rankedBy(t, svc, task("198.51.100.7", 2)); res.RankedBy != RankedByLLM {
		t.Fatalf("skipped %q", res.Skipped)
	}
	if res := rankedBy(t, svc, task("198.51.100.7", 3)); res.Skipped != SkipClientBudget {
		t.Fatalf("ranked by %s", res.RankedBy)
	}
	if n := len(model.Calls()); n != 2 {
		t.Fatalf("%d completions", n)
	}
}

// The cache holds at most CacheEntries answers, dropping the least
// recently used.
func TestMatchRerankCacheIsBounded(t *testing.T) {
	svc, model, _ := budgetCorpus(t, MatchLLM{PerMinute: 100, ClientPerMinute: 100, CacheEntries: 2})
	for _, i := range []int{1, 2, 1, 3, 1, 2} { // 2 is the least recently used when 3 comes
		rankedBy(t, svc, task("198.51.100.7", i))
	}
	if n, held := len(model.Calls()), svc.rerankCache.len(); n != 4 || held != 2 {
		t.Fatalf("%d completions, %d answers held; want 4 and 2", n, held)
	}
}

// No 60 seconds ever hold more than n completions, however they are
// spread.
func TestRerankWindowIsSliding(t *testing.T) {
	b := newRerankBudget(3, 3)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.now = func() time.Time { return now }
	var spent []time.Time
	for range 200 {
		if b.take("c") == "" {
			spent = append(spent, now)
		}
		now = now.Add(7 * time.Second)
	}
	for i := range spent {
		in := 0
		for _, t2 := range spent[i:] {
			if t2.Sub(spent[i]) < time.Minute {
				in++
			}
		}
		if in > 3 {
			t.Fatalf("%d completions within a minute from %s", in, spent[i])
		}
	}
	if len(spent) < 3*200*7/60-3 {
		t.Fatalf("only %d completions in %s", len(spent), 200*7*time.Second)
	}
}

// The table of clients is bounded, and a client idle for a minute is
// forgotten.
func TestRerankBudgetClientsAreBounded(t *testing.T) {
	b := newRerankBudget(1<<20, 1)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.now = func() time.Time { return now }
	for i := range maxRerankClients + 10 {
		if spent := b.take(fmt.Sprint(i)); spent != "" {
			t.Fatalf("client %d: %s", i, spent)
		}
	}
	if n := b.lru.Len(); n != maxRerankClients || len(b.clients) != n {
		t.Fatalf("%d clients held", n)
	}
	now = now.Add(time.Minute)
	b.take("new")
	if n := b.lru.Len(); n != 1 {
		t.Fatalf("%d clients held a minute later", n)
	}
}

// len is the number of answers held.
func (c *rerankCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
