package html_test

import (
	"strings"
	"testing"
)

// TestZeroResultSearchOffersTaskMatchAndPrefixRule: a search whose words
// are not all in any document offers what task match finds, and a hash
// prefix too short to name a document says how long one must be.
func TestZeroResultSearchOffersTaskMatchAndPrefixRule(t *testing.T) {
	srv := startServer(t, serverOptions{examples: true})
	c := newClient(t, srv.URL)
	_, body := c.get("/protocols?q=restaurant+reservation", htmlAccept)
	if !strings.Contains(body, "No protocols match") {
		t.Fatalf("the search found something; pick words no example holds all of:\n%s", body)
	}
	i := strings.Index(body, `class="task-matches"`)
	if i < 0 || !strings.Contains(body[i:], "Table Booking v1") {
		t.Errorf("no task-match offer of Table Booking for a zero-result search:\n%s", body)
	}
	_, body = c.get("/protocols?q=6a5479", htmlAccept)
	if !strings.Contains(body, `class="prefix-hint"`) || !strings.Contains(body, "first 8 hex digits") {
		t.Errorf("a 6-digit prefix gives no hint of the 8-digit rule:\n%s", body)
	}
	if strings.Contains(body, `class="task-matches"`) {
		t.Errorf("a hash prefix is offered task matches")
	}
}
