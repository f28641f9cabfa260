package agent

import (
	"fmt"
	"strings"
	"testing"
)

// TestSourceCapsAreReached drives both source limits with a supported
// hash, so the sources are really read: a request may carry at most
// maxSourcesInRequest (64) sources, and of those at most limits.maxSources
// are fetched, even when a good copy comes right after.
func TestSourceCapsAreReached(t *testing.T) {
	doc, d := weatherDoc(t)
	wrong := newCountingSource(t, []byte("# Not the weather protocol\n"))
	good := newCountingSource(t, doc)
	bob, url := startBob(t, weatherConfig(d, "127.0.0.1"))
	maxSources := bob.cfg.Limits.MaxSources
	if maxSources == 0 {
		maxSources = 8 // agora.DefaultMaxSources, applied by the resolver
	}
	sources := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s/copy%d", wrong.URL, i)
		}
		return out
	}

	over := call(t, "POST", url, tx(d.Hex(), sources(maxSourcesInRequest+1), londonQuery))
	if over.Status != StatusRejected || over.Code != "too_many_sources" || wrong.hits.Load() != 0 {
		t.Fatalf("%d sources: %+v after %d fetches, want too_many_sources before any", maxSourcesInRequest+1, over, wrong.hits.Load())
	}

	// At the cap the request is read, and only maxSources are tried: the
	// good copy placed right after them is never reached.
	list := append(sources(maxSources), good.URL)
	list = append(list, sources(maxSourcesInRequest-len(list))...)
	atCap := call(t, "POST", url, tx(d.Hex(), list, londonQuery))
	if atCap.Status != StatusRejected || atCap.Code != "protocol_unresolvable" {
		t.Fatalf("%d sources: %+v, want protocol_unresolvable", len(list), atCap)
	}
	if got := wrong.hits.Load(); got != int32(maxSources) || good.hits.Load() != 0 {
		t.Fatalf("%d sources made %d fetches of wrong copies and %d of the good one; want %d and 0", len(list), got, good.hits.Load(), maxSources)
	}
	if want := fmt.Sprintf("%d further sources ignored (limit %d)", maxSourcesInRequest-maxSources, maxSources); !strings.Contains(atCap.Error, want) {
		t.Fatalf("the refusal %q does not say %q", atCap.Error, want)
	}

	// Within maxSources the good copy is found (so the refusals above were
	// the caps', not a broken source).
	list = append(sources(maxSources-1), good.URL)
	if a := call(t, "POST", url, tx(d.Hex(), list, londonQuery)); a.Status != StatusSuccess || a.Body != londonAnswer {
		t.Fatalf("good copy at position %d: %+v", maxSources, a)
	}
}
