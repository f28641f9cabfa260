package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agora-registry/registry/internal/adoption/sketch"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/store"
)

// matchCorpus publishes the hand-built corpus: each document's rank rests
// on one reason more than its neighbours (see the scores beside them).
func matchCorpus(t *testing.T) (*Service, map[string]string) {
	t.Helper()
	return matchCorpusWith(t, MatchLLM{})
}

// matchCorpusWith is matchCorpus on a service that re-ranks with llm.
func matchCorpusWith(t *testing.T, llm MatchLLM) (*Service, map[string]string) {
	t.Helper()
	svc := newService(t, Config{PublicURL: "http://r.test", MatchLLM: llm})
	ctx := context.Background()
	names := map[string]string{} // hex -> name
	publish := func(name, title, description, body string, supersedes string) string {
		t.Helper()
		fm := "---\nname: " + title + "\ndescription: " + description + "\n"
		if supersedes != "" {
			fm += "supersedes: " + supersedes + "\n"
		}
		res, err := svc.Publish(ctx, []byte(fm+"---\n\n# "+title+"\n\n"+body+"\n"), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		hex := res.Entry.Digest.Hex()
		names[hex] = name
		return hex
	}
	publish("agents", "Forecast Weather Hub", "A hub.", "Ask it.", "")                              // title 6 + 5 agents = 11
	publish("fields", "Weather Forecast Service", "A service.", "Send city and units.", "")         // title 6 + fields 4 = 10
	adopted := publish("adoption", "Weather Feed", "A feed.", "Read it.", "")                       // title 3 + fetches 4 = 7
	old := publish("superseded", "Weather Almanac", "An almanac.", "Give the city in units.", "")   // title 3 + fields 4 − 4 = 3
	publish("newer", "Weather Forecast Archive 2", "An archive.", "Ask the archive.", old)          // title 6
	publish("description", "Climate Notes", "Weather outlooks, forecast notes.", "Read notes.", "") // description 4
	publish("heading", "Sky Log", "A log of the sky.", "## Weather forecast of each night\n\nNotes.", "")
	publish("unrelated", "Tide Tables", "Harbour tides.", "High and low water.", "")
	for hex, name := range names {
		if name != "agents" {
			continue
		}
		for i := range 5 {
			c := entity.AgentCrawl{Name: fmt.Sprint("agent ", i), Supported: []entity.AgentProtocol{{Digest: mustDigest(t, hex)}}}
			if _, _, err := engine(svc).RegisterAgent(ctx, fmt.Sprintf("http://agent%d.test", i), time.Now(), c, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := engine(svc).AddAdoption(ctx, time.Now(), []store.AdoptionDelta{{Digest: mustDigest(t, adopted), Fetches: 10, Resolutions: 5, Clients: sketch.Of([]uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})}}); err != nil {
		t.Fatal(err)
	}
	return svc, names
}

var matchTask = MatchRequest{
	Task:         "I want a weather forecast",
	InputSchema:  json.RawMessage(`{"type": "object", "properties": {"city": {"title": "City", "type": "string"}, "units": {"type": "string"}}, "required": ["city"]}`),
	OutputSchema: json.RawMessage(`{"type": "string", "description": "The forecast"}`),
	Limit:        20,
}

var matchOrder = []string{"agents", "fields", "newer", "adoption", "description", "superseded", "heading"}

func ranked(t *testing.T, svc *Service, names map[string]string, w matchWeights) []string {
	t.Helper()
	ms, err := svc.match(context.Background(), matchTask, w)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, names[m.Entry.Digest.Hex()])
	}
	return out
}

func TestMatchRanksTheCorpus(t *testing.T) {
	svc, names := matchCorpus(t)
	ms, err := svc.Match(context.Background(), matchTask)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, fmt.Sprintf("%s=%g", names[m.Entry.Digest.Hex()], m.Score))
	}
	want := []string{"agents=15", "fields=14", "newer=9.659", "adoption=9.183", "description=5.682", "superseded=4.591", "heading=4.367"}
	if !slices.Equal(got, want) {
		t.Fatalf("ranking\n got %v\nwant %v", got, want)
	}
	// The reasons say why: the field match names its fields.
	for _, r := range ms[1].Reasons {
		if r.Kind == "field" && strings.Join(r.Words, ",") != "city,units" {
			t.Fatalf("field reason %+v", r)
		}
	}
}

