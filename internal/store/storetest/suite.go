// Package storetest is the conformance suite every store engine passes, and
// the deterministic corpus the benchmarks share (the bench module measures
// with it). It only uses the store API, so one suite holds all engines to
// one behaviour.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// Opener returns a fresh, empty, migrated store; it registers its own
// clean-up with t.Cleanup.
type Opener func(t *testing.T) store.Store

// Run runs the whole conformance suite against an engine. Every subtest gets
// its own store from open.
func Run(t *testing.T, open Opener) {
	t.Helper()
	s := open(t)
	if s.Engine() == "" {
		t.Fatal("Engine() is empty")
	}
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("Ping on a fresh store: %v", err)
	}
	t.Logf("conformance suite ran on engine %s", s.Engine())

	t.Run("Put", func(t *testing.T) { testPut(t, open) })
	t.Run("Get", func(t *testing.T) { testGet(t, open) })
	t.Run("Metadata", func(t *testing.T) { testMetadata(t, open) })
	t.Run("Withdraw", func(t *testing.T) { testWithdraw(t, open) })
	t.Run("InactiveSet", func(t *testing.T) { testInactiveSet(t, open) })
	t.Run("Import", func(t *testing.T) { testImport(t, open) })
	t.Run("Resolve", func(t *testing.T) { testResolve(t, open) })
	t.Run("ByPrefix", func(t *testing.T) { testByPrefix(t, open) })
	t.Run("Successors", func(t *testing.T) { testSuccessors(t, open) })
	t.Run("Search", func(t *testing.T) { testSearch(t, open) })
	t.Run("MatchSearch", func(t *testing.T) { testMatchSearch(t, open) })
	t.Run("Pagination", func(t *testing.T) { testPagination(t, open) })
	t.Run("Findability", func(t *testing.T) { testFindability(t, open) })
	t.Run("Tags", func(t *testing.T) { testTags(t, open) })
	t.Run("Stats", func(t *testing.T) { testStats(t, open) })
	t.Run("Each", func(t *testing.T) { testEach(t, open) })
	t.Run("List", func(t *testing.T) { testList(t, open) })
	t.Run("Tokens", func(t *testing.T) { testTokens(t, open) })
	t.Run("Sessions", func(t *testing.T) { testSessions(t, open) })
	t.Run("Publishers", func(t *testing.T) { testPublishers(t, open) })
	t.Run("SuccessorsOwnFirst", func(t *testing.T) { testSuccessorsOwnFirst(t, open) })
	t.Run("PublisherAccounts", func(t *testing.T) { testPublisherAccounts(t, open) })
	t.Run("TokenOwnership", func(t *testing.T) { testTokenOwnership(t, open) })
	t.Run("StatusChanges", func(t *testing.T) { testStatusChanges(t, open) })
	t.Run("DeprecatedRanksLast", func(t *testing.T) { testDeprecatedRanksLast(t, open) })
	t.Run("AdoptionRanking", func(t *testing.T) { testAdoptionRanking(t, open) })
	t.Run("AdoptionBeforePublish", func(t *testing.T) { testAdoptionBeforePublish(t, open) })
	t.Run("AdoptionDemoted", func(t *testing.T) { testAdoptionDemoted(t, open) })
	t.Run("BlendedPaging", func(t *testing.T) { testBlendedPaging(t, open) })
	t.Run("NaturalOrder", func(t *testing.T) { testNaturalOrder(t, open) })
	t.Run("RelevanceTies", func(t *testing.T) { testRelevanceTies(t, open) })
	t.Run("RelevanceTiesLarge", func(t *testing.T) { testRelevanceTiesLarge(t, open) })
	t.Run("SearchFilters", func(t *testing.T) { testSearchFilters(t, open) })
	t.Run("Lineage", func(t *testing.T) { testLineage(t, open) })
	t.Run("Catalog", func(t *testing.T) { testCatalog(t, open) })
	t.Run("CatalogWalkBound", func(t *testing.T) { testCatalogWalkBound(t, open) })
	t.Run("Agents", func(t *testing.T) { testAgents(t, open) })
	t.Run("AgentReservations", func(t *testing.T) { testAgentReservations(t, open) })
	t.Run("AgentCapsConcurrent", func(t *testing.T) { testAgentCapsConcurrent(t, open) })
	t.Run("AgentDialects", func(t *testing.T) { testAgentDialects(t, open) })
	t.Run("Adoption", func(t *testing.T) { testAdoption(t, open) })
	t.Run("Log", func(t *testing.T) { testLog(t, open) })
	t.Run("LogConcurrent", func(t *testing.T) { testLogConcurrent(t, open) })
	t.Run("LogLookupDuringIntegration", func(t *testing.T) { testLogLookupDuringIntegration(t, open) })
	t.Run("LogStatusChange", func(t *testing.T) { testLogStatusChange(t, open) })
	t.Run("LogAttestations", func(t *testing.T) { testLogAttestations(t, open) })
	t.Run("Witnesses", func(t *testing.T) { testWitnesses(t, open) })
	t.Run("FollowState", func(t *testing.T) { testFollowState(t, open) })
	t.Run("FollowDocs", func(t *testing.T) { testFollowDocs(t, open) })
	t.Run("Webhooks", func(t *testing.T) { testWebhooks(t, open) })
	t.Run("RestoreLifecycle", func(t *testing.T) { testRestoreLifecycle(t, open) })
}

