package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Shape of the slow-client attack on the heavy-request gate (issue 13.3).
const (
	slowClients      = 4                      // as many as the gate has slots with GOMAXPROCS=2
	attackSettle     = 500 * time.Millisecond // time the attackers get to take their slots
	victimRuns       = 3 * time.Second        // how long the fifth client measures
	victimP99Bound   = 250 * time.Millisecond // generous on a shared machine; the figure is 100 ms
	dripInterval     = 100 * time.Millisecond
	unreadHashLength = 3000 // 1,000 of them: a ~3 MB answer echoing them back
)

// TestFifthClientServedUnderSlowHeavyClients: four clients, each from its own
// loopback address, hold heavy requests open (a resolve body sent a byte at a
// time, or a ~3 MB resolve answer never read); a fifth client's API search,
// resolve and HTML search must keep answering 200 meanwhile.
func TestFifthClientServedUnderSlowHeavyClients(t *testing.T) {
	requireFaults(t)
	t.Setenv("GOMAXPROCS", "2") // the server's slots: 2 × GOMAXPROCS = slowClients
	srv := startServer(t, "--data-dir", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	victim := clientFrom("127.0.0.6")
	defer victim.close()
	if err := waitReady(ctx, victim, srv.URL); err != nil {
		t.Fatal(err)
	}
	var hexes []string
	rng := rand.New(rand.NewPCG(13, 13))
	for range 40 {
		doc := newDocument(rng)
		if st, _, body, ok, err := victim.publish(ctx, srv.URL, doc); !ok {
			t.Fatalf("seeding: %d %v %.200s", st, err, body)
		}
		hexes = append(hexes, hexOf(doc))
	}
	for _, attack := range []struct {
		name string
		run  func(ctx context.Context, t *testing.T, base, from string)
	}{
		{"body-drip", dripResolveBody},
		{"unread-answer", unreadResolveAnswer},
	} {
		t.Run(attack.name, func(t *testing.T) {
			actx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			for i := range slowClients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					attack.run(actx, t, srv.URL, fmt.Sprintf("127.0.0.%d", 2+i))
				}()
			}
			time.Sleep(attackSettle)
			lat, failures := measureVictim(ctx, victim, srv.URL, hexes)
			stop()
			wg.Wait()
			p50, p99 := percentile(lat, 50), percentile(lat, 99)
			t.Logf("FIGURES heavy-%s: slow_clients=%d victim_requests=%d failures=%d p50_ms=%.1f p99_ms=%.1f",
				attack.name, slowClients, len(lat), len(failures), ms(p50), ms(p99))
			if len(failures) > 0 {
				t.Errorf("%d of %d requests of the fifth client failed; first: %v", len(failures), len(lat), failures[:min(5, len(failures))])
			}
			if p99 > victimP99Bound {
				t.Errorf("fifth client's p99 %.1f ms, bound %.0f ms", ms(p99), ms(victimP99Bound))
			}
		})
	}
}

// measureVictim runs the fifth client's requests one after another for
// victimRuns and returns their latencies and what went wrong.
func measureVictim(ctx context.Context, c *client, base string, hexes []string) (lat []time.Duration, failures []string) {
	resolve, _ := json.Marshal(map[string]any{"hashes": hexes[:10]})
	requests := []struct{ method, path, ct string }{
		{"GET", "/api/v1/protocols?q=weather", ""},
		{"POST", "/api/v1/resolve", "application/json"},
		{"GET", "/protocols?q=weather", ""},
	}
	end := time.Now().Add(victimRuns)
	for i := 0; time.Now().Before(end); i++ {
		r := requests[i%len(requests)]
		var body []byte
		if r.method == "POST" {
			body = resolve
		}
		start := time.Now()
		st, _, b, err := c.do(ctx, r.method, base+r.path, r.ct, body)
		lat = append(lat, time.Since(start))
		if err != nil || st != http.StatusOK {
			failures = append(failures, fmt.Sprintf("%s %s: %d %v %.120s", r.method, r.path, st, err, b))
		}
	}
	return lat, failures
}

// dripResolveBody sends a resolve request whose body arrives one byte per
// dripInterval until ctx ends.
func dripResolveBody(ctx context.Context, t *testing.T, base, from string) {
	conn := dialFrom(t, base, from, 0)
	defer conn.Close()
	body := `{"hashes":["` + strings.Repeat("a", 40) + `"]}` + strings.Repeat(" ", 400)
	fmt.Fprintf(conn, "POST /api/v1/resolve HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	tick := time.NewTicker(dripInterval)
	defer tick.Stop()
	for i := 0; i < len(body); i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if _, err := conn.Write([]byte{body[i]}); err != nil {
			return
		}
	}
}

// unreadResolveAnswer sends resolve requests whose ~3 MB answers (the
// hashes echoed back) it never reads, from a socket with a tiny receive
// buffer, a new connection each time the server drops the last one.
func unreadResolveAnswer(ctx context.Context, t *testing.T, base, from string) {
	hashes := make([]string, 1000)
	for i := range hashes {
		hashes[i] = strings.Repeat("z", unreadHashLength)
	}
	body, _ := json.Marshal(map[string]any{"hashes": hashes})
	for ctx.Err() == nil {
		conn := dialFrom(t, base, from, 4096)
		fmt.Fprintf(conn, "POST /api/v1/resolve HTTP/1.1\r\nHost: registry\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		_, _ = conn.Write(body)
		// Hold the connection without reading until ctx ends or the
		// server gives up on it (a read of the socket would drain it, so
		// only its closing is watched, through a zero-byte peek of errors).
		waitClosedOrDone(ctx, conn)
		conn.Close()
	}
}

// waitClosedOrDone returns when ctx ends or conn reports an error on write
// (the server reset it); it never reads, so the answer stays unread.
func waitClosedOrDone(ctx context.Context, conn net.Conn) {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			// A blank line between requests is allowed and ignored
			// (RFC 9112 §2.2); writing it shows whether the peer is gone.
			if _, err := conn.Write([]byte("\r\n")); err != nil {
				return
			}
		}
	}
}

// dialFrom connects to base's host from a chosen loopback address; a
// positive rcvBuf sets the receive buffer before the handshake, so the
// advertised window stays that small.
func dialFrom(t *testing.T, base, from string, rcvBuf int) net.Conn {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 5 * time.Second}
	if rcvBuf > 0 {
		d.Control = func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvBuf)
			})
			if err != nil {
				return err
			}
			return serr
		}
	}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Errorf("attacker %s: %v", from, err)
		return &net.TCPConn{}
	}
	return conn
}

// clientFrom is a test client whose connections leave from one loopback
// address, so the server sees it as a client of its own.
func clientFrom(addr string) *client {
	c := newClient()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}, Timeout: 5 * time.Second}
	c.http.Transport.(*http.Transport).DialContext = d.DialContext
	return c
}

func percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
