package postgres_test

import (
	"context"
	"testing"

	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
	"github.com/agora-registry/registry/internal/store/postgres"
	"github.com/agora-registry/registry/internal/testing/pgtest"
)

// Migration 000033 (the newest, so the one stepped down and up here)
// rebuilds search_head from the documents stored before it, and its down
// migration rebuilds 000014's: one-word searches still rank them by title
// and description.
func TestSearchHeadMigrationBackfills(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	ctx := context.Background()
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := migrate.Down(ctx, migrate.Postgres, dsn, 1); err != nil {
		t.Fatalf("down one: %v", err)
	}
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
	if err := migrate.Up(ctx, migrate.Postgres, dsn); err != nil {
		t.Fatalf("up again: %v", err)
	}
	page, err := s.Search(ctx, store.Query{Text: "ibex"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range page.Entries {
		got = append(got, e.Digest.Hex())
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("Search ibex after the migration = %v, want %v (title and description, title, description)", got, want)
	}
}
