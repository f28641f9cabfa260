package demo

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/testing/security"
)

// The list is written a store chunk at a time, never gathered in memory
// first (as the heavy gate gathers search answers): an answer of thousands
// of entries must not cost memory in proportion. A gathered answer is sent
// with Content-Length; a streamed one is chunked.
func TestDemoListIsStreamed(t *testing.T) {
	eachEngine(t, security.Options{}, func(t *testing.T, s *security.Server) {
		for i := range 40 {
			if res, _, _ := submit(t, s, fmt.Sprintf("Stream %d", i), strings.Repeat("A long description. ", 12),
				fmt.Sprintf("Protocol %d of the streamed list.", i)); res.Status != 200 {
				t.Fatalf("submit %d: %d %s", i, res.Status, res.Body)
			}
		}
		res, err := http.Get(s.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode != 200 || res.ContentLength != -1 || !slices.Contains(res.TransferEncoding, "chunked") {
			t.Fatalf("status %d, Content-Length %d, Transfer-Encoding %v: the list was gathered before it was sent",
				res.StatusCode, res.ContentLength, res.TransferEncoding)
		}
	})
}
