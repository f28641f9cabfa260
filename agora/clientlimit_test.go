package agora

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// clientFrom is an HTTP client whose connections come from a chosen
// loopback address (127.0.0.2, 127.0.0.3, ...), so one test can play
// several clients against an agent on 127.0.0.1.
func clientFrom(t *testing.T, ip string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

func answerFrom(t *testing.T, c *http.Client, method, url string, payload []byte) Answer {
	t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var a Answer
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &a) != nil {
		t.Fatalf("HTTP %d %s", resp.StatusCode, raw)
	}
	return a
}

// TestOneClientCannotTakeEveryConversation: the attack, a client
// opening conversations with tiny requests until none is left. Its quota
// stops it with a clear failure while another client still opens one.
// (Today the first client takes all 50 slots and the second is refused.)
func TestOneClientCannotTakeEveryConversation(t *testing.T) {
	doc, d := weatherDoc(t)
	cfg := weatherConfig(d)
	cfg.Conversations.Max = 50
	cfg.Limits.PerClientRate = -1 // the conversation quota alone is under test
	bob, url := startBob(t, cfg)
	open, _ := json.Marshal(map[string]any{"protocolHash": d.Hex(), "protocolSources": []string{DataURI(doc)}, "body": londonQuery, "multiround": true})
	mallory, alice := clientFrom(t, "127.0.0.2"), clientFrom(t, "127.0.0.3")
	opened, refused := 0, 0
	for i := 0; i < 60; i++ {
		a := answerFrom(t, mallory, "POST", url, open)
		switch {
		case a.Status == StatusSuccess:
			opened++
		case a.Status == StatusFailure && a.Code == "client_conversation_quota" && strings.Contains(a.Error, "DELETE /conversations/"):
			refused++
		default:
			t.Fatalf("open %d: %+v", i, a)
		}
	}
	if quota := bob.cfg.Conversations.PerClient; opened != quota || refused != 60-quota {
		t.Fatalf("one client opened %d conversations and was refused %d times; want %d and %d", opened, refused, quota, 60-quota)
	}
	if a := answerFrom(t, alice, "POST", url, open); a.Status != StatusSuccess || a.ConversationID == "" {
		t.Fatalf("another client cannot open a conversation: %+v", a)
	}
}

// TestOneClientsRequestRateDoesNotStopOthers: a client over its request
// rate is refused (rate_limited, with the retry delay in the message)
// before its body is read, while another client is served.
func TestOneClientsRequestRateDoesNotStopOthers(t *testing.T) {
	doc, d := weatherDoc(t)
	cfg := weatherConfig(d)
	cfg.Limits.PerClientRate, cfg.Limits.PerClientBurst = 1, 5
	_, url := startBob(t, cfg)
	q := tx(d.Hex(), []string{DataURI(doc)}, londonQuery)
	mallory, alice := clientFrom(t, "127.0.0.2"), clientFrom(t, "127.0.0.3")
	served, limited := 0, 0
	for i := 0; i < 20; i++ {
		a := answerFrom(t, mallory, "POST", url, q)
		switch {
		case a.Status == StatusSuccess:
			served++
		case a.Status == StatusFailure && a.Code == "rate_limited" && strings.Contains(a.Error, "retry in"):
			limited++
		default:
			t.Fatalf("request %d: %+v", i, a)
		}
	}
	// 5 of burst plus at most one a second of refill while the loop ran.
	if limited == 0 || served < 5 || served > 5+20 {
		t.Fatalf("served %d, rate-limited %d of 20", served, limited)
	}
	if a := answerFrom(t, alice, "POST", url, q); a.Status != StatusSuccess || a.Body != londonAnswer {
		t.Fatalf("another client is not served: %+v", a)
	}
}

