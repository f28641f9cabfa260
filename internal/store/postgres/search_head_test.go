package postgres_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/store/storetest"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// Migration search_head fills search_head with the documents stored before
// it, so their one-word searches still rank them by title and description;
// search_head_names (on the way to the newest) rebuilds it keyed by name
// from those rows, which the final search reads.
func TestSearchHeadMigrationBackfills(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	doc := func(title, description string) store.NewDocument {
		d, err := protocol.Prepare([]byte("---\nname: "+title+"\ndescription: "+description+"\n---\nBody of "+title+".\n"), 0)
		if err != nil {
			t.Fatal(err)
		}
		return store.NewDocument{Document: d}
	}
	// In three tiers, oldest first, so that newest first would invert them.
	var want []string
	for _, d := range []store.NewDocument{doc("Ibex both", "An ibex."), doc("Ibex title", "None."), doc("Other", "About the ibex.")} {
		if _, err := s.PutMany(ctx, []store.NewDocument{d}); err != nil {
			t.Fatal(err)
		}
		want = append(want, d.Document.Sums.SHA1.Hex())
	}
	s.Close()

	// Below the migration search_head is gone; the documents keep their heads.
	u := storetest.OverMigration(t, migrate.Postgres, dsn, "search_head")
	u.ToBefore()
	u.ToMigration()
	tiers := []string{"3 " + want[0], "2 " + want[1], "1 " + want[2]}
	if got := u.Column("SELECT tier || ' ' || encode(doc, 'hex') FROM search_head WHERE lexeme = 'ibex' ORDER BY tier DESC"); !slices.Equal(got, tiers) {
		t.Fatalf("search_head rows of ibex after the migration = %q, want %q", got, tiers)
	}

	u.ToNewest()
	if s, err = postgres.Open(ctx, dsn); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page, err := s.Search(ctx, store.Query{Text: "ibex"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range page.Entries {
		got = append(got, e.Digest.Hex())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Search ibex after the upgrade = %v, want %v (title and description, title, description)", got, want)
	}
}
