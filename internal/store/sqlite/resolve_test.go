package sqlite_test

import (
	"context"
	"strings"
	"testing"
)

// Batch resolve is fast because every column it reports is in one index:
// a plan that reads the table row per digest doubles its page reads.
func TestResolveReadsOnlyTheCoveringIndex(t *testing.T) {
	plan, err := openTemp(t).ResolvePlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan, "\n")
	if !strings.Contains(joined, "USING COVERING INDEX documents_resolve") {
		t.Fatalf("resolve plan does not read only documents_resolve:\n%s", joined)
	}
}

// A prefix lookup is a range search of the covering digest index, never a
// scan of the table.
func TestPrefixLookupSearchesTheDigestIndex(t *testing.T) {
	plan, err := openTemp(t).PrefixPlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan, "\n")
	if !strings.Contains(joined, "SEARCH d USING COVERING INDEX documents_resolve (hex>? AND hex<?)") {
		t.Fatalf("prefix plan is not a range search of documents_resolve:\n%s", joined)
	}
}

// The latest-only catalog asks, per listed row, whether a successor by the
// same publisher exists: an index probe, never a scan.
func TestCatalogProbesTheSuccessorIndex(t *testing.T) {
	plan, err := openTemp(t).CatalogPlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan, "\n")
	if !strings.Contains(joined, "SEARCH s USING INDEX documents_supersedes_own (supersedes=? AND publisher=?)") {
		t.Fatalf("catalog plan does not probe documents_supersedes_own:\n%s", joined)
	}
}

// A lineage finds each successor by an index probe from the versions found
// so far, never by reading every document of the publisher.
func TestLineageProbesTheSuccessorIndex(t *testing.T) {
	plan, err := openTemp(t).LineagePlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan, "\n")
	if strings.Contains(joined, "documents_publisher") || !strings.Contains(joined, "SEARCH d USING INDEX documents_supersedes_own (supersedes=? AND publisher=?)") {
		t.Fatalf("lineage plan does not probe documents_supersedes_own:\n%s", joined)
	}
}

// A registration's cap counts search the registrant's index entries, never
// the whole directory.
func TestAgentCapsSearchTheRegistrantIndexes(t *testing.T) {
	plan, err := openTemp(t).AgentCapsPlan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(plan, "\n")
	if strings.Contains(joined, "SCAN agent") || !strings.Contains(joined, "agents_registrant (registrant=?)") ||
		!strings.Contains(joined, "agent_registrations_registrant (registrant=? AND registered_at>?)") {
		t.Fatalf("the cap counts do not search their indexes:\n%s", joined)
	}
}
