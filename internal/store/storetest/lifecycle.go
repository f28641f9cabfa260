package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// ownedDoc stores a new document of publisher that supersedes prev (nil:
// nothing).
func ownedDoc(t testing.TB, s store.Store, publisher, title string, prev *entity.Entry) entity.Entry {
	t.Helper()
	text := fmt.Sprintf("---\nname: %s\ntags: [lineage]\n---\n\nBody of %s.\n", title, title)
	if prev != nil {
		text = fmt.Sprintf("---\nname: %s\ntags: [lineage]\nsupersedes: %s\n---\n\nBody of %s.\n", title, prev.Digest.Hex(), title)
	}
	nd := prepare(t, text)
	nd.Publisher = publisher
	return put(t, s, nd)
}

// testPublisherAccounts: the migration made the default and reserved
// publishers accounts; names are unique and well-formed; a verification
// challenge is kept until the domain is marked verified.
func testPublisherAccounts(t *testing.T, open Opener) {
	s := open(t)
	all, err := s.ListPublishers(ctx(t))
	noErr(t, "ListPublishers", err)
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
	}
	for _, want := range []string{entity.DefaultPublisher, "examples", "mirror", "anonymous"} {
		if !slices.Contains(names, want) {
			t.Fatalf("publishers of a fresh store: %v, want %s among them", names, want)
		}
	}
	p, err := s.CreatePublisher(ctx(t), entity.Publisher{Name: "acme", DisplayName: "Acme Corp."})
	noErr(t, "CreatePublisher", err)
	if p.Name != "acme" || p.DisplayName != "Acme Corp." || p.CreatedAt.IsZero() || p.VerifiedDomain != "" {
		t.Fatalf("created publisher = %+v", p)
	}
	_, err = s.CreatePublisher(ctx(t), entity.Publisher{Name: "acme"})
	wantErr(t, "a second CreatePublisher of one name", err, store.ErrPublisherTaken)
	_, err = s.CreatePublisher(ctx(t), entity.Publisher{Name: "Not A Name"})
	wantErr(t, "CreatePublisher of a malformed name", err, entity.ErrInvalidPublisher)
	_, err = s.GetPublisher(ctx(t), "nobody")
	wantErr(t, "GetPublisher of an unknown name", err, store.ErrPublisherUnknown)
	wantErr(t, "SetChallenge of an unknown name", s.SetChallenge(ctx(t), "nobody", "example.org", "x"), store.ErrPublisherUnknown)

	noErr(t, "SetChallenge", s.SetChallenge(ctx(t), "acme", "acme.example", "challenge-1"))
	got, err := s.GetPublisher(ctx(t), "acme")
	noErr(t, "GetPublisher", err)
	if got.ChallengeDomain != "acme.example" || got.Challenge != "challenge-1" || got.VerifiedDomain != "" {
		t.Fatalf("after SetChallenge: %+v", got)
	}
	at := time.Now().UTC().Truncate(time.Second)
	noErr(t, "MarkVerified", s.MarkVerified(ctx(t), "acme", "acme.example", at))
	got, err = s.GetPublisher(ctx(t), "acme")
	noErr(t, "GetPublisher", err)
	if got.VerifiedDomain != "acme.example" || got.VerifiedAt == nil || !got.VerifiedAt.Equal(at) || got.Challenge != "" {
		t.Fatalf("after MarkVerified: %+v", got)
	}
}

// testTokenOwnership: a token records its publisher and authentication
// hands it back.
func testTokenOwnership(t *testing.T, open Opener) {
	s := open(t)
	secret := [32]byte{7, 7, 7}
	tok, err := s.CreateToken(ctx(t), "acme", "ci", []entity.Scope{entity.ScopePublish}, secret, "")
	noErr(t, "CreateToken", err)
	if tok.Publisher != "acme" {
		t.Fatalf("token publisher %q, want acme", tok.Publisher)
	}
	found, err := s.TokenBySecret(ctx(t), secret)
	noErr(t, "TokenBySecret", err)
	if found.Publisher != "acme" {
		t.Fatalf("TokenBySecret publisher %q, want acme", found.Publisher)
	}
}

