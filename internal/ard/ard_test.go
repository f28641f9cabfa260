package ard

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/protocol"
)

// conformanceURN is the conformance tool's identifier pattern (stricter
// about the shape than the schema's).
var conformanceURN = regexp.MustCompile(`^urn:air:([a-zA-Z0-9.-]+)(?::([a-zA-Z0-9._:-]+))?:([a-zA-Z0-9._-]+)$`)

func TestAgentIdentifiersNameTheirOriginBothWays(t *testing.T) {
	for origin, want := range map[string]string{
		"https://weather.example":       "urn:air:weather.example:agora-agent:https",
		"http://127.0.0.1:8080":         "urn:air:127.0.0.1:agora-agent:http-8080",
		"https://xn--bcher-kva.example": "urn:air:xn--bcher-kva.example:agora-agent:https",
	} {
		id, ok := AgentIdentifier(origin)
		if !ok || id != want || !conformanceURN.MatchString(id) || !URNRE.MatchString(id) {
			t.Fatalf("AgentIdentifier(%s) = %q, %v; want %q", origin, id, ok, want)
		}
		u, _ := parseURN(id)
		if back := agentOrigin(u); back != origin {
			t.Fatalf("%s names %q, want %q", id, back, origin)
		}
	}
	for _, origin := range []string{"http://[::1]:8080", "http://my_host.lan"} {
		if id, ok := AgentIdentifier(origin); ok {
			t.Fatalf("AgentIdentifier(%s) = %q: no URN carries that host", origin, id)
		}
	}
	// Other spellings of an origin are no identifiers of ours: a lookup
	// must not find an agent under a second name.
	for _, id := range []string{"urn:air:weather.example:agora-agent:https-443", "urn:air:weather.example:agora-agent:ftp",
		"urn:air:weather.example:agora-agent:http-08080", "urn:air:weather.example:agora-agent:http-x"} {
		u, _ := parseURN(id)
		if o := agentOrigin(u); o != "" {
			t.Fatalf("%s names %q", id, o)
		}
	}
}

func TestProtocolAndAgentEntriesAreSpecShaped(t *testing.T) {
	d, _ := protocol.ParseDigest(strings.Repeat("ab", 20))
	e := ProtocolEntry("https://r.example", "r.example", entity.Entry{Digest: d,
		Metadata: protocol.Metadata{Title: "Weather", Description: "Forecasts by city. More text.", Tags: []string{"weather", "forecast"}}})
	checkEntry(t, e)
	if e.URL != "https://r.example/protocol/"+d.Hex() || len(e.RepresentativeQueries) != 3 {
		t.Fatalf("protocol entry: %+v", e)
	}
	untitled := ProtocolEntry("https://r.example", "r.example", entity.Entry{Digest: d})
	checkEntry(t, untitled)
	if untitled.RepresentativeQueries != nil {
		t.Fatalf("fewer than 2 queries are left out (the schema wants 2 to 5): %q", untitled.RepresentativeQueries)
	}
	a, ok := AgentEntry(entity.Agent{URL: "https://agent.example", AgentCrawl: entity.AgentCrawl{Name: "A", WellKnownURL: "https://agent.example/.well-known/agora",
		Supported: []entity.AgentProtocol{{Digest: d}}}})
	checkEntry(t, a)
	if !ok || a.URL != "https://agent.example/.well-known/agora" || len(a.Capabilities) != 1 || a.Capabilities[0] != d.Hex() {
		t.Fatalf("agent entry: %+v", a)
	}
}

// checkEntry asserts what the conformance tool checks of an entry.
func checkEntry(t *testing.T, e Entry) {
	t.Helper()
	if !conformanceURN.MatchString(e.Identifier) || !URNRE.MatchString(e.Identifier) || e.DisplayName == "" || e.Type == "" {
		t.Fatalf("entry misses identifier, displayName or type: %+v", e)
	}
	if (e.URL == "") == (len(e.Data) == 0) {
		t.Fatalf("entry has not exactly one of url and data: %+v", e)
	}
	if q := e.RepresentativeQueries; q != nil && (len(q) < 2 || len(q) > 5) {
		t.Fatalf("representativeQueries has %d queries", len(q))
	}
	for _, v := range e.Metadata {
		switch v.(type) {
		case string, bool, int, float64, nil:
		default:
			t.Fatalf("metadata value %v is not a scalar", v)
		}
	}
}

