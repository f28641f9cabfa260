package harness

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Scenario is one kind of request mix.
type Scenario struct {
	Name        string
	Description string
	Expect      int  // success status
	Raw         bool // a raw-document scenario the baselines also serve
	// Connections overrides the run's connection count (publish uses 16).
	Connections int
	// Targeter builds the requests against base (http://host:port).
	Targeter func(base string) vegeta.Targeter
}

// HotSet is the working set of the hot raw fetch.
const HotSet = 100

// resolveBatch is how many hashes one batch-resolve call carries.
const resolveBatch = 1000

// publishClients is the fixed client count of the publish scenarios.
const publishClients = 16

// ScenarioGroups maps the names -scenarios accepts to scenario names.
var ScenarioGroups = map[string][]string{
	"search":  {"search-common", "search-rare", "search-tag", "search-deep"},
	"publish": {"publish-new", "publish-existing"},
	"raw":     {"hot", "cold", "head", "revalidate"},
}

// AllScenarios lists every scenario name in run order.
var AllScenarios = []string{"hot", "cold", "head", "revalidate", "search-common", "search-rare", "search-tag", "search-deep", "resolve", "html", "publish-existing", "publish-new"}

// ExpandScenarios turns "hot,search" into scenario names, in run order.
func ExpandScenarios(list string) ([]string, error) {
	if list == "" || list == "all" {
		return AllScenarios, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if group, ok := ScenarioGroups[name]; ok {
			for _, g := range group {
				want[g] = true
			}
			continue
		}
		known := false
		for _, s := range AllScenarios {
			known = known || s == name
		}
		if !known {
			return nil, fmt.Errorf("unknown scenario %q (known: %s, groups: raw, search, publish)", name, strings.Join(AllScenarios, ","))
		}
		want[name] = true
	}
	var out []string
	for _, s := range AllScenarios {
		if want[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// Fixtures is what scenarios need besides the corpus: found by querying the
// running registry before measuring (the deep-page cursor).
type Fixtures struct {
	Corpus     *Corpus
	DeepCursor string // cursor of the deep search page
	DeepPage   int
	// NextNew numbers the documents publish-new creates; they continue after
	// the corpus so every request publishes a document the store lacks.
	NextNew atomic.Int64
}

// BuildScenario returns the named scenario over the fixtures.
func BuildScenario(name string, fx *Fixtures) Scenario {
	c := fx.Corpus
	n := len(c.Hexes)
	pick := func(limit int) string { return c.Hexes[rand.IntN(limit)] }
	get := func(path func() string, h http.Header) func(string) vegeta.Targeter {
		return func(base string) vegeta.Targeter {
			return func(t *vegeta.Target) error {
				t.Method, t.URL, t.Header, t.Body = http.MethodGet, base+path(), h, nil
				return nil
			}
		}
	}
	hot := min(HotSet, n)
	switch name {
	case "hot":
		return Scenario{Name: name, Description: fmt.Sprintf("GET /protocol/{hex}, %d-document working set", hot), Expect: 200, Raw: true,
			Targeter: get(func() string { return "/protocol/" + pick(hot) }, nil)}
	case "cold":
		return Scenario{Name: name, Description: "GET /protocol/{hex}, uniform over all N", Expect: 200, Raw: true,
			Targeter: get(func() string { return "/protocol/" + pick(n) }, nil)}
	case "head":
		return Scenario{Name: name, Description: "HEAD /protocol/{hex}, uniform over all N", Expect: 200, Raw: true,
			Targeter: func(base string) vegeta.Targeter {
				return func(t *vegeta.Target) error {
					t.Method, t.URL, t.Header, t.Body = http.MethodHead, base+"/protocol/"+pick(n), nil, nil
					return nil
				}
			}}
	case "revalidate":
		return Scenario{Name: name, Description: "GET /protocol/{hex} with If-None-Match → 304, uniform over all N", Expect: 304, Raw: true,
			Targeter: func(base string) vegeta.Targeter {
				return func(t *vegeta.Target) error {
					h := pick(n)
					t.Method, t.URL, t.Body = http.MethodGet, base+"/protocol/"+h, nil
					t.Header = http.Header{"If-None-Match": {`"` + h + `"`}}
					return nil
				}
			}}
	case "search-common":
		return Scenario{Name: name, Description: fmt.Sprintf("GET /api/v1/protocols?q=%s (common word)", c.Common), Expect: 200,
			Targeter: get(func() string { return "/api/v1/protocols?q=" + url.QueryEscape(c.Common) }, nil)}
	case "search-rare":
		return Scenario{Name: name, Description: fmt.Sprintf("GET /api/v1/protocols?q=%s (rare word)", c.Rare), Expect: 200,
			Targeter: get(func() string { return "/api/v1/protocols?q=" + url.QueryEscape(c.Rare) }, nil)}
	case "search-tag":
		return Scenario{Name: name, Description: fmt.Sprintf("GET /api/v1/protocols?tag=%s (tag filter)", c.Tag), Expect: 200,
			Targeter: get(func() string { return "/api/v1/protocols?tag=" + url.QueryEscape(c.Tag) }, nil)}
	case "search-deep":
		return Scenario{Name: name, Description: fmt.Sprintf("GET /api/v1/protocols?limit=100&cursor=… (page %d of the newest-first listing)", fx.DeepPage), Expect: 200,
			Targeter: get(func() string { return "/api/v1/protocols?limit=100&cursor=" + url.QueryEscape(fx.DeepCursor) }, nil)}
	case "resolve":
		bodies := ResolveBodies(c.Hexes, 16)
		return Scenario{Name: name, Description: fmt.Sprintf("POST /api/v1/resolve with %d random hashes", min(resolveBatch, n)), Expect: 200,
			Targeter: func(base string) vegeta.Targeter {
				h := header("Content-Type", "application/json")
				return func(t *vegeta.Target) error {
					t.Method, t.URL, t.Header, t.Body = http.MethodPost, base+"/api/v1/resolve", h, bodies[rand.IntN(len(bodies))]
					return nil
				}
			}}
	case "html":
		return Scenario{Name: name, Description: "GET /protocols/{hex} (HTML page), uniform over all N", Expect: 200,
			Targeter: get(func() string { return "/protocols/" + pick(n) }, header("Accept", "text/html"))}
	case "publish-existing":
		return Scenario{Name: name, Description: fmt.Sprintf("POST /api/v1/protocols re-publishing stored documents, %d clients", publishClients), Expect: 200, Connections: publishClients,
			Targeter: func(base string) vegeta.Targeter {
				h := header("Content-Type", "text/markdown; charset=utf-8")
				return func(t *vegeta.Target) error {
					t.Method, t.URL, t.Header, t.Body = http.MethodPost, base+"/api/v1/protocols", h, generateDocument(rand.IntN(n))
					return nil
				}
			}}
	case "publish-new":
		return Scenario{Name: name, Description: fmt.Sprintf("POST /api/v1/protocols with new documents, %d clients", publishClients), Expect: 201, Connections: publishClients,
			Targeter: func(base string) vegeta.Targeter {
				h := header("Content-Type", "text/markdown; charset=utf-8")
				return func(t *vegeta.Target) error {
					i := fx.NextNew.Add(1) - 1
					t.Method, t.URL, t.Header, t.Body = http.MethodPost, base+"/api/v1/protocols", h, generateDocument(int(i))
					return nil
				}
			}}
	}
	panic("bench: unknown scenario " + name) // names are checked by ExpandScenarios
}

// ResolveBodies pre-builds k request bodies of resolveBatch random hashes.
func ResolveBodies(hexes []string, k int) [][]byte {
	out := make([][]byte, k)
	for i := range out {
		batch := make([]string, min(resolveBatch, len(hexes)))
		for j := range batch {
			batch[j] = hexes[rand.IntN(len(hexes))]
		}
		out[i], _ = json.Marshal(map[string][]string{"hashes": batch})
	}
	return out
}
