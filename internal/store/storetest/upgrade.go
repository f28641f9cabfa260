package storetest

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/store"
	"github.com/agora-registry/registry/internal/store/migrate"
)

// The upgrade tests store documents, take the database below their named
// migration (whose down removes what it added), check there that the rows
// are as the migration finds them on an older store, migrate up to it,
// check what its backfill wrote, and check the store at the newest
// version. The store at dsn is opened with open and closed for every
// migration.

// TestSearchRankUpgrade checks the search-rank migration: it fills the
// word list from the stored titles, descriptions and tags and demotes the
// versions a listed newer version of the same publisher supersedes (on
// SQLite it also gives tag rows their document's listing key).
func TestSearchRankUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	nd := prepare(t, simpleDoc("Weather outlook", "Daily forecast", []string{"meteo"}, "Body."))
	nd.Publisher = "acme"
	v1 := put(t, s, nd)
	nd = prepare(t, "---\nname: Weather outlook v2\nsupersedes: "+v1.Digest.Hex()+"\n---\n\nBody.\n")
	nd.Publisher = "acme"
	v2 := put(t, s, nd)
	s.Close()

	u := OverMigration(t, engine, dsn, "search_rank")
	u.ToBefore()
	u.ToMigration()
	words := u.Column("SELECT word FROM search_words")
	for _, w := range []string{"weather", "outlook", "daily", "forecast", "meteo", "v2"} {
		if !slices.Contains(words, w) {
			t.Fatalf("the migration's word list %q lacks %q", words, w)
		}
	}
	hex := u.ByEngine("encode(digest, 'hex')", "hex")
	if got := u.Column("SELECT " + hex + " FROM documents WHERE demoted = 1"); !slices.Equal(got, []string{v1.Digest.Hex()}) {
		t.Fatalf("the migration demoted %q, want the superseded %s only", got, v1.Digest.Hex())
	}
	if engine == migrate.SQLite {
		got := u.Column("SELECT tag || ' ' || hex || ' ' || (created_at > 0) FROM document_tags ORDER BY tag")
		if want := []string{"meteo " + v1.Digest.Hex() + " 1"}; !slices.Equal(got, want) {
			t.Fatalf("tag rows after the migration: %q, want %q", got, want)
		}
	}

	u.ToNewest()
	s = openStore(t, dsn, open)
	got, err := s.Suggest(ctx(t), "wether forcast")
	noErr(t, "Suggest", err)
	if got != "weather forecast" {
		t.Fatalf("after the upgrade, Suggest = %q, want the stored words", got)
	}
	if !mustGet(t, s, v1.Digest).Superseded() || mustGet(t, s, v2.Digest).Superseded() {
		t.Fatal("after the upgrade, the superseded version is not the one marked")
	}
	if page := search(t, s, store.Query{Text: "outl"}); len(page.Entries) != 2 || page.Entries[0].Digest != v2.Digest {
		t.Fatalf("after the upgrade, the prefix finds %v, want the newer version first of 2", hexes(page.Entries))
	}
	if page := search(t, s, store.Query{Tags: []string{"meteo"}}); len(page.Entries) != 1 || page.Entries[0].Digest != v1.Digest {
		t.Fatalf("after the upgrade, the tag lists %v, want %s", hexes(page.Entries), v1.Digest.Hex())
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

// TestDeprecatedUpgrade checks the deprecation-demotion migration: it sets
// the deprecated bit of demoted on every document deprecated before the
// bit was kept, so those rank after live matches.
func TestDeprecatedUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	old := ownedDoc(t, s, "acme", "Harbour tides", nil)
	live := ownedDoc(t, s, "globex", "Harbour charts", nil)
	_, err := s.SetStatus(ctx(t), live.Digest, store.StatusChange{Status: entity.StatusDeprecated, Actor: "globex"})
	noErr(t, "SetStatus deprecated", err)
	s.Close()

	u := OverMigration(t, engine, dsn, "deprecated_demoted")
	bit := "SELECT CAST(demoted & " + strconv.Itoa(int(entity.DemotedDeprecated)) + " AS TEXT) FROM documents WHERE status = 'deprecated'"
	u.ToBefore()
	if got := u.Column(bit); !slices.Equal(got, []string{"0"}) {
		t.Fatalf("below the migration the deprecated document's bit is %q, want it clear", got)
	}
	u.ToMigration()
	if got := u.Column(bit); !slices.Equal(got, []string{strconv.Itoa(int(entity.DemotedDeprecated))}) {
		t.Fatalf("the migration left the deprecated document's bit %q, want it set", got)
	}

	u.ToNewest()
	s = openStore(t, dsn, open)
	if e := mustGet(t, s, live.Digest); e.Demoted&entity.DemotedDeprecated == 0 {
		t.Fatalf("after the upgrade a deprecated entry's demotion is %v", e.Demoted)
	}
	if e := mustGet(t, s, old.Digest); e.Demoted != 0 {
		t.Fatalf("after the upgrade an active entry's demotion is %v", e.Demoted)
	}
	got := search(t, s, store.Query{Text: "harbour"}).Entries
	if len(got) != 2 || got[0].Digest != old.Digest {
		t.Fatalf("after the upgrade the deprecated entry does not rank last: %v", hexes(got))
	}
}