// testStatusChanges: a deprecation is stored with its message and
// replacement, read back by Get, Search and Resolve, undone by active, and
// every change is in the history with its actor; withdrawal ends the
// lifecycle.
func testStatusChanges(t *testing.T, open Opener) {
	s := open(t)
	old := ownedDoc(t, s, "acme", "Old weather", nil)
	repl := ownedDoc(t, s, "acme", "New weather", &old)
	if old.Status() != entity.StatusActive || old.Lifecycle.ChangedAt != nil {
		t.Fatalf("a new entry's status: %v (%+v)", old.Status(), old.Lifecycle)
	}
	e, err := s.SetStatus(ctx(t), old.Digest, store.StatusChange{Status: entity.StatusDeprecated,
		Message: "use the new one", Replacement: &repl.Digest, Actor: "acme"})
	noErr(t, "SetStatus deprecated", err)
	if e.Status() != entity.StatusDeprecated || e.Lifecycle.Message != "use the new one" ||
		e.Lifecycle.Replacement == nil || *e.Lifecycle.Replacement != repl.Digest || e.Lifecycle.ChangedAt == nil {
		t.Fatalf("after deprecation: status %v, %+v", e.Status(), e.Lifecycle)
	}
	if _, lc, err := s.Content(ctx(t), old.Digest); err != nil || lc.Status != entity.StatusDeprecated ||
		lc.Replacement == nil || *lc.Replacement != repl.Digest || lc.ChangedAt == nil || lc.Message != "use the new one" {
		t.Fatalf("Content's lifecycle after deprecation: %+v, %v", lc, err)
	}
	if _, lc, err := s.Content(ctx(t), repl.Digest); err != nil || lc.Status != entity.StatusActive || lc.ChangedAt != nil {
		t.Fatalf("Content's lifecycle of an active entry: %+v, %v", lc, err)
	}
	got := mustGet(t, s, old.Digest)
	if got.Status() != entity.StatusDeprecated || got.Lifecycle.Message != "use the new one" {
		t.Fatalf("Get after deprecation: %+v", got.Lifecycle)
	}
	for _, se := range search(t, s, store.Query{Tags: []string{"lineage"}}).Entries {
		if se.Digest == old.Digest && se.Status() != entity.StatusDeprecated {
			t.Fatalf("Search shows the deprecated entry as %v", se.Status())
		}
	}
	res, err := s.Resolve(ctx(t), []protocol.Digest{old.Digest, repl.Digest})
	noErr(t, "Resolve", err)
	if res[0].Status != entity.StatusDeprecated || res[0].Message != "use the new one" || res[0].Replacement == nil ||
		*res[0].Replacement != repl.Digest || res[1].Status != entity.StatusActive || res[1].Replacement != nil {
		t.Fatalf("Resolve = %+v", res)
	}

	_, err = s.SetStatus(ctx(t), old.Digest, store.StatusChange{Status: entity.StatusActive, Actor: "admin:ops"})
	noErr(t, "SetStatus active", err)
	if got := mustGet(t, s, old.Digest); got.Status() != entity.StatusActive || got.Lifecycle.Message != "" || got.Lifecycle.Replacement != nil {
		t.Fatalf("after reactivation: %+v", got.Lifecycle)
	}

	_, err = s.SetStatus(ctx(t), protocol.Digest{9}, store.StatusChange{Status: entity.StatusDeprecated, Actor: "acme"})
	wantErr(t, "SetStatus of an unknown document", err, store.ErrNotFound)
	_, err = s.SetStatus(ctx(t), old.Digest, store.StatusChange{Status: "retired", Actor: "acme"})
	wantErr(t, "SetStatus of an unknown status", err, store.ErrInvalid)
	_, err = s.SetStatus(ctx(t), old.Digest, store.StatusChange{Status: entity.StatusDeprecated})
	wantErr(t, "SetStatus without an actor", err, store.ErrInvalid)

	w, err := s.SetStatus(ctx(t), old.Digest, store.StatusChange{Status: entity.StatusWithdrawn, Message: "leaked a key", Actor: "admin:ops"})
	noErr(t, "SetStatus withdrawn", err)
	if w.Status() != entity.StatusWithdrawn || w.WithdrawReason != "leaked a key" {
		t.Fatalf("after withdrawal: %v %q", w.Status(), w.WithdrawReason)
	}
	_, err = s.Get(ctx(t), old.Digest, false)
	wantErr(t, "Get after a withdrawal through SetStatus", err, store.ErrWithdrawn)
	_, err = s.SetStatus(ctx(t), old.Digest, store.StatusChange{Status: entity.StatusWithdrawn, Message: "again", Actor: "admin:ops"})
	noErr(t, "a second withdrawal", err)
	_, err = s.SetStatus(ctx(t), old.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "acme"})
	wantErr(t, "deprecating a withdrawn document", err, store.ErrWithdrawn)

	h, err := s.History(ctx(t), old.Digest)
	noErr(t, "History", err)
	var trail []string
	for _, ev := range h {
		trail = append(trail, string(ev.Status)+" by "+ev.Actor)
		if ev.At.IsZero() {
			t.Fatalf("history event without a time: %+v", ev)
		}
	}
	want := []string{"deprecated by acme", "active by admin:ops", "withdrawn by admin:ops"}
	if !slices.Equal(trail, want) {
		t.Fatalf("History = %v, want %v", trail, want)
	}
	if h[0].Message != "use the new one" || h[0].Replacement == nil || *h[0].Replacement != repl.Digest {
		t.Fatalf("the deprecation's history event: %+v", h[0])
	}
	if h, err := s.History(ctx(t), repl.Digest); err != nil || len(h) != 0 || h == nil {
		t.Fatalf("History of an unchanged document = %v, %v; want an empty list", h, err)
	}
}

