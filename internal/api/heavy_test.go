package api

import (
	"fmt"
	"net/http"
	"strings"
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