// levelAt27 is the adoption level of migration adoption_boost, before
// adoption_threshold raised level 1 to store.AdoptedScore.
func levelAt27(score int64) int {
	level := 0
	for level < store.MaxAdoptionLevel && score >= int64(1)<<(level+1)-1 {
		level++
	}
	return level
}

// putTitles stores one document per title, with description and body.
func putTitles(t *testing.T, s store.Store, description, body string, titles ...string) []entity.Entry {
	t.Helper()
	var es []entity.Entry
	for _, title := range titles {
		es = append(es, putText(t, s, simpleDoc(title, description, nil, body)))
	}
	return es
}

// adoptionLevels is every adopted document as "hex level", in hex order.
func adoptionLevels(u *Upgrade) []string {
	hex := u.ByEngine("encode(digest, 'hex')", "hex")
	return u.Column("SELECT " + hex + " || ' ' || CAST(boost AS TEXT) FROM documents WHERE boost <> 0 ORDER BY 1")
}

// checkAdoptedIndex checks, on SQLite, that the adopted full-text table
// finds word in want documents (PostgreSQL keeps no such table).
func checkAdoptedIndex(t *testing.T, u *Upgrade, engine migrate.Engine, word string, want int) {
	t.Helper()
	if engine != migrate.SQLite {
		return
	}
	if got := u.Column("SELECT CAST(rowid AS TEXT) FROM documents_adopted_fts WHERE documents_adopted_fts MATCH '" + word + "'"); len(got) != want {
		t.Fatalf("the adopted index holds %q after the migration, want %d adopted documents", got, want)
	}
}

// TestAdoptionBoostUpgrade checks the adoption-level migration: a document
// scored before it gets the level of its score, and ranks by it.
func TestAdoptionBoostUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	es := putTitles(t, s, "Buoys", "Buoy.", "Buoy v2", "Buoy v10", "Buoy v9")
	fetchedBy(t, s, es[0].Digest, 20, 1, 1)
	s.Close()

	u := OverMigration(t, engine, dsn, "adoption_boost")
	u.ToBefore()
	hex := u.ByEngine("encode(digest, 'hex')", "hex")
	scores := u.Column("SELECT " + hex + " || ' ' || CAST(score AS TEXT) FROM adoption_scores")
	if len(scores) != 1 {
		t.Fatalf("below the migration the scores are %q, want one", scores)
	}
	d, score, _ := strings.Cut(scores[0], " ")
	n, err := strconv.ParseInt(score, 10, 64)
	if err != nil || d != es[0].Digest.Hex() || levelAt27(n) == 0 || store.AdoptionLevel(n) == 0 {
		t.Fatalf("below the migration the score is %q, want the fetched entry's, of a level above 0", scores[0])
	}
	u.ToMigration()
	want := []string{es[0].Digest.Hex() + " " + strconv.Itoa(levelAt27(n))}
	if got := u.Column("SELECT " + hex + " || ' ' || CAST(boost AS TEXT) FROM documents WHERE boost <> 0"); !slices.Equal(got, want) {
		t.Fatalf("the migration's levels: %q, want %q", got, want)
	}

	u.ToNewest()
	s = openStore(t, dsn, open)
	if got := search(t, s, store.Query{Text: "buoy"}).Entries; len(got) != 3 || got[0].Digest != es[0].Digest {
		t.Fatalf("after the upgrade the adopted entry is not first: %q", titlesOf(got))
	}
}

