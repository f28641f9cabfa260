package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestLocalNetworkIsNotRateLimitedByDefault (issue 14.11): with the default
// limits, a demo network on one host (every agent on 127.0.0.1, no trusted
// proxy) publishes past the publish burst of 50; --rate-limit-loopback, or a
// trusted proxy, puts loopback under the limits again.
func TestLocalNetworkIsNotRateLimitedByDefault(t *testing.T) {
	const publishes = 60 // the default --publish-rate-burst is 50
	publishAll := func(t *testing.T, args ...string) (firstRefused int) {
		srv := startServer(t, append([]string{"--data-dir", t.TempDir(), "--open-publish", "--no-examples"}, args...)...)
		for i := 1; i <= publishes; i++ {
			doc := fmt.Sprintf("---\nname: Local %d\ndescription: A negotiated protocol.\n---\n\n# Local %d\n", i, i)
			status, _, body := call(t, "POST", srv.URL+"/api/v1/protocols", strings.NewReader(doc), "Content-Type", "text/markdown")
			if status == 429 {
				return i
			}
			if status != 201 {
				t.Fatalf("publish %d: %d %s", i, status, body)
			}
		}
		return 0
	}
	if n := publishAll(t); n != 0 {
		t.Errorf("default settings: loopback publish %d of %d refused with 429", n, publishes)
	}
	// Limited: the burst of 50 passes, and the refill (5/s) adds a few
	// more during the run, but not ten.
	for _, args := range [][]string{{"--rate-limit-loopback"}, {"--trusted-proxies", "10.9.9.9"}} {
		if n := publishAll(t, args...); n <= 50 {
			t.Errorf("%v: first 429 at publish %d (0: none of %d), want one after the burst of 50", args, n, publishes)
		}
	}
}