// testLineage: a lineage runs only through the publisher's own documents,
// oldest first, without withdrawn ones; a claim by another publisher is
// neither in the lineage it claims nor extends it.
func testLineage(t *testing.T, open Opener) {
	s := open(t)
	v1 := ownedDoc(t, s, "acme", "Acme v1", nil)
	v2 := ownedDoc(t, s, "acme", "Acme v2", &v1)
	claim := ownedDoc(t, s, "mallory", "Mallory v3", &v2)
	v3 := ownedDoc(t, s, "acme", "Acme v3", &v2)
	other := ownedDoc(t, s, "acme", "Unrelated", nil)
	for _, from := range []entity.Entry{v1, v2, v3} {
		got, err := s.Lineage(ctx(t), from.Digest)
		noErr(t, "Lineage", err)
		if want := hexes([]entity.Entry{v1, v2, v3}); !slices.Equal(hexes(got), want) {
			t.Fatalf("Lineage(%s) = %v, want %v", from.Metadata.Title, hexes(got), want)
		}
	}
	got, err := s.Lineage(ctx(t), claim.Digest)
	noErr(t, "Lineage of the claim", err)
	if !slices.Equal(hexes(got), hexes([]entity.Entry{claim})) {
		t.Fatalf("Lineage(claim) = %v, want the claim alone", hexes(got))
	}
	if got, _ := s.Lineage(ctx(t), other.Digest); len(got) != 1 {
		t.Fatalf("Lineage of a document with no versions = %v", hexes(got))
	}
	noErr(t, "Withdraw v3", s.Withdraw(ctx(t), v3.Digest, "bad"))
	got, err = s.Lineage(ctx(t), v1.Digest)
	noErr(t, "Lineage", err)
	if !slices.Equal(hexes(got), hexes([]entity.Entry{v1, v2})) {
		t.Fatalf("Lineage after withdrawing v3 = %v", hexes(got))
	}
	if got, _ := s.Lineage(ctx(t), protocol.Digest{1}); len(got) != 0 {
		t.Fatalf("Lineage of an unknown digest = %v", hexes(got))
	}
}

// catalogAll pages through a catalog query.
func catalogAll(t testing.TB, s store.Store, q store.CatalogQuery) []entity.Entry {
	t.Helper()
	var out []entity.Entry
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("catalog paging does not end")
		}
		p, err := s.Catalog(ctx(t), q)
		noErr(t, "Catalog", err)
		out = append(out, p.Entries...)
		if p.NextCursor == "" {
			return out
		}
		q.Cursor = p.NextCursor
	}
}

// testCatalog: the catalog lists newest first by publisher and/or lineage
// heads, pages without repeats, and refuses another query's cursor.
func testCatalog(t *testing.T, open Opener) {
	s := open(t)
	v1 := ownedDoc(t, s, "acme", "Acme v1", nil)
	v2 := ownedDoc(t, s, "acme", "Acme v2", &v1)
	claim := ownedDoc(t, s, "mallory", "Mallory claim", &v2)
	solo := ownedDoc(t, s, "acme", "Acme solo", nil)
	v3 := ownedDoc(t, s, "acme", "Acme v3", &v2)

	acme := catalogAll(t, s, store.CatalogQuery{Publisher: "acme", Limit: 2})
	if want := hexes([]entity.Entry{v3, solo, v2, v1}); !slices.Equal(hexes(acme), want) {
		t.Fatalf("acme's catalog = %v, want %v", hexes(acme), want)
	}
	heads := catalogAll(t, s, store.CatalogQuery{LatestOnly: true, Limit: 1})
	if want := hexes([]entity.Entry{v3, solo, claim}); !slices.Equal(hexes(heads), want) {
		t.Fatalf("lineage heads = %v, want %v (a foreign claim does not end acme's lineage)", hexes(heads), want)
	}
	noErr(t, "Withdraw v3", s.Withdraw(ctx(t), v3.Digest, "bad"))
	heads = catalogAll(t, s, store.CatalogQuery{Publisher: "acme", LatestOnly: true})
	if want := hexes([]entity.Entry{solo, v2}); !slices.Equal(hexes(heads), want) {
		t.Fatalf("acme's heads after withdrawing v3 = %v, want %v", hexes(heads), want)
	}
	p, err := s.Catalog(ctx(t), store.CatalogQuery{Publisher: "acme", Limit: 1})
	noErr(t, "Catalog", err)
	_, err = s.Catalog(ctx(t), store.CatalogQuery{Publisher: "mallory", Limit: 1, Cursor: p.NextCursor})
	wantErr(t, "Catalog with another query's cursor", err, store.ErrInvalidCursor)
	_, err = s.Catalog(ctx(t), store.CatalogQuery{Publisher: "Bad Name"})
	wantErr(t, "Catalog of a malformed publisher", err, entity.ErrInvalidPublisher)
	if p, err := s.Catalog(ctx(t), store.CatalogQuery{Publisher: "nobody"}); err != nil || len(p.Entries) != 0 || p.NextCursor != "" {
		t.Fatalf("Catalog of a publisher without documents = %v, %v", hexes(p.Entries), err)
	}
	if got := mustGet(t, s, v1.Digest); got.Publisher != "acme" {
		t.Fatal("catalog changed an entry")
	}
}

