package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/directory"
)

// registerAs posts a registration of agentURL as the client at ip (the
// test server trusts loopback's X-Forwarded-For).
func registerAs(t *testing.T, base, ip, agentURL string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/api/v1/agents", strings.NewReader(`{"url":"`+agentURL+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", ip)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return &http.Response{}, ""
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// goodAgent serves a spec v0.2 list naming hex.
func goodAgent(t *testing.T, hex string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/wellknown" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `{"`+hex+`": ["https://example.org/p"]}`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// hangingAgents are n loopback agents that answer nothing until the test
// ends (or release is closed); active counts the crawls they hold (the
// requests for the first Agora path: a crawl asks for the A2A card and
// the ARD manifest beside, which hang too).
func hangingAgents(t *testing.T, n int) (urls []string, active *atomic.Int32, release func()) {
	t.Helper()
	active = new(atomic.Int32)
	stop := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(stop) }) }
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/agora" {
			active.Add(1)
			defer active.Add(-1)
		}
		select {
		case <-stop:
		case <-r.Context().Done():
		}
		http.NotFound(w, r)
	})
	for range n {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	t.Cleanup(release) // before the servers close
	return urls, active, release
}

// answersWithin posts a registration and fails unless its answer arrives
// before bound (a generous bound on a state: answered, not a speed).
func answersWithin(t *testing.T, bound time.Duration, base, ip, agentURL string) (int, string) {
	t.Helper()
	type answer struct {
		status int
		body   string
	}
	got := make(chan answer, 1)
	go func() {
		res, body := registerAs(t, base, ip, agentURL)
		got <- answer{res.StatusCode, body}
	}()
	select {
	case a := <-got:
		return a.status, a.body
	case <-time.After(bound):
		t.Fatalf("a registration from %s had no answer after %v", ip, bound)
		return 0, ""
	}
}

// parallel runs n registrations at once and returns their statuses and bodies.
func parallel(t *testing.T, base, ip string, urls []string) (statuses []int, bodies []string) {
	statuses, bodies = make([]int, len(urls)), make([]string, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, body := registerAs(t, base, ip, u)
			statuses[i], bodies[i] = res.StatusCode, body
		}()
	}
	wg.Wait()
	return statuses, bodies
}

// waitUntil waits for a state (the bound only stops a broken test).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var loopbackProxy = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// TestRegistrationAnswersBehindHangingAgents re-runs the attack through
// the API: one client sends 12 registrations of one agent that hangs and
// 12 of 12 such agents. The 12 of one agent share one crawl; of the 12
// agents, 4 queue (202) and the rest are refused (429 agent_queue_full).
// Another client's registration answers within 3 s, registered (201).
func TestRegistrationAnswersBehindHangingAgents(t *testing.T) {
	f := newDirectoryServerWith(t, true, directory.Config{Timeout: time.Minute}, loopbackProxy)
	hang, active, _ := hangingAgents(t, 13)
	const attacker = "198.51.100.9"
	var same []string
	for i := range 12 {
		same = append(same, fmt.Sprintf("%s/a%d", hang[12], i))
	}
	statuses, bodies := parallel(t, f.url, attacker, same)
	for i, st := range statuses {
		if st != http.StatusAccepted || !strings.Contains(bodies[i], `"crawlStatus":"pending"`) {
			t.Fatalf("registration %d of one hanging agent: %d %s", i, st, bodies[i])
		}
	}
	statuses, bodies = parallel(t, f.url, attacker, hang[:12])
	count := map[int]int{}
	for i, st := range statuses {
		count[st]++
		if st == http.StatusTooManyRequests && !strings.Contains(bodies[i], `"code":"agent_queue_full"`) {
			t.Fatalf("a refused registration: %s", bodies[i])
		}
	}
	// The one hanging agent's crawl holds the client's queue place and its slot.
	if count[http.StatusAccepted] != 3 || count[http.StatusTooManyRequests] != 9 {
		t.Fatalf("12 hanging agents from one client: %v, want 3 queued beside the first and 9 refused", count)
	}
	waitUntil(t, "the hanging crawl", func() bool { return active.Load() >= 1 })
	status, body := answersWithin(t, 3*time.Second, f.url, "203.0.113.5", goodAgent(t, f.hex))
	if status != http.StatusCreated || !strings.Contains(body, `"crawlStatus":"ok"`) {
		t.Fatalf("another client's registration: %d %s", status, body)
	}
	if n := active.Load(); n != 1 {
		t.Fatalf("one client's hanging registrations hold %d crawls, want 1", n)
	}
}

// TestRegistrationAnswersWhenEverySlotHangs: several clients hold every
// slot registrations may take with agents that hang. Another client's
// registration still answers within 3 s: 202, its record says the crawl is
// pending, and once a slot frees the crawl runs and the record says ok.
func TestRegistrationAnswersWhenEverySlotHangs(t *testing.T) {
	f := newDirectoryServerWith(t, true, directory.Config{Timeout: time.Minute}, loopbackProxy)
	hang, active, release := hangingAgents(t, 6)
	var wg sync.WaitGroup
	for i, u := range hang {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, body := registerAs(t, f.url, fmt.Sprintf("198.51.100.%d", i+1), u); res.StatusCode != http.StatusAccepted {
				t.Errorf("hanging registration %d: %d %s", i, res.StatusCode, body)
			}
		}()
	}
	wg.Wait()
	waitUntil(t, "three hanging crawls", func() bool { return active.Load() >= 3 })
	if n := active.Load(); n != 3 {
		t.Fatalf("%d hanging crawls, want registrations' 3 of 4 slots", n)
	}
	status, body := answersWithin(t, 3*time.Second, f.url, "203.0.113.5", goodAgent(t, f.hex))
	var v AgentView
	if err := json.Unmarshal([]byte(body), &v); err != nil || status != http.StatusAccepted || v.CrawlStatus != "pending" || v.ID == 0 {
		t.Fatalf("a registration behind hanging slots: %d %s", status, body)
	}
	if _, body := get(t, f.url+"/api/v1/agents", ""); strings.Contains(body, `"id":`+fmt.Sprint(v.ID)+`,`) {
		t.Fatalf("an agent not yet read is listed: %s", body)
	}
	release()
	waitUntil(t, "the pending registration's crawl", func() bool {
		_, body := get(t, f.url+"/api/v1/agents/"+fmt.Sprint(v.ID), "")
		return strings.Contains(body, `"crawlStatus":"ok"`) && strings.Contains(body, `"supportedCount":1`)
	})
}

// TestAgentCapsThroughTheAPI: past its daily cap a client gets 429
// agent_daily_limit with a Retry-After; another client does not.
func TestAgentCapsThroughTheAPI(t *testing.T) {
	f := newDirectoryServerWith(t, true, directory.Config{PerClientDay: 2}, loopbackProxy)
	for i := range 2 {
		if res, body := registerAs(t, f.url, "192.0.2.10", goodAgent(t, f.hex)); res.StatusCode != http.StatusCreated {
			t.Fatalf("registration %d: %d %s", i, res.StatusCode, body)
		}
	}
	res, body := registerAs(t, f.url, "192.0.2.10", goodAgent(t, f.hex))
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, `"code":"agent_daily_limit"`) || res.Header.Get("Retry-After") == "" {
		t.Fatalf("past the daily cap: %d %q %s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	if res, body := registerAs(t, f.url, "192.0.2.11", goodAgent(t, f.hex)); res.StatusCode != http.StatusCreated {
		t.Fatalf("another client: %d %s", res.StatusCode, body)
	}
	if _, body := get(t, f.url+"/api/v1/protocols/"+f.hex+"/agents", ""); !strings.Contains(body, `"speakingCount":3`) {
		t.Fatalf("three origins speak it: %s", body)
	}
}

// TestAKnownAgentShowsItsCrawlUnderWay: re-registering an agent already
// read answers 202 while the new crawl is under way, and the agent's
// record says so (crawlStatus pending) until it ends.
func TestAKnownAgentShowsItsCrawlUnderWay(t *testing.T) {
	f := newDirectoryServerWith(t, true, directory.Config{Timeout: time.Minute, RegisterWait: 100 * time.Millisecond}, loopbackProxy)
	var hang atomic.Bool
	stop := make(chan struct{})
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			select {
			case <-stop:
			case <-r.Context().Done():
			}
		}
		if r.URL.Path != "/wellknown" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `{"`+f.hex+`": []}`)
	}))
	t.Cleanup(agent.Close)
	var once sync.Once
	release := func() { once.Do(func() { close(stop) }) }
	t.Cleanup(release)
	if res, body := registerAs(t, f.url, "192.0.2.20", agent.URL); res.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", res.StatusCode, body)
	}
	hang.Store(true)
	res, body := registerAs(t, f.url, "192.0.2.20", agent.URL+"/again")
	if res.StatusCode != http.StatusAccepted || !strings.Contains(body, `"crawlStatus":"pending"`) {
		t.Fatalf("re-registering while its crawl hangs: %d %s", res.StatusCode, body)
	}
	if _, body := get(t, f.url+"/api/v1/agents/1", ""); !strings.Contains(body, `"crawlStatus":"pending"`) {
		t.Fatalf("the record during the crawl: %s", body)
	}
	hang.Store(false)
	release()
	waitUntil(t, "the crawl to end", func() bool {
		_, body := get(t, f.url+"/api/v1/agents/1", "")
		return strings.Contains(body, `"crawlStatus":"ok"`)
	})
}
