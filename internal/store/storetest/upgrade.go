package storetest

import (
	"context"
	"testing"

	"github.com/agora-registry/registry/internal/store"
)

// Reopener closes a store, runs fn on its database (migrations) and opens
// it again.
type Reopener func(t *testing.T, s store.Store, fn func(ctx context.Context)) store.Store

// TestSearchRankUpgrade checks what the search-rank migration (PostgreSQL
// 000006, SQLite 0006) does to a store that has documents: down turns it
// back, up fills the word list from the stored titles, descriptions and
// tags and demotes the versions a listed newer version supersedes.
func TestSearchRankUpgrade(t *testing.T, s store.Store, reopen Reopener, down, up func(ctx context.Context)) {
	nd := prepare(t, simpleDoc("Weather outlook", "Daily forecast", []string{"meteo"}, "Body."))
	nd.Publisher = "acme"
	v1 := put(t, s, nd)
	nd = prepare(t, "---\nname: Weather outlook v2\nsupersedes: "+v1.Digest.Hex()+"\n---\n\nBody.\n")
	nd.Publisher = "acme"
	put(t, s, nd)
	s = reopen(t, s, func(ctx context.Context) { down(ctx); up(ctx) })
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
