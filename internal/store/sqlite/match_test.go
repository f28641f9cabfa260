package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// A word held by store.MatchCommonRows documents is left out of a match
// search that has a rarer word, so BM25 scores the rare word's rows only;
// alone, common words must all be held.
func TestMatchSearchLeavesCommonWordsOut(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	// alpha: documents 0 to 1999; beta: 1990 to 3989 (both common, ten
	// documents hold both); unusual: document 7 only.
	const n = 2*store.MatchCommonRows - 10
	var docs []store.NewDocument
	for i := range n {
		var words []string
		if i < store.MatchCommonRows {
			words = append(words, "alpha")
		}
		if i >= n-store.MatchCommonRows {
			words = append(words, "beta")
		}
		if i == 7 {
			words = append(words, "unusual")
		}
		d, err := protocol.Prepare(fmt.Appendf(nil, "---\nname: Doc %d %s\ndescription: D.\n---\n\nB.\n", i, strings.Join(words, " ")), 0)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, store.NewDocument{Document: d})
	}
	if _, err := s.PutMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	hits, err := s.MatchSearch(ctx, []string{"alpha", "unusual"}, store.MaxMatchHits)
	if err != nil || len(hits) != 1 || hits[0].Entry.Metadata.Title != "Doc 7 alpha unusual" {
		t.Fatalf("common and rare: %d hits, %v; want the rare word's one", len(hits), err)
	}
	hits, err = s.MatchSearch(ctx, []string{"alpha", "beta"}, store.MaxMatchHits)
	if err != nil || len(hits) != 10 {
		t.Fatalf("two common words: %d hits, %v; want the 10 documents holding both", len(hits), err)
	}
}