// testCatalogWalkBound: a latest-only page examines at most CatalogWalk
// rows; a stretch with no head ends the page early with a cursor, and
// paging on still finds every head.
func testCatalogWalkBound(t *testing.T, open Opener) {
	s := open(t)
	first := ownedDoc(t, s, "acme", "Chain 0", nil)
	// A chain of CatalogWalk+10 versions is published in one batch: only
	// its last is a head. Its digests are known only after preparing, so
	// each links to the one before.
	prev := first.Digest
	docs := make([]store.NewDocument, 0, store.CatalogWalk+10)
	for i := 1; i <= store.CatalogWalk+10; i++ {
		nd := prepare(t, fmt.Sprintf("---\nname: Chain %d\nsupersedes: %s\n---\n\nBody %d.\n", i, prev.Hex(), i))
		nd.Publisher = "acme"
		docs = append(docs, nd)
		prev = nd.Document.Sums.SHA1
	}
	_, err := s.PutMany(ctx(t), docs)
	noErr(t, "PutMany of the chain", err)
	// Newest first, the walk meets this and the chain's head in some
	// order, then at least CatalogWalk-2 rows that are no heads.
	oldHead := ownedDoc(t, s, "acme", "Older head", nil)
	p, err := s.Catalog(ctx(t), store.CatalogQuery{LatestOnly: true, Limit: 5})
	noErr(t, "Catalog", err)
	if p.NextCursor == "" || len(p.Entries) >= 5 {
		t.Fatalf("a latest-only page over %d rows without heads gave %d entries and cursor %q: want a short page that goes on", store.CatalogWalk+10, len(p.Entries), p.NextCursor)
	}
	all := catalogAll(t, s, store.CatalogQuery{LatestOnly: true, Limit: 5})
	got := hexes(all)
	slices.Sort(got)
	want := []string{prev.Hex(), oldHead.Digest.Hex()}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("heads = %v, want %v", got, want)
	}
}

// testDeprecatedRanksLast: a deprecated document is listed after every
// active match (the demoted column's bit 2) and regains its place when it
// is made active again.
func testDeprecatedRanksLast(t *testing.T, open Opener) {
	s := open(t)
	older := ownedDoc(t, s, "acme", "Tide tables", nil)
	newer := ownedDoc(t, s, "globex", "Tide charts", nil)
	order := func() []protocol.Digest {
		var out []protocol.Digest
		for _, e := range search(t, s, store.Query{Text: "tide"}).Entries {
			out = append(out, e.Digest)
		}
		return out
	}
	if got := order(); len(got) != 2 || got[0] != newer.Digest {
		t.Fatalf("before deprecation: %v, want the newer first", got)
	}
	_, err := s.SetStatus(ctx(t), newer.Digest, store.StatusChange{Status: entity.StatusDeprecated, Message: "use tables", Actor: "globex"})
	noErr(t, "SetStatus deprecated", err)
	if got := order(); len(got) != 2 || got[0] != older.Digest || got[1] != newer.Digest {
		t.Fatalf("after deprecation: %v, want the deprecated one last", got)
	}
	if e := mustGet(t, s, newer.Digest); e.Demoted&entity.DemotedDeprecated == 0 {
		t.Fatalf("a deprecated entry's demotion: %v", e.Demoted)
	}
	_, err = s.SetStatus(ctx(t), newer.Digest, store.StatusChange{Status: entity.StatusActive, Actor: "globex"})
	noErr(t, "SetStatus active", err)
	if got := order(); len(got) != 2 || got[0] != newer.Digest {
		t.Fatalf("after reactivation: %v, want the newer first again", got)
	}
}