// Ignoring any one reason changes the ranking: each is load-bearing.
func TestMatchEveryReasonCounts(t *testing.T) {
	svc, names := matchCorpus(t)
	if got := ranked(t, svc, names, defaultMatchWeights); !slices.Equal(got, matchOrder) {
		t.Fatalf("full ranking %v", got)
	}
	for name, zero := range map[string]func(*matchWeights){
		"text":     func(w *matchWeights) { w.text = 0 },
		"field":    func(w *matchWeights) { w.field = 0 },
		"agents":   func(w *matchWeights) { w.agents = 0 },
		"adoption": func(w *matchWeights) { w.adoption = 0 },
		"demoted":  func(w *matchWeights) { w.demoted = 0 },
	} {
		w := defaultMatchWeights
		zero(&w)
		if got := ranked(t, svc, names, w); slices.Equal(got, matchOrder) {
			t.Errorf("ignoring %s leaves the ranking as it is: the corpus does not test it", name)
		}
	}
}

func TestMatchRefusals(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	for _, r := range []MatchRequest{
		{},
		{Task: "the of a"},
		{Task: strings.Repeat("x", MaxMatchTaskRunes+1)},
		{Task: "w", InputSchema: json.RawMessage(`[1]`)},
		{Task: "w", Limit: -1},
	} {
		if _, err := svc.Match(ctx, r); apperr.KindOf(err) != apperr.Invalid {
			t.Errorf("Match(%+v) = %v, want invalid", r, err)
		}
	}
	// A schema alone is enough; a deep or wide one is walked only so far.
	deep := strings.Repeat(`{"properties": {"a": `, 100) + `{}` + strings.Repeat(`}}`, 100)
	if _, err := svc.Match(ctx, MatchRequest{InputSchema: json.RawMessage(deep)}); err != nil {
		t.Fatal(err)
	}
	fields, _ := schemaFields(json.RawMessage(deep))
	if len(fields) != 1 {
		t.Fatalf("fields %v", fields)
	}
}

