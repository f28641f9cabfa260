package directory_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/directory"
	"github.com/agora-registry/registry/internal/store"
)

// hanging is a set of loopback agents that answer nothing until released
// (then 404), counting the requests for Agora lists they hold (a crawl
// asks for the A2A card and ARD manifest at the same time; they hang too).
type hanging struct {
	URLs         []string
	active, hits atomic.Int32
	release      chan struct{}
}

func newHanging(t *testing.T, n int) *hanging {
	t.Helper()
	h := &hanging{release: make(chan struct{})}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if agoraPath(r.URL.Path) {
			h.hits.Add(1)
			h.active.Add(1)
			defer h.active.Add(-1)
		}
		select {
		case <-h.release:
		case <-r.Context().Done():
		}
		http.NotFound(w, r)
	})
	for range n {
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		h.URLs = append(h.URLs, srv.URL)
	}
	t.Cleanup(h.free) // runs before the servers close
	return h
}

func (h *hanging) free() {
	select {
	case <-h.release:
	default:
		close(h.release)
	}
}

// waitFor waits until cond holds (state, not time: the bound only stops a
// broken test from hanging).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPerClientCaps: one client adds at most PerClientDay new agents a day
// and holds at most PerClientTotal; re-registering a known agent and other
// clients are not held back.
func TestPerClientCaps(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	d := newDirectoryWith(t, st, directory.Config{Allow: []string{"127.0.0.1/32"}, Now: clk.Now, PerClientDay: 2, PerClientTotal: 3})
	ctx := context.Background()
	var agents []string
	for range 5 {
		agents = append(agents, newSpecStub(t, map[string][]string{weather.Hex(): {"https://a/1"}}).URL)
	}
	const me, other = "192.0.2.1", "2001:db8:1::"
	for _, u := range agents[:2] {
		if r, err := d.Submit(ctx, u, me); err != nil || !r.Created {
			t.Fatalf("within the caps: %+v, %v", r, err)
		}
	}
	if _, err := d.Submit(ctx, agents[2], me); !errors.Is(err, store.ErrAgentDailyCap) {
		t.Fatalf("a third new agent in a day: %v", err)
	}
	if r, err := d.Submit(ctx, agents[0]+"/again", me); err != nil || r.Created {
		t.Fatalf("re-registering a known agent at the cap: %+v, %v", r, err)
	}
	if r, err := d.Submit(ctx, agents[2], other); err != nil || !r.Created {
		t.Fatalf("another client: %+v, %v", r, err)
	}
	clk.add(25 * time.Hour)
	if _, err := d.Submit(ctx, agents[3], me); err != nil {
		t.Fatalf("the next day: %v", err)
	}
	if _, err := d.Submit(ctx, agents[4], me); !errors.Is(err, store.ErrAgentTotalCap) {
		t.Fatalf("a fourth agent held (cap 3): %v", err)
	}
	// Register (the registry's own callers) has no client and no caps.
	if _, created, err := d.Register(ctx, agents[4]); err != nil || !created {
		t.Fatalf("Register: %v", err)
	}
}

// TestOneSlotPerClientAndABoundedQueue re-runs the attack: one client
// queues registrations of agents that hang. It holds one crawl slot, its
// queue is bounded, and another client registers at once on a free slot.
func TestOneSlotPerClientAndABoundedQueue(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Now()}
	d := newDirectoryWith(t, st, directory.Config{Allow: []string{"127.0.0.1/32"}, Now: clk.Now, Concurrency: 4, ClientQueue: 4,
		RegisterWait: 50 * time.Millisecond, Timeout: time.Minute})
	ctx := context.Background()
	h := newHanging(t, 12)
	const attacker = "198.51.100.9"
	queued := 0
	for _, u := range h.URLs {
		r, err := d.Submit(ctx, u, attacker)
		switch {
		case err == nil && r.Pending:
			queued++
		case !errors.Is(err, directory.ErrQueueFull):
			t.Fatalf("a hanging registration: %+v, %v", r, err)
		}
	}
	if queued != 4 {
		t.Fatalf("%d of 12 hanging registrations queued, want the client's queue of 4", queued)
	}
	waitFor(t, "the first hanging crawl", func() bool { return h.active.Load() >= 1 })
	good := newSpecStub(t, map[string][]string{weather.Hex(): {"https://a/1"}})
	r, err := d.Submit(ctx, good.URL, "203.0.113.5")
	if err != nil || !r.Created || r.Pending {
		t.Fatalf("another client behind 12 hanging registrations: %+v, %v", r, err)
	}
	// Free slots were there all along: had the client been allowed more
	// than one, its queued crawls would have started.
	if n := h.hits.Load(); n != 1 {
		t.Fatalf("one client's registrations hold %d crawl slots, want 1", n)
	}
	h.free()
	waitFor(t, "the hanging registrations to be crawled in turn", func() bool { return h.hits.Load() >= 4*3 })
}

