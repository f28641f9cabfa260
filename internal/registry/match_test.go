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
	publish("agents", "Forecast Weather Hub", "A hub.", "Ask it.", "")                                  // title 6 + 5 agents = 11
	publish("fields", "Weather Forecast Service", "A service.", "Send city and units.", "")             // title 6 + fields 4 = 10
	adopted := publish("adoption", "Weather Feed", "A feed.", "Read it.", "")                           // title 3 + fetches 4 = 7
	old := publish("superseded", "Weather Almanac", "An almanac.", "Give the city in units.", "")       // title 3 + fields 4 − 4 = 3
	publish("newer", "Weather Forecast Archive 2", "An archive.", "Ask the archive.", old)              // title 6
	publish("description", "Climate Notes", "Weather outlooks, forecast notes.", "Read notes.", "")     // description 4
	publish("body", "Sky Log", "A log of the sky.", "It keeps the weather forecast of each night.", "") // body 2
	publish("unrelated", "Tide Tables", "Harbour tides.", "High and low water.", "")
	for hex, name := range names {
		if name != "agents" {
			continue
		}
		for i := range 5 {
			c := store.AgentCrawl{Name: fmt.Sprint("agent ", i), Supported: []store.AgentProtocol{{Digest: mustDigest(t, hex)}}}
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

var matchOrder = []string{"agents", "fields", "adoption", "newer", "description", "superseded", "body"}

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
	want := []string{"agents=11", "fields=10", "adoption=7", "newer=6", "description=4", "superseded=3", "body=2"}
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
		"title":       func(w *matchWeights) { w.title = 0 },
		"description": func(w *matchWeights) { w.description = 0 },
		"body":        func(w *matchWeights) { w.body = 0 },
		"field":       func(w *matchWeights) { w.field = 0 },
		"agents":      func(w *matchWeights) { w.agents = 0 },
		"adoption":    func(w *matchWeights) { w.adoption = 0 },
		"superseded":  func(w *matchWeights) { w.superseded = 0 },
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
