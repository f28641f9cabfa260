package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// A prefix lookup is a range scan of the primary key that stops at the
// limit, whatever the table's size: a sequential scan would read every
// row for each short hash a visitor follows.
func TestPrefixLookupScansThePrimaryKey(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	var docs []store.NewDocument
	for i := range 500 {
		doc, err := protocol.Prepare([]byte(fmt.Sprintf("---\nname: Plan %d\ndescription: d\n---\n", i)), 0)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, store.NewDocument{Document: doc})
	}
	if _, err := s.PutMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := s.Analyze(ctx); err != nil {
		t.Fatal(err)
	}
	p, _ := store.ParseHashPrefix("fc7fb47e")
	plan, err := s.PrefixPlan(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan, "\n")
	if !strings.Contains(joined, "Index Scan using documents_pkey") || strings.Contains(joined, "Seq Scan") {
		t.Fatalf("the prefix lookup does not range-scan the primary key:\n%s", joined)
	}
}