// TestRecrawlsRunWhileRegistrationsHang: with every slot registrations may
// take held by hanging agents (several clients), a due re-crawl still runs
// at once, and registrations never take the slot kept for re-crawls.
func TestRecrawlsRunWhileRegistrationsHang(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	d := newDirectoryWith(t, st, directory.Config{Allow: []string{"127.0.0.1/32"}, Now: clk.Now, Interval: time.Hour, Concurrency: 4,
		RegisterWait: 50 * time.Millisecond, Timeout: 10 * time.Second})
	ctx := context.Background()
	stub := newSpecStub(t, map[string][]string{weather.Hex(): {"https://a/1"}})
	a, _, err := d.Register(ctx, stub.URL)
	if err != nil {
		t.Fatal(err)
	}
	clk.add(2 * time.Hour)
	h := newHanging(t, 5)
	for i, u := range h.URLs {
		if r, err := d.Submit(ctx, u, "198.51.100."+string(rune('1'+i))); err != nil || !r.Pending {
			t.Fatalf("hanging registration %d: %+v, %v", i, r, err)
		}
	}
	waitFor(t, "three hanging crawls", func() bool { return h.active.Load() == 3 })
	if n, err := d.CrawlDue(ctx); err != nil || n != 1 {
		t.Fatalf("CrawlDue: %d, %v", n, err)
	}
	got, err := d.Get(ctx, a.ID)
	if err != nil || got.LastSeen == nil || !got.LastSeen.Equal(clk.Now()) {
		t.Fatalf("the due agent was not re-crawled: %+v, %v", got, err)
	}
	if active, hits := h.active.Load(), h.hits.Load(); active != 3 || hits != 3 {
		t.Fatalf("while the re-crawl ran, hanging crawls: %d active of %d started, want 3 of 3", active, hits)
	}
}

// TestAPendingRegistrationShowsItsFailure: a registration answered before
// its crawl ends keeps the new agent, unlisted, with why its list could not
// be read; one whose crawl fails while it waits adds nothing.
func TestAPendingRegistrationShowsItsFailure(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Now()}
	d := newDirectoryWith(t, st, directory.Config{Allow: []string{"127.0.0.1/32"}, Now: clk.Now, RegisterWait: 50 * time.Millisecond,
		Timeout: time.Minute})
	ctx := context.Background()
	h := newHanging(t, 1)
	r, err := d.Submit(ctx, h.URLs[0], "192.0.2.8")
	if err != nil || !r.Pending || !r.Created || !d.Crawling(h.URLs[0]) {
		t.Fatalf("a hanging registration: %+v, %v", r, err)
	}
	h.free()
	// A second registration of the agent waits for the crawl under way.
	if _, _, err := d.Register(ctx, h.URLs[0]+"/again"); !errors.Is(err, directory.ErrUnreachable) {
		t.Fatalf("the crawl's outcome: %v", err)
	}
	got, err := d.Get(ctx, r.Agent.ID)
	if err != nil || got.LastError == "" || got.Failures != 1 || got.LastSeen != nil || d.Crawling(h.URLs[0]) {
		t.Fatalf("the pending agent's record: %+v, %v", got, err)
	}
	if page, _ := d.List(ctx, store.AgentQuery{}); len(page.Agents) != 0 {
		t.Fatalf("an agent never read is listed: %+v", page.Agents)
	}

	bad := newSpecStub(t, nil)
	bad.failing.Store(true)
	if _, err := d.Submit(ctx, bad.URL, "192.0.2.8"); !errors.Is(err, directory.ErrUnreachable) {
		t.Fatalf("a failing agent: %v", err)
	}
	for id := r.Agent.ID + 1; id < r.Agent.ID+3; id++ {
		if _, err := d.Get(ctx, id); !errors.Is(err, store.ErrAgentNotFound) {
			t.Fatalf("a registration refused while waiting left agent %d: %v", id, err)
		}
	}
}

