package api

import (
	"errors"
	"net/http/httptest"
	"net/netip"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// steppedClock is a clock a test moves by hand.
type steppedClock struct{ t time.Time }

func (c *steppedClock) now() time.Time       { return c.t }
func (c *steppedClock) step(d time.Duration) { c.t = c.t.Add(d) }
func newSteppedLimiter(perSecond float64, burst int, opts ...LimiterOption) (*RateLimiter, *steppedClock) {
	l := NewRateLimiter(perSecond, burst, "requests", opts...)
	clk := &steppedClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l.now = clk.now
	return l, clk
}

// retryAfter is the Retry-After seconds of a refusal, or -1 for none.
func retryAfter(err error) int {
	var ra *retryAfterError
	if errors.As(err, &ra) {
		return ra.seconds
	}
	return -1
}

// TestRateLimiterAtItsCapEvictsTheLeastRecentlyUsed: a full table drops
// the least recently seen client instead of sending newcomers to one shared
// bucket.
func TestRateLimiterAtItsCapEvictsTheLeastRecentlyUsed(t *testing.T) {
	l, clk := newSteppedLimiter(0.001, 1, MaxClients(3))
	for _, c := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"} {
		if err := l.Allow(c); err != nil {
			t.Fatalf("%s first request: %v", c, err)
		}
		clk.step(time.Millisecond)
	}
	if l.Allow("10.0.0.1") == nil { // seen again: now the most recent
		t.Fatal("10.0.0.1's second request passed a burst of 1")
	}
	if err := l.Allow("10.0.0.4"); err != nil { // drops 10.0.0.2, the least recently seen
		t.Fatalf("newcomer at the cap: %v", err)
	}
	if l.Allow("10.0.0.1") == nil {
		t.Error("10.0.0.1, seen recently, lost its bucket to a newcomer")
	}
	if err := l.Allow("10.0.0.2"); err != nil {
		t.Errorf("10.0.0.2 should have been dropped and start afresh: %v", err)
	}
	for i := 5; i <= 10; i++ { // every newcomer gets a bucket of its own
		c := "10.0.0." + strconv.Itoa(i)
		if err := l.Allow(c); err != nil {
			t.Fatalf("newcomer %s at the cap: %v", c, err)
		}
		if n := l.tracked(); n > 3 {
			t.Fatalf("table holds %d buckets, cap 3", n)
		}
	}
	if err := l.Allow("10.0.0.10"); err == nil {
		t.Error("the newest client's bucket was dropped instead of the oldest")
	}
}

// TestRateLimiterKeysIPv6ByPrefix: one /64 (or the configured prefix) is one
// client; IPv4-mapped addresses are their IPv4 address.
func TestRateLimiterKeysIPv6ByPrefix(t *testing.T) {
	for _, tc := range []struct {
		opts        []LimiterOption
		first, then string
		shared      bool
	}{
		{nil, "2001:db8::1", "2001:db8::ffff:1", true},
		{nil, "2001:db8::1", "2001:db8:0:1::1", false},
		{[]LimiterOption{IPv6Prefix(56)}, "2001:db8::1", "2001:db8:0:ff::1", true},
		{[]LimiterOption{IPv6Prefix(128)}, "2001:db8::1", "2001:db8::2", false},
		{nil, "::ffff:192.0.2.7", "192.0.2.7", true},
		{nil, "fe80::1%eth0", "fe80::2%eth1", true},
		{nil, "192.0.2.7", "192.0.2.8", false},
	} {
		l, _ := newSteppedLimiter(0.001, 1, tc.opts...)
		if err := l.Allow(tc.first); err != nil {
			t.Fatalf("%s: %v", tc.first, err)
		}
		if shared := l.Allow(tc.then) != nil; shared != tc.shared {
			t.Errorf("%s then %s (%d options): shared bucket %v, want %v", tc.first, tc.then, len(tc.opts), shared, tc.shared)
		}
	}
}