func mustDigest(t *testing.T, hex string) protocol.Digest {
	t.Helper()
	d, err := protocol.ParseDigest(hex)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A deprecated protocol that matches the task best ranks below its
// replacement, which joins the answer even when its own words missed.
func TestMatchPrefersTheReplacement(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	put := func(doc string) entity.Entry {
		t.Helper()
		res, err := svc.Publish(ctx, []byte(doc), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		return res.Entry
	}
	old := put("---\nname: Parcel Courier\ndescription: Ship a parcel by courier.\n---\n\nBody.\n")
	repl := put("---\nname: Deliveries\ndescription: Send boxes.\n---\n\nBody.\n")
	other := put("---\nname: Courier Rates\ndescription: Rates.\n---\n\nBody.\n")
	if _, err := svc.store.SetStatus(ctx, old.Digest, store.StatusChange{Status: entity.StatusDeprecated, Replacement: &repl.Digest, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	ms, err := svc.Match(ctx, MatchRequest{Task: "ship a parcel by courier", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	var got []protocol.Digest
	for _, m := range ms {
		got = append(got, m.Entry.Digest)
	}
	if want := []protocol.Digest{repl.Digest, old.Digest, other.Digest}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want replacement, deprecated, other %v", got, want)
	}
	if !slices.ContainsFunc(ms[0].Reasons, func(r Reason) bool { return r.Kind == "replaces" }) ||
		!slices.ContainsFunc(ms[1].Reasons, func(r Reason) bool { return r.Kind == "deprecated" && r.Points < 0 }) {
		t.Fatalf("reasons: %+v / %+v", ms[0].Reasons, ms[1].Reasons)
	}
}

// A task in words only a protocol's representativeQueries hold finds it
// first, above one that only shares a common word.
func TestMatchRepresentativeQueriesRank(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	var want protocol.Digest
	for i, doc := range []string{
		"---\nname: Table Booking\ndescription: Reserve seats.\nrepresentativeQueries: [get us a spot at a bistro, dinner for four friday]\n---\n\nBody.\n",
		"---\nname: Friday Planner\ndescription: Plans a week.\n---\n\nBody.\n",
	} {
		res, err := svc.Publish(ctx, []byte(doc), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			want = res.Entry.Digest
		}
	}
	ms, err := svc.Match(ctx, MatchRequest{Task: "a bistro on friday for four of us"})
	if err != nil || len(ms) == 0 || ms[0].Entry.Digest != want {
		t.Fatalf("Match = %+v, %v; want Table Booking first", ms, err)
	}
}

// The work of one match is bounded whatever the task: at most
// store.MaxMatchWords words reach the index, at most matchScored
// documents are read.
func TestMatchWorkIsBounded(t *testing.T) {
	words := make([]string, 0, 100)
	for i := range 100 {
		words = append(words, fmt.Sprintf("word%d", i))
	}
	task := strings.Join(words, " ")
	if got := searchWords(taskWords(task), []string{"extra"}); len(got) != store.MaxMatchWords || got[0] != "word0" {
		t.Fatalf("searchWords kept %d words: %v", len(got), got)
	}
	svc := newService(t, Config{})
	counting := &countingStore{Store: engine(svc)}
	svc.store = counting
	ctx := context.Background()
	for i := range matchScored + 10 {
		if _, err := svc.Publish(ctx, fmt.Appendf(nil, "---\nname: Doc %d\ndescription: %s\n---\n\nBody.\n", i, task[:200]), nil, ""); err != nil {
			t.Fatal(err)
		}
	}
	counting.searches, counting.gets = 0, 0
	ms, err := svc.Match(ctx, MatchRequest{Task: task, Limit: MaxMatchLimit})
	if err != nil || len(ms) != MaxMatchLimit {
		t.Fatalf("Match: %d, %v", len(ms), err)
	}
	if counting.searches != 1 || counting.maxWords > store.MaxMatchWords || counting.maxLimit > matchCandidates || counting.gets > matchScored {
		t.Fatalf("one match made %d searches (of up to %d words, %d rows) and read %d documents", counting.searches, counting.maxWords, counting.maxLimit, counting.gets)
	}
}

// countingStore counts a match's store work.
type countingStore struct {
	store.Store
	searches, gets, maxWords, maxLimit int
}

func (c *countingStore) MatchSearch(ctx context.Context, words []string, limit int) ([]store.MatchHit, error) {
	c.searches++
	c.maxWords, c.maxLimit = max(c.maxWords, len(words)), max(c.maxLimit, limit)
	return c.Store.MatchSearch(ctx, words, limit)
}

func (c *countingStore) Content(ctx context.Context, d protocol.Digest) ([]byte, entity.Lifecycle, error) {
	c.gets++
	return c.Store.Content(ctx, d)
}

func (c *countingStore) Get(ctx context.Context, d protocol.Digest, withContent bool) (entity.Entry, error) {
	c.gets++
	return c.Store.Get(ctx, d, withContent)
}

// A task phrased like a protocol's representative query ranks it above
// one whose title holds the task's rarer words: the query's words the task
// shares count, stop words included.
func TestMatchQueryPhrasingRanks(t *testing.T) {
	svc := newService(t, Config{})
	ctx := context.Background()
	put := func(doc string) protocol.Digest {
		t.Helper()
		res, err := svc.Publish(ctx, []byte(doc), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		return res.Entry.Digest
	}
	letter := put("---\nname: German Letter Templates\ndescription: Formal letters.\n---\n\nBody.\n")
	translate := put("---\nname: Translate Text\ndescription: Text from one language to another.\nrepresentativeQueries: [turn my words into spanish, say this in french]\n---\n\nBody.\n")
	order := func(w matchWeights) []protocol.Digest {
		t.Helper()
		ms, err := svc.match(ctx, MatchRequest{Task: "turn my letter into german"}, w)
		if err != nil {
			t.Fatal(err)
		}
		var got []protocol.Digest
		for _, m := range ms {
			got = append(got, m.Entry.Digest)
		}
		return got
	}
	if got := order(defaultMatchWeights); !slices.Equal(got, []protocol.Digest{translate, letter}) {
		t.Fatalf("order %v, want the translation first %v", got, translate)
	}
	w := defaultMatchWeights
	w.query = 0
	if got := order(w); !slices.Equal(got, []protocol.Digest{letter, translate}) {
		t.Fatalf("without query points the order is %v: the test does not show them", got)
	}
}
