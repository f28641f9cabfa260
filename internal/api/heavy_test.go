package api

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeavyGateIsFairPerClient: a client sending a resolve body slowly
// holds its own lane but no shared slot (the body is read first), so with
// a single slot another client is still served; the slow client's own
// second heavy request waits, then gets 429 with Retry-After: 1.
func TestHeavyGateIsFairPerClient(t *testing.T) {
	s, ts, _ := newGateServer(t, Config{MaxHeavyRequests: 1, HeavyQueueWait: 50 * time.Millisecond})
	body := `{"hashes":["` + strings.Repeat("a", 40) + `"]}`
	conn, br := rawConn(t, ts, "127.0.0.1")
	fmt.Fprintf(conn, "POST /api/v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:5])
	waitFor(t, "the slow request to hold its lane", func() bool {
		s.heavy.mu.Lock()
		defer s.heavy.mu.Unlock()
		return len(s.heavy.lanes) == 1
	})

	res, got := send(t, clientFrom("127.0.0.2"), "POST", ts.URL+"/api/v1/resolve", "application/json", body)
	if res.StatusCode != 200 {
		t.Errorf("another client while a slow body is read: %d %s", res.StatusCode, got)
	}
	res, got = send(t, clientFrom("127.0.0.1"), "GET", ts.URL+"/api/v1/protocols?q=x", "", "")
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" || !strings.Contains(got, `"code":"too_many_concurrent"`) {
		t.Errorf("the slow client's second heavy request: %d Retry-After=%q %s", res.StatusCode, res.Header.Get("Retry-After"), got)
	}

	fmt.Fprint(conn, body[5:])
	slow, err := http.ReadResponse(br, nil)
	if err != nil || slow.StatusCode != 200 {
		t.Fatalf("the slow request itself: %v %v", slow, err)
	}
	slow.Body.Close()
	waitFor(t, "the lane to be dropped", func() bool {
		s.heavy.mu.Lock()
		defer s.heavy.mu.Unlock()
		return len(s.heavy.lanes) == 0 && len(s.heavy.slots) == 0
	})
}

// TestStalledReaderLosesItsHeavyAnswer: a client that never reads a ~3 MB
// resolve answer (through a 4 KiB receive window) holds no slot while the
// answer waits (another client, queueing up to 1 s, is served although the
// stall allows 3 s), and the stall deadline drops it, freeing its lane.
func TestStalledReaderLosesItsHeavyAnswer(t *testing.T) {
	s, ts, _ := newGateServer(t, Config{MaxHeavyRequests: 1, HeavyQueueWait: time.Second, HeavyWriteStall: 3 * time.Second})
	hashes := make([]string, 1000)
	for i := range hashes {
		hashes[i] = `"` + strings.Repeat("z", 3000) + `"`
	}
	body := `{"hashes":[` + strings.Join(hashes, ",") + `]}`
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.1")}, Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	waitFor(t, "the unread answer to be worked on", func() bool {
		s.heavy.mu.Lock()
		defer s.heavy.mu.Unlock()
		return len(s.heavy.lanes) == 1
	})
	res, got := send(t, clientFrom("127.0.0.2"), "GET", ts.URL+"/api/v1/protocols?q=x", "", "")
	if res.StatusCode != 200 {
		t.Errorf("another client while an answer goes unread: %d %s", res.StatusCode, got)
	}
	waitFor(t, "the stalled reader's lane to be dropped", func() bool {
		s.heavy.mu.Lock()
		defer s.heavy.mu.Unlock()
		return len(s.heavy.lanes) == 0
	})
}