// TestRefusalSpendsNoTokenAndRetryAfterIsExact: at 0.1/s (a token per 10 s)
// and burst 1, refusals 1 s after a request say "retry in 9 s", and however
// many there are, the next token is still there 10 s after the first
// request (a refusal that kept its reservation would push it back).
func TestRefusalSpendsNoTokenAndRetryAfterIsExact(t *testing.T) {
	l, clk := newSteppedLimiter(0.1, 1)
	if err := l.Allow("192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	clk.step(time.Second)
	for i := range 50 {
		err := l.Allow("192.0.2.1")
		if got := retryAfter(err); got != 9 {
			t.Fatalf("refusal %d: Retry-After %d (%v), want 9", i, got, err)
		}
	}
	clk.step(8500 * time.Millisecond)
	if got := retryAfter(l.Allow("192.0.2.1")); got != 1 {
		t.Fatalf("0.5 s before the token: Retry-After %d, want 1 (rounded up)", got)
	}
	clk.step(500 * time.Millisecond)
	if err := l.Allow("192.0.2.1"); err != nil {
		t.Fatalf("10 s after the first request, after 51 refusals: %v", err)
	}
}

// TestLoopbackExemption: with ExemptLoopback, loopback clients (v4 and v6)
// are never limited; others still are; without it loopback is a client
// like any other.
func TestLoopbackExemption(t *testing.T) {
	l, _ := newSteppedLimiter(0.001, 1, ExemptLoopback())
	for i := range 1000 {
		for _, c := range []string{"127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"} {
			if err := l.Allow(c); err != nil {
				t.Fatalf("loopback %s request %d: %v", c, i, err)
			}
		}
	}
	if l.Allow("192.0.2.1") != nil || l.Allow("192.0.2.1") == nil {
		t.Error("a non-loopback client is not limited under ExemptLoopback")
	}
	strict, _ := newSteppedLimiter(0.001, 1)
	if strict.Allow("127.0.0.1") != nil || strict.Allow("127.0.0.1") == nil {
		t.Error("loopback is exempt without ExemptLoopback")
	}
}

// TestRetryAfterHeaderOverTheWire: the 429's Retry-After is the wait the
// bucket needs (2 s at 0.5/s), not merely present.
func TestRetryAfterHeaderOverTheWire(t *testing.T) {
	_, ts, _ := newGateServer(t, Config{}, WithRateLimit(NewRateLimiter(0.5, 1, "requests")))
	c := clientFrom("127.0.0.1")
	if res, body := send(t, c, "GET", ts.URL+"/api/v1/stats", "", ""); res.StatusCode != 200 {
		t.Fatalf("first: %d %s", res.StatusCode, body)
	}
	res, body := send(t, c, "GET", ts.URL+"/api/v1/stats", "", "")
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "2" {
		t.Errorf("second: %d Retry-After=%q %s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
}

// BenchmarkRateLimiterNewClientAtCap: a full default-size table taking a
// newcomer per call (each evicts the least recently seen); reports the
// table's heap per tracked client.
func BenchmarkRateLimiterNewClientAtCap(b *testing.B) {
	l := NewRateLimiter(1, 10, "requests")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	addr := func(i int) string { return netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}).String() }
	for i := range DefaultMaxTrackedClients {
		_ = l.Allow(addr(i))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = l.Allow(addr(DefaultMaxTrackedClients + i))
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/DefaultMaxTrackedClients, "heapB/client")
}

// TestLoopbackExemptionEndsAtAProxy: a loopback request carrying forwarding
// headers came through an unlisted proxy on this host and stays limited.
func TestLoopbackExemptionEndsAtAProxy(t *testing.T) {
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		l, _ := newSteppedLimiter(0.001, 1, ExemptLoopback())
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set(h, "203.0.113.9")
		if l.AllowFrom(r, "127.0.0.1") != nil || l.AllowFrom(r, "127.0.0.1") == nil {
			t.Errorf("%s from loopback: not limited", h)
		}
		if l.AllowFrom(httptest.NewRequest("GET", "/", nil), "127.0.0.1") != nil {
			t.Errorf("plain loopback request limited")
		}
	}
}

// MaxClients bounds the table of buckets (default DefaultMaxTrackedClients).
func MaxClients(n int) LimiterOption {
	return func(l *RateLimiter) { l.maxClients = n }
}

// tracked is the number of buckets held.
func (l *RateLimiter) tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}