// ctx gives every call of a test a deadline, so a hung engine fails the
// test instead of the whole run.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// prepare turns text into a store.NewDocument the way the service does.
func prepare(t testing.TB, content string, extraTags ...string) store.NewDocument {
	t.Helper()
	doc, err := protocol.Prepare([]byte(content), 0)
	if err != nil {
		t.Fatalf("preparing test document: %v", err)
	}
	return store.NewDocument{Document: doc, ExtraTags: protocol.NormaliseTags(extraTags)}
}

// put stores a document that must be new.
func put(t testing.TB, s store.Store, nd store.NewDocument) entity.Entry {
	t.Helper()
	e, created, err := s.Put(ctx(t), nd)
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	if !created {
		t.Fatalf("Put of a new document returned created=false")
	}
	return e
}

// putText prepares and stores a new document.
func putText(t testing.TB, s store.Store, content string, extraTags ...string) entity.Entry {
	t.Helper()
	return put(t, s, prepare(t, content, extraTags...))
}

// simpleDoc is a small document with front matter.
func simpleDoc(title, description string, tags []string, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\ntags: [%s]\n---\n\n# %s\n\n%s\n",
		title, description, strings.Join(tags, ", "), title, body)
}

// wantErr fails unless err matches the sentinel.
func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: got error %v, want %v", what, err, want)
	}
}

// noErr fails on an error.
func noErr(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// hexes lists the digests of entries in order.
func hexes(es []entity.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Digest.Hex()
	}
	return out
}

// search runs a query that must succeed.
func search(t testing.TB, s store.Store, q store.Query) store.Page {
	t.Helper()
	p, err := s.Search(ctx(t), q)
	if err != nil {
		t.Fatalf("Search(%+v): %v", q, err)
	}
	for _, e := range p.Entries {
		if e.Content != nil {
			t.Fatalf("Search returned Content for %s; pages carry no content", e.Digest)
		}
		if e.Withdrawn() {
			t.Fatalf("Search returned withdrawn entry %s", e.Digest)
		}
	}
	return p
}

// searchAll walks every page of a query and returns the entries in order.
func searchAll(t testing.TB, s store.Store, q store.Query) []entity.Entry {
	t.Helper()
	var all []entity.Entry
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("pagination does not end")
		}
		p := search(t, s, q)
		all = append(all, p.Entries...)
		if p.NextCursor == "" {
			return all
		}
		if len(p.Entries) == 0 {
			t.Fatal("an empty page has a NextCursor")
		}
		q.Cursor = p.NextCursor
	}
}

// sameStrings compares two lists ignoring nil versus empty.
func sameStrings(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || slices.Equal(a, b))
}

// sameTime compares instants at the microsecond precision every engine keeps.
func sameTime(a, b time.Time) bool {
	return a.Truncate(time.Microsecond).Equal(b.Truncate(time.Microsecond))
}

// sameEntry fails unless two entries describe the same stored row.
func sameEntry(t testing.TB, what string, got, want entity.Entry) {
	t.Helper()
	switch {
	case got.Digest != want.Digest:
		t.Fatalf("%s: digest %s, want %s", what, got.Digest, want.Digest)
	case got.SHA256 != want.SHA256:
		t.Fatalf("%s: SHA-256 differs", what)
	case got.Size != want.Size:
		t.Fatalf("%s: size %d, want %d", what, got.Size, want.Size)
	case !sameTime(got.CreatedAt, want.CreatedAt):
		t.Fatalf("%s: CreatedAt %v, want %v", what, got.CreatedAt, want.CreatedAt)
	case got.Metadata.Title != want.Metadata.Title:
		t.Fatalf("%s: title %q, want %q", what, got.Metadata.Title, want.Metadata.Title)
	case !sameStrings(got.Metadata.Tags, want.Metadata.Tags):
		t.Fatalf("%s: tags %q, want %q", what, got.Metadata.Tags, want.Metadata.Tags)
	case got.Origin != want.Origin:
		t.Fatalf("%s: origin %q, want %q", what, got.Origin, want.Origin)
	case got.Publisher != want.Publisher:
		t.Fatalf("%s: publisher %q, want %q", what, got.Publisher, want.Publisher)
	case got.Withdrawn() != want.Withdrawn():
		t.Fatalf("%s: withdrawn %v, want %v", what, got.Withdrawn(), want.Withdrawn())
	}
}