// TestOneClientsSlowUploadsDoNotStopOthers: a client holding requests
// open mid-body (each able to hold a request's memory) gets at most
// PerClientInFlight of them; its next is refused at once, another
// client's goes through.
func TestOneClientsSlowUploadsDoNotStopOthers(t *testing.T) {
	doc, d := weatherDoc(t)
	bob, url := startBob(t, weatherConfig(d))
	host := strings.TrimPrefix(url, "http://")
	limit := bob.cfg.Limits.PerClientInFlight
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}
	for i := 0; i < limit; i++ {
		conn, err := dialer.DialContext(context.Background(), "tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"body\": \"", host)
	}
	deadline := time.Now().Add(10 * time.Second)
	for bob.clients.activeFor("127.0.0.2") < limit {
		if time.Now().After(deadline) {
			t.Fatalf("the slow uploads were not admitted: %d in flight", bob.clients.activeFor("127.0.0.2"))
		}
		time.Sleep(5 * time.Millisecond)
	}
	q := tx(d.Hex(), []string{DataURI(doc)}, londonQuery)
	if a := answerFrom(t, clientFrom(t, "127.0.0.2"), "POST", url, q); a.Status != StatusFailure || a.Code != "too_many_requests_in_flight" {
		t.Fatalf("the slow client's next request: %+v, want too_many_requests_in_flight", a)
	}
	if a := answerFrom(t, clientFrom(t, "127.0.0.3"), "POST", url, q); a.Status != StatusSuccess || a.Body != londonAnswer {
		t.Fatalf("another client is not served: %+v", a)
	}
}

func TestClientKey(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.2:5000":                 "127.0.0.2",
		"[::ffff:10.1.2.3]:80":           "10.1.2.3",
		"[2001:db8:1:2:3:4:5:6]:443":     "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1%eth0]:44": "2001:db8:1:2::/64",
		"garbage":                        "garbage",
	} {
		if got := clientKey(in); got != want {
			t.Errorf("clientKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestClientTableEvictsIdleClientsOnly: at its cap the table drops the
// least recently seen idle client; a client with requests in flight is
// never dropped (its in-flight limit would reset), and when every entry
// is busy a newcomer is refused rather than let in unlimited.
func TestClientTableEvictsIdleClientsOnly(t *testing.T) {
	c := newClientLimits(Limits{}.withDefaults())
	c.max = 3
	now := time.Now()
	busy, err := c.acquire("busy", now)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"idle1", "idle2", "idle3"} {
		release, err := c.acquire(k, now)
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if len(c.clients) != 3 || c.clients["busy"] == nil || c.clients["idle1"] != nil {
		t.Fatalf("table %v, want busy, idle2, idle3", keys(c.clients))
	}
	hold := []func(){busy}
	for _, k := range []string{"idle2", "idle3"} {
		r, err := c.acquire(k, now)
		if err != nil {
			t.Fatal(err)
		}
		hold = append(hold, r)
	}
	if _, err := c.acquire("newcomer", now); err == nil || !strings.Contains(err.Error(), "too many clients") {
		t.Fatalf("newcomer with every entry busy: %v", err)
	}
	for _, r := range hold {
		r()
	}
	if _, err := c.acquire("newcomer", now); err != nil {
		t.Fatalf("newcomer after the others went idle: %v", err)
	}
}

func keys(m map[string]*clientEntry) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRefusedRequestSpendsNoToken: a request refused by the rate limit
// gives its reservation back, so a client that keeps knocking while
// refused is served again as soon as its bucket refills.
func TestRefusedRequestSpendsNoToken(t *testing.T) {
	c := newClientLimits(Limits{PerClientRate: 1, PerClientBurst: 1, PerClientInFlight: 4})
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	release, err := c.acquire("a", now)
	if err != nil {
		t.Fatal(err)
	}
	release()
	for i := 1; i <= 5; i++ {
		if _, err := c.acquire("a", now.Add(time.Duration(i)*10*time.Millisecond)); err == nil {
			t.Fatalf("request %d within the second was admitted", i)
		} else if !strings.Contains(err.Error(), "retry in") {
			t.Fatalf("refusal %q does not say when to retry", err)
		}
	}
	if _, err := c.acquire("a", now.Add(time.Second)); err != nil {
		t.Fatalf("after the bucket refilled: %v (the refusals spent tokens)", err)
	}
}