func TestRepresentativeQueriesAreTwoToFive(t *testing.T) {
	long := strings.Repeat("word ", 100)
	q := representativeQueries(protocol.Metadata{Title: long, Description: long, Tags: []string{"a", "b", "c", "d"}})
	if len(q) < 2 || len(q) > 5 {
		t.Fatalf("%d queries", len(q))
	}
	for _, s := range q {
		if len([]rune(s)) > 120 {
			t.Fatalf("a query of %d runes", len([]rune(s)))
		}
	}
	if q := representativeQueries(protocol.Metadata{Title: "Same", Description: "same"}); q != nil {
		t.Fatalf("one distinct query is not 2: %q", q)
	}
}

// TestPeerResultsAreCheckedOneByOne: each row breaks one rule a peer's
// result must keep; dropping that rule's check lets the row through.
func TestPeerResultsAreCheckedOneByOne(t *testing.T) {
	good := map[string]any{"identifier": "urn:air:peer.example:x:y", "displayName": "Y", "type": "application/a2a-agent-card+json",
		"url": "https://peer.example/y.json", "score": 90, "source": "https://elsewhere.example"}
	with := func(k string, v any) json.RawMessage {
		m := map[string]any{}
		for a, b := range good {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return b
	}
	if _, ok := peerResult(with("score", 90)); !ok {
		t.Fatal("a good result is dropped")
	}
	data := json.RawMessage(`{"name":"x"}`)
	bad := map[string]json.RawMessage{
		"score above 100":        with("score", 101),
		"negative score":         with("score", -1),
		"fractional score":       with("score", 9.5),
		"identifier not a URN":   with("identifier", "https://peer.example/y"),
		"no displayName":         with("displayName", nil),
		"long displayName":       with("displayName", strings.Repeat("x", 201)),
		"no type":                with("type", nil),
		"url and data":           with("data", data),
		"neither url nor data":   with("url", nil),
		"url not http":           with("url", "ftp://peer.example/y"),
		"long description":       with("description", strings.Repeat("x", 2001)),
		"entry over the cap":     with("metadata", map[string]string{"pad": strings.Repeat("x", MaxPeerEntryBytes)}),
		"data not an object":     json.RawMessage(`{"identifier":"urn:air:p.example:x:y","displayName":"Y","type":"t","data":[1],"score":1}`),
		"not an object":          json.RawMessage(`[1,2]`),
		"identifier over 512":    with("identifier", "urn:air:p.example:x:"+strings.Repeat("y", 600)),
		"type over 200 runes":    with("type", strings.Repeat("t", 201)),
		"display name not UTF-8": json.RawMessage("{\"identifier\":\"urn:air:p.example:x:y\",\"displayName\":\"\xff\",\"type\":\"t\",\"url\":\"https://p.example\",\"score\":1}"),
	}
	for name, raw := range bad {
		if r, ok := peerResult(raw); ok {
			t.Errorf("%s: kept %+v", name, r)
		}
	}
}

func TestParseHopCountsAMalformedHeaderAsTheLast(t *testing.T) {
	for _, c := range []struct {
		hops, via string
		fans      bool
	}{
		{"", "", true},
		{"1", "http://a/ard", true},
		{"2", "", false},
		{"-1", "", false},
		{"x", "", false},
		{"99999999999999999999", "", false},
		{"0", "http://me/ard", false},
		{"0", "a b c d e f", false},
	} {
		if got := ParseHop(c.hops, c.via).fansOut("http://me/ard"); got != c.fans {
			t.Errorf("hops %q via %q: fans out %v, want %v", c.hops, c.via, got, c.fans)
		}
	}
}

func TestBucketsOrderCutAndCountTheRest(t *testing.T) {
	f := buckets(map[string]int{"a": 5, "b": 3, "c": 3, "d": 1, "z": 0}, 2, 2)
	if len(f.Buckets) != 2 || f.Buckets[0] != (Bucket{"a", 5}) || f.Buckets[1] != (Bucket{"b", 3}) || f.OtherCount != 3 {
		t.Fatalf("buckets = %+v", f)
	}
}

func TestFilterValues(t *testing.T) {
	for raw, ok := range map[string]bool{
		`"x"`: true, `["x","y"]`: true, `[]`: false, `""`: false, `1`: false, `[1]`: false, `{"a":1}`: false,
		`[` + strings.Repeat(`"x",`, MaxFilterValues) + `"x"]`: false, `"` + strings.Repeat("x", MaxFilterValueLen+1) + `"`: false,
	} {
		if _, err := stringOrList(json.RawMessage(raw)); (err == nil) != ok {
			t.Errorf("%.40s: err %v, want ok=%v", raw, err, ok)
		}
	}
}

func FuzzIdentifiersAndPeerResults(f *testing.F) {
	f.Add("urn:air:weather.example:agora-agent:https-8443", []byte(`{"identifier":"urn:air:a.b:c:d","displayName":"x","type":"t","url":"http://a.b","score":3}`))
	f.Add("URN:AIR:x:agora-protocol:"+strings.Repeat("0", 40), []byte(`{"score":1e400}`))
	f.Fuzz(func(t *testing.T, id string, raw []byte) {
		if u, ok := parseURN(id); ok {
			if o := agentOrigin(u); o != "" {
				if back, ok := AgentIdentifier(o); !ok || !strings.EqualFold(back, id) {
					t.Fatalf("%q names %q, whose identifier is %q", id, o, back)
				}
			}
		}
		if r, ok := peerResult(raw); ok {
			if r.Score < 0 || r.Score > 100 || !URNRE.MatchString(r.Identifier) || (r.URL != "") == (len(r.Data) > 0 && string(r.Data) != "null") || len(raw) > MaxPeerEntryBytes {
				t.Fatalf("kept a bad result %+v", r)
			}
		}
	})
}

// TestFederationKeepsAtMostSizeResultsPerPeer: a peer flooding results
// adds at most the page size to the merge.
func TestFederationKeepsAtMostSizeResultsPerPeer(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rs []string
		for i := range 300 {
			rs = append(rs, fmt.Sprintf(`{"identifier":"urn:air:p.example:a:r%d","displayName":"R","type":"t","url":"https://p.example/","score":50}`, i))
		}
		fmt.Fprintf(w, `{"results":[%s]}`, strings.Join(rs, ","))
	}))
	defer ts.Close()
	f, err := NewFederation([]string{ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := "x"
	rs, skipped := f.Search(t.Context(), Query{Text: &text}, 3, Hop{})
	if len(rs) != 3 || skipped != 0 {
		t.Fatalf("%d results, %d skipped", len(rs), skipped)
	}
}

// TestAgentEntryCarriesTheA2ACard: an agent read as one record (with its
// A2A card) says what it serves through its skills' examples and tags,
// bounded however many the card lists.
func TestAgentEntryCarriesTheA2ACard(t *testing.T) {
	card := &entity.AgentCard{Name: "Booker", Description: "Books tables."}
	for i := range 50 {
		card.Skills = append(card.Skills, entity.A2ASkill{ID: fmt.Sprint(i), Name: "book",
			Tags: []string{fmt.Sprint("tag", i), "booking"}, Examples: []string{fmt.Sprint("book a table for ", i)}})
	}
	a := entity.Agent{URL: "https://booker.example", CardSignature: entity.SignatureVerified, ARDEntryCount: -1}
	a.A2A = card
	e, ok := AgentEntry(a)
	if !ok {
		t.Fatal("no entry")
	}
	if e.DisplayName != "Booker" || e.Description != "Books tables." {
		t.Errorf("name and description not taken from the card: %q %q", e.DisplayName, e.Description)
	}
	if len(e.RepresentativeQueries) != 5 || e.RepresentativeQueries[0] != "book a table for 0" {
		t.Errorf("representativeQueries: %q", e.RepresentativeQueries)
	}
	if len(e.Tags) != maxAgentTags {
		t.Errorf("%d tags from 50 skills, want %d", len(e.Tags), maxAgentTags)
	}
	if d := e.Metadata["dialects"]; d != entity.DialectA2A {
		t.Errorf("dialects: %v", e.Metadata["dialects"])
	}
}