// TestAdoptionThresholdUpgrade checks the migration that raised level 1 to
// store.AdoptedScore: levels set under the old rule are recomputed (a
// handful of clients is no longer adopted, and on SQLite leaves the
// adopted index), and the score triggers write the new levels.
func TestAdoptionThresholdUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	es := putTitles(t, s, "Reefs", "Reef.", "Reef v1", "Reef v2", "Reef v3")
	fetchedBy(t, s, es[0].Digest, 3, 1, 1)  // old level 2, new 0
	fetchedBy(t, s, es[1].Digest, 40, 1, 2) // old level 5, new 2
	s.Close()

	u := OverMigration(t, engine, dsn, "adoption_threshold")
	u.ToBefore()
	if got := adoptionLevels(u); len(got) != 2 {
		t.Fatalf("below the migration the levels are %q, want two adopted documents", got)
	}
	u.ToMigration()
	if got, want := adoptionLevels(u), []string{es[1].Digest.Hex() + " 2"}; !slices.Equal(got, want) {
		t.Fatalf("the migration's levels: %q, want %q", got, want)
	}
	checkAdoptedIndex(t, u, engine, "reef", 1)

	u.ToNewest()
	s = openStore(t, dsn, open)
	fetchedBy(t, s, es[2].Digest, 5, 1, 3)
	if got := search(t, s, store.Query{Text: "reef"}).Entries; len(got) != 3 || got[0].Digest != es[1].Digest || got[1].Digest != es[0].Digest {
		t.Fatalf("after the upgrade: %q, want the adopted Reef v2 first, then v1 and v3 in name order", titlesOf(got))
	}
}

// TestAdoptionBoostChangesUpgrade checks the migration after which a
// document takes its level when inserted: a document the old triggers
// left unadopted (published after its score was written) gets its level,
// and on SQLite joins the adopted index.
func TestAdoptionBoostChangesUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	es := putTitles(t, s, "Piers", "Pier.", "Pier v1", "Pier v2", "Pier v3")
	fetchedBy(t, s, es[2].Digest, 20, 1, 1)
	s.Close()

	u := OverMigration(t, engine, dsn, "adoption_boost_changes")
	hex := u.ByEngine("encode(digest, 'hex')", "hex")
	u.ToBefore()
	// The state the old triggers left a document published after its
	// score in: scored, level 0.
	if got := u.Column("UPDATE documents SET boost = 0 WHERE " + hex + " = '" + es[2].Digest.Hex() + "' RETURNING " + hex); len(got) != 1 {
		t.Fatalf("unsetting the level below the migration touched %q", got)
	}
	u.ToMigration()
	if got, want := adoptionLevels(u), []string{es[2].Digest.Hex() + " 1"}; !slices.Equal(got, want) {
		t.Fatalf("the migration's levels: %q, want %q", got, want)
	}
	checkAdoptedIndex(t, u, engine, "pier", 1)

	u.ToNewest()
	s = openStore(t, dsn, open)
	if got := search(t, s, store.Query{Text: "pier"}).Entries; len(got) != 3 || got[0].Digest != es[2].Digest {
		t.Fatalf("after the upgrade: %q, want the adopted Pier v3 first", titlesOf(got))
	}
}

