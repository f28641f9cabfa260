package store

import (
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestNormalizeDefaults(t *testing.T) {
	cases := []struct {
		in        Query
		sort      Sort
		limit     int
		wantError bool
	}{
		{in: Query{}, sort: SortNewest, limit: DefaultPageSize},
		{in: Query{Text: "weather"}, sort: SortRelevance, limit: DefaultPageSize},
		{in: Query{Text: "*** ---"}, sort: SortNewest, limit: DefaultPageSize}, // no words: a listing
		{in: Query{Sort: SortRelevance}, sort: SortNewest, limit: DefaultPageSize},
		{in: Query{Text: "x", Sort: SortName, Limit: 7}, sort: SortName, limit: 7},
		{in: Query{Limit: MaxPageSize + 1}, sort: SortNewest, limit: MaxPageSize},
		{in: Query{Limit: -1}, wantError: true},
		{in: Query{Sort: "random"}, wantError: true},
		{in: Query{Text: strings.Repeat("é", MaxQueryRunes)}, sort: SortRelevance, limit: DefaultPageSize},
		{in: Query{Text: strings.Repeat("é", MaxQueryRunes+1)}, wantError: true},
		{in: Query{Text: "bad \xff"}, wantError: true},
		{in: Query{Tags: []string{"!!!"}}, wantError: true},
		{in: Query{Tags: strings.Fields("a b c d e f")}, wantError: true},
	}
	for _, c := range cases {
		got, err := c.in.Normalize()
		if c.wantError {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Normalize(%+v) error = %v, want ErrInvalid", c.in, err)
			}
			continue
		}
		if err != nil || got.Sort != c.sort || got.Limit != c.limit {
			t.Errorf("Normalize(%+v) = sort %q limit %d err %v, want %q %d", c.in, got.Sort, got.Limit, err, c.sort, c.limit)
		}
	}
}

func TestNormalizeTags(t *testing.T) {
	q, err := Query{Tags: []string{"Weather Data", " JSON "}}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"weather-data", "json"}; !slices.Equal(q.Tags, want) {
		t.Fatalf("tags %q, want %q", q.Tags, want)
	}
}

func TestTerms(t *testing.T) {
	cases := map[string][]string{
		"":                                  nil,
		"Weather forecast":                  {"weather", "forecast"},
		`"quoted" 'single' title:x -neg a*`: {"quoted", "single", "title", "x", "neg", "a"},
		"NEAR(a b) AND c OR d":              {"near", "a", "b", "and", "c", "or", "d"},
		"; DROP TABLE x; -- % _ \\":         {"drop", "table", "x"},
		"Météo 天気 v2.0":                     {"météo", "天気", "v2", "0"},
		"a\x00b":                            {"a", "b"},
	}
	for in, want := range cases {
		if got := Terms(in); !slices.Equal(got, want) {
			t.Errorf("Terms(%q) = %q, want %q", in, got, want)
		}
	}
	many := Terms(strings.Repeat("w ", MaxQueryTerms+5))
	if len(many) != MaxQueryTerms {
		t.Fatalf("Terms kept %d words, want at most %d", len(many), MaxQueryTerms)
	}
	for _, w := range Terms(`"' * : ( ) { } ^ + - ~ < > @ & | ! $ ? ; % \`) {
		t.Fatalf("Terms let an operator through as %q", w)
	}
}

const hexA = "a9993e364706816aba3e25717850c26c9cd0d89d"

func TestCursorRoundTrip(t *testing.T) {
	for _, q := range []Query{{}, {Text: "weather"}, {Sort: SortName, Tags: []string{"x"}}} {
		n, err := q.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		c := Cursor{Time: 1700000000123456, Name: "weather protocol", Rank: -12.5, Hex: hexA}
		n.Cursor = n.EncodeCursor(c)
		got, ok, err := n.DecodeCursor()
		if err != nil || !ok {
			t.Fatalf("DecodeCursor of its own cursor: ok %v err %v", ok, err)
		}
		if got.Time != c.Time || got.Name != c.Name || got.Rank != c.Rank || got.Hex != c.Hex || got.Sort != n.Sort {
			t.Fatalf("cursor round trip: got %+v, want %+v", got, c)
		}
	}
	if _, ok, err := (Query{}).DecodeCursor(); ok || err != nil {
		t.Fatal("an empty cursor must decode to none")
	}
}

func TestCursorRefusesOtherQueries(t *testing.T) {
	base, _ := Query{Text: "weather", Tags: []string{"a"}}.Normalize()
	cursor := base.EncodeCursor(Cursor{Rank: 1, Hex: hexA})
	others := []Query{
		{Text: "forecast", Tags: []string{"a"}},
		{Text: "weather"},
		{Text: "weather", Tags: []string{"b"}},
		{Text: "weather", Tags: []string{"a"}, Sort: SortNewest},
	}
	for _, o := range others {
		n, err := o.Normalize()
		if err != nil {
			t.Fatal(err)
		}
		n.Cursor = cursor
		if _, _, err := n.DecodeCursor(); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("cursor of %+v accepted for %+v: %v", base, o, err)
		}
	}
	// Same words in another spelling are the same query.
	same, _ := Query{Text: "WEATHER!", Tags: []string{"A"}}.Normalize()
	same.Cursor = cursor
	if _, ok, err := same.DecodeCursor(); !ok || err != nil {
		t.Fatalf("cursor refused for the same query spelled differently: %v", err)
	}
}

func TestCursorRefusesMalformed(t *testing.T) {
	q, _ := Query{}.Normalize()
	enc := base64.RawURLEncoding.EncodeToString
	for _, c := range []string{
		"%%%", "not base64!", enc([]byte("not json")), enc([]byte(`{"s":"newest","q":0,"h":"` + hexA + `"}`)),
		enc([]byte(`[]`)), strings.Repeat("A", 5000),
	} {
		q.Cursor = c
		if _, _, err := q.DecodeCursor(); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("DecodeCursor(%.40q) = %v, want ErrInvalidCursor", c, err)
		}
	}
	// A cursor for this query whose hex is not a hex digest.
	for _, h := range []string{"", "zz", "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=", strings.ToUpper(hexA) + "0"} {
		q.Cursor = q.EncodeCursor(Cursor{Time: 1, Hex: h})
		if _, _, err := q.DecodeCursor(); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("cursor with hex %q accepted", h)
		}
	}
}
