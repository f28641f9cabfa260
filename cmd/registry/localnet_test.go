package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestLocalNetworkIsNotRateLimitedByDefault (issue 14.11): with the default
// limits, a demo network on one host (every agent on 127.0.0.1, no trusted
// proxy) publishes past the publish burst of 50; --rate-limit-loopback, or a
// trusted proxy, or a forwarding header from an unlisted local proxy, puts
// loopback under the limits again.
func TestLocalNetworkIsNotRateLimitedByDefault(t *testing.T) {
	const publishes = 60 // the default --publish-rate-burst is 50
	publishAll := func(t *testing.T, headers []string, args ...string) (firstRefused int) {
		srv := startServer(t, append([]string{"--data-dir", t.TempDir(), "--open-publish", "--no-examples"}, args...)...)
		for i := 1; i <= publishes; i++ {
			doc := fmt.Sprintf("---\nname: Local %d\ndescription: A negotiated protocol.\n---\n\n# Local %d\n", i, i)
			status, _, body := call(t, "POST", srv.URL+"/api/v1/protocols", strings.NewReader(doc), append([]string{"Content-Type", "text/markdown"}, headers...)...)
			if status == 429 {
				return i
			}
			if status != 201 {
				t.Fatalf("publish %d: %d %s", i, status, body)
			}
		}
		return 0
	}
	if n := publishAll(t, nil); n != 0 {
		t.Errorf("default settings: loopback publish %d of %d refused with 429", n, publishes)
	}
	// Limited: the burst of 50 passes, and the refill (5/s) adds a few
	// more during the run, but not ten. A proxy on this host that is not
	// listed as trusted (it sends X-Forwarded-For) is limited too.
	for _, tc := range []struct{ headers, args []string }{
		{nil, []string{"--rate-limit-loopback"}},
		{nil, []string{"--trusted-proxies", "10.9.9.9"}},
		{[]string{"X-Forwarded-For", "203.0.113.9"}, nil},
	} {
		if n := publishAll(t, tc.headers, tc.args...); n <= 50 {
			t.Errorf("%v %v: first 429 at publish %d (0: none of %d), want one after the burst of 50", tc.headers, tc.args, n, publishes)
		}
	}
}
