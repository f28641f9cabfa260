package translog_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/api"
	"github.com/agora-registry/registry/internal/testing/security"
)

// pollFrom long-polls the change feed from a loopback address of its own
// and sends the answer's status on out (-1: no answer).
func pollFrom(addr, u string, out chan<- int) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: 30 * time.Second}
	resp, err := c.Get(u)
	if err != nil {
		out <- -1
		return
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	out <- resp.StatusCode
}

// waitLongPolls waits until /metrics counts n long polls waiting.
func waitLongPolls(t *testing.T, base string, n int) {
	t.Helper()
	want := []byte("\nregistry_changes_long_polls " + strconv.Itoa(n) + "\n")
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if _, _, m := get(t, base+"/metrics"); bytes.Contains(m, want) {
			return
		}
	}
	t.Fatalf("the server never had %d long polls waiting", n)
}

// TestLongPollsAreBoundedPerClient: one address cannot hold more than
// api.MaxLongPollsPerClient of the log's shared long-poll slots; the next
// is refused at once with 429, while another address still waits, and
// every waiting poll answers when the log grows.
func TestLongPollsAreBoundedPerClient(t *testing.T) {
	srv := security.Start(t, security.Options{})
	poll := srv.URL + "/api/v1/changes?after=0&wait=20s"
	answers := make(chan int, api.MaxLongPollsPerClient+1)
	for range api.MaxLongPollsPerClient {
		go pollFrom("127.0.0.1", poll, answers)
	}
	waitLongPolls(t, srv.URL, api.MaxLongPollsPerClient)

	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(poll)
	if err != nil {
		t.Fatalf("one long poll too many was kept waiting: %v", err)
	}
	var p struct{ Code, Detail string }
	err = json.NewDecoder(resp.Body).Decode(&p)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || err != nil || p.Code != "too_many_long_polls" || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("one long poll too many: %d %+v (Retry-After %q), want 429 too_many_long_polls", resp.StatusCode, p, resp.Header.Get("Retry-After"))
	}

	go pollFrom("127.0.0.2", poll, answers)
	waitLongPolls(t, srv.URL, api.MaxLongPollsPerClient+1)
	publish(t, srv, "Awaited", 1)
	for range api.MaxLongPollsPerClient + 1 {
		if status := <-answers; status != http.StatusOK {
			t.Fatalf("a waiting long poll answered %d, want 200", status)
		}
	}
	waitLongPolls(t, srv.URL, 0)
}