// TestNaturalNameUpgrade checks the natural-name migration: the name key of
// every stored title is store.NaturalKey's (SQLite rewrites the stored
// keys; PostgreSQL computes them in SQL), so the name sort orders numbers
// by value, among keys written after it too.
func TestNaturalNameUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	for _, title := range []string{"Buoy v2", "Buoy v10", "Buoy v9", "Buoy 007 x", "Buoy 7 a", "Buoy"} {
		putText(t, s, simpleDoc(title, "Buoys", nil, "Buoy."))
	}
	s.Close()

	u := OverMigration(t, engine, dsn, "natural_name")
	keys := u.ByEngine("SELECT title || '|' || natural_key(title) FROM documents ORDER BY title",
		"SELECT title || '|' || title_key FROM documents ORDER BY title")
	u.ToBefore()
	if engine == migrate.SQLite {
		// The keys as Put wrote them before: the lower-cased title.
		for _, row := range u.Column(keys) {
			if title, key, _ := strings.Cut(row, "|"); key != strings.ToLower(title) {
				t.Fatalf("below the migration %q has the key %q, want the lower-cased title", title, key)
			}
		}
	}
	u.ToMigration()
	rows := u.Column(keys)
	if len(rows) != 6 {
		t.Fatalf("the migration's keys: %q, want 6", rows)
	}
	for _, row := range rows {
		if title, key, _ := strings.Cut(row, "|"); key != store.NaturalKey(title) {
			t.Fatalf("after the migration %q has the key %q, want %q", title, key, store.NaturalKey(title))
		}
	}

	u.ToNewest()
	s = openStore(t, dsn, open)
	// A key written after the upgrade sorts among the rewritten ones.
	putText(t, s, simpleDoc("Buoy 07 m", "Buoys", nil, "Buoy."))
	if got := titlesOf(search(t, s, store.Query{Sort: store.SortName}).Entries); !slices.Equal(got, []string{"Buoy", "Buoy 7 a", "Buoy 07 m", "Buoy 007 x", "Buoy v2", "Buoy v9", "Buoy v10"}) {
		t.Fatalf("after the upgrade the name sort is %q", got)
	}
}

// TestMatchIndexUpgrade checks the task-match migration: it indexes every
// listed document stored before it by its title, tags and description.
func TestMatchIndexUpgrade[S store.Store](t *testing.T, engine migrate.Engine, dsn string, open func(context.Context, string) (S, error)) {
	s := openStore(t, dsn, open)
	listed := putText(t, s, simpleDoc("Tide tables", "Harbour water levels", []string{"nautical"}, "Body."))
	gone := putText(t, s, simpleDoc("Tide clock", "Harbour clock", nil, "Body."))
	noErr(t, "Withdraw", s.Withdraw(ctx(t), gone.Digest, "test"))
	s.Close()

	u := OverMigration(t, engine, dsn, "match_index")
	u.ToBefore()
	u.ToMigration()
	indexed := u.ByEngine("SELECT encode(digest, 'hex') FROM document_match",
		"SELECT hex FROM documents WHERE id IN (SELECT rowid FROM documents_match_fts)")
	if got := u.Column(indexed); !slices.Equal(got, []string{listed.Digest.Hex()}) {
		t.Fatalf("the migration indexed %q, want the listed document only", got)
	}

	u.ToNewest()
	s = openStore(t, dsn, open)
	for _, word := range []string{"tide", "nautical", "levels"} {
		hits, err := s.MatchSearch(ctx(t), []string{word}, 10)
		noErr(t, "MatchSearch", err)
		if len(hits) != 1 || hits[0].Entry.Digest != listed.Digest {
			t.Fatalf("after the upgrade MatchSearch(%q) finds %d hits, want the listed document", word, len(hits))
		}
	}
}
