package storetest

import (
	"context"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
)

// TestSearchRankUpgrade checks what the search-rank migration (PostgreSQL
// 000006, SQLite 0006) does to a store that has documents: one migration
// down turns it back, up again fills the word list from the stored titles,
// descriptions and tags and demotes the versions a listed newer version
// supersedes. The store at dsn is opened with open, closed for the
// migrations and opened again.
func TestSearchRankUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	nd := prepare(t, simpleDoc("Weather outlook", "Daily forecast", []string{"meteo"}, "Body."))
	nd.Publisher = "acme"
	v1 := put(t, s, nd)
	nd = prepare(t, "---\nname: Weather outlook v2\nsupersedes: "+v1.Digest.Hex()+"\n---\n\nBody.\n")
	nd.Publisher = "acme"
	put(t, s, nd)
	s.Close()
	if err := migrate.Down(ctx(t), engine, dsn, 1); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Up(ctx(t), engine, dsn); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dsn, open)
	got, err := s.Suggest(ctx(t), "wether forcast")
	noErr(t, "Suggest", err)
	if got != "weather forecast" {
		t.Fatalf("after the upgrade, Suggest = %q, want the stored words", got)
	}
	e, err := s.Get(ctx(t), v1.Digest, false)
	noErr(t, "Get", err)
	if !e.Superseded() {
		t.Fatal("after the upgrade, the superseded version is not marked")
	}
	if page := search(t, s, store.Query{Text: "outl"}); len(page.Entries) != 2 {
		t.Fatalf("after the upgrade, the prefix finds %d entries, want 2", len(page.Entries))
	}
}

func openStore[S store.Store](t *testing.T, dsn string, open func(context.Context, string) (S, error)) store.Store {
	t.Helper()
	s, err := open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestDeprecatedUpgrade checks the deprecation-demotion migration
// (PostgreSQL 000022, SQLite 0022): after down has cleared the deprecated
// bit, up sets it again on every deprecated document, so documents
// deprecated before the bit was kept rank after live matches.
func TestDeprecatedUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	old := ownedDoc(t, s, "acme", "Harbour tides", nil)
	live := ownedDoc(t, s, "globex", "Harbour charts", nil)
	_, err := s.SetStatus(ctx(t), live.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "globex"})
	noErr(t, "SetStatus deprecated", err)
	s.Close()
	if err := migrate.Down(ctx(t), engine, dsn, 1); err != nil {
		t.Fatal(err)
	}
	if err := migrate.Up(ctx(t), engine, dsn); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dsn, open)
	if e := mustGet(t, s, live.Digest); e.Demoted&entity.DemotedDeprecated == 0 {
		t.Fatalf("after the upgrade a deprecated entry's demotion is %v", e.Demoted)
	}
	got := search(t, s, store.Query{Text: "harbour"}).Entries
	if len(got) != 2 || got[0].Digest != old.Digest {
		t.Fatalf("after the upgrade the deprecated entry does not rank last: %v", hexes(got))
	}
}