// orderedAgent serves a spec v0.2 list and notes when it was first asked,
// on a counter shared by the test's agents.
func orderedAgent(t *testing.T, seq *atomic.Int32) (url string, first *atomic.Int32) {
	t.Helper()
	first = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		first.CompareAndSwap(0, seq.Add(1))
		if r.URL.Path != "/wellknown" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"` + weather.Hex() + `": []}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL, first
}

// TestRecrawlsAndRegistrationsAlternate: on a single slot, a due re-crawl
// waiting beside queued registrations goes next, not after all of them.
func TestRecrawlsAndRegistrationsAlternate(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	d := newDirectoryWith(t, st, directory.Config{Allow: []string{"127.0.0.1/32"}, Now: clk.Now, Interval: time.Hour, Concurrency: 1,
		RegisterWait: 20 * time.Millisecond, Timeout: time.Minute})
	ctx := context.Background()
	var seq atomic.Int32
	due, dueFirst := orderedAgent(t, &seq)
	if _, _, err := d.Register(ctx, due); err != nil {
		t.Fatal(err)
	}
	dueFirst.Store(0)
	clk.add(2 * time.Hour)
	h := newHanging(t, 1)
	if r, err := d.Submit(ctx, h.URLs[0], "198.51.100.1"); err != nil || !r.Pending {
		t.Fatalf("the hanging registration: %+v, %v", r, err)
	}
	waitFor(t, "the hanging crawl", func() bool { return h.active.Load() == 1 })
	b, bFirst := orderedAgent(t, &seq)
	c, cFirst := orderedAgent(t, &seq)
	for i, u := range []string{b, c} {
		if r, err := d.Submit(ctx, u, "203.0.113."+string(rune('1'+i))); err != nil || !r.Pending {
			t.Fatalf("queued registration %d: %+v, %v", i, r, err)
		}
	}
	crawled := make(chan error, 1)
	go func() { _, err := d.CrawlDue(ctx); crawled <- err }()
	waitFor(t, "the re-crawl to queue", func() bool { return d.Crawling(due) })
	h.free()
	if err := <-crawled; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the queued registrations", func() bool { return !d.Crawling(b) && !d.Crawling(c) })
	if !(dueFirst.Load() < bFirst.Load() && bFirst.Load() < cFirst.Load()) {
		t.Fatalf("crawl order: re-crawl %d, registrations %d and %d; want the re-crawl first", dueFirst.Load(), bFirst.Load(), cFirst.Load())
	}
}

// TestAFailingRegistrationKeepsAKnownAgent: registering a known agent
// while it is down records nothing against it (a registration cannot
// remove someone else's agent), and a new agent whose registrant hung up
// before any answer is not kept when its crawl fails.
func TestAFailingRegistrationKeepsAKnownAgent(t *testing.T) {
	st, clk := openStore(t), &clock{now: time.Now()}
	d := newDirectoryWith(t, st, directory.Config{Allow: []string{"127.0.0.1/32"}, Now: clk.Now, RegisterWait: time.Minute, Timeout: time.Minute})
	ctx := context.Background()
	good := newSpecStub(t, map[string][]string{weather.Hex(): nil})
	r, err := d.Submit(ctx, good.URL, "192.0.2.9")
	if err != nil || !r.Created {
		t.Fatalf("registering a good agent: %+v, %v", r, err)
	}
	good.failing.Store(true)
	if _, err := d.Submit(ctx, good.URL, "192.0.2.10"); !errors.Is(err, directory.ErrUnreachable) {
		t.Fatalf("re-registering it while down: %v", err)
	}
	if got, err := d.Get(ctx, r.Agent.ID); err != nil || got.Failures != 0 {
		t.Fatalf("a failed re-registration changed the known agent: %+v, %v", got, err)
	}

	h := newHanging(t, 1)
	gone, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := d.Submit(gone, h.URLs[0], "192.0.2.11"); done <- err }()
	waitFor(t, "the crawl to start", func() bool { return d.Crawling(h.URLs[0]) })
	cancel() // the registrant hangs up before any answer
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the abandoned registration: %v", err)
	}
	h.free() // its crawl fails
	waitFor(t, "the crawl to end", func() bool { return !d.Crawling(h.URLs[0]) })
	for id := r.Agent.ID + 1; id < r.Agent.ID+3; id++ {
		if a, err := d.Get(ctx, id); !errors.Is(err, store.ErrAgentNotFound) {
			t.Fatalf("an abandoned registration whose crawl failed left agent %d: %+v %v", id, a, err)
		}
	}
}
